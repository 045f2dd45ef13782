"""The session front's pipe against a daemon played by the test over real sockets, the client over real pipes.

The front answers the client's handshake from the daemon's hello answer and drops the daemon's own answers to
it; a request it answered is never answered again when the daemon is lost, the requests the daemon took are;
and a fresh daemon is handed the client's handshake. Every wait is bounded by STEP_SECONDS.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import threading
from typing import Any, cast

import pytest

from mcp_gateway import __version__
from mcp_gateway.front import pipe
from mcp_gateway.front.client_lines import ClientLines
from mcp_gateway.front.early_answers import Handshake
from mcp_gateway.front.hello import Answer, Hello
from mcp_gateway.front.pipe import DAEMON_LOST, PROBE_ID_PREFIX, REPLAYED_ID, Front, greeted
from mcp_gateway.front.rendezvous import NoRendezvous

STEP_SECONDS = 10.0
"""Generous bound for a thread of the front to get to a line."""
HANDSHAKE = Handshake("Use search_tools first.", [{"name": "search_tools", "inputSchema": {"type": "object"}}])
INITIALIZE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
)
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
TOOLS_LIST = b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
CALL = b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_tools","arguments":{}}}\n'
LOG = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n'


def answer_of(request_id: int, result: dict[str, Any]) -> bytes:
    """As the daemon writes a response (`wire.encode`: the SDK's field order, compact)."""
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}, separators=(",", ":")).encode() + b"\n"


def client_line(fd: int) -> bytes:
    """The next line the front wrote to its client, within STEP_SECONDS."""
    data = b""
    while not data.endswith(b"\n"):
        readable, _, _ = select.select([fd], [], [], STEP_SECONDS)
        assert readable, f"nothing more from the front after {data!r}"
        byte = os.read(fd, 1)
        assert byte, f"closed after {data!r}"
        data += byte
    return data


def read_line(reader: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        byte = reader.recv(1)
        assert byte, f"closed after {data!r}"
        data += byte
    return data


def test_the_front_answers_the_handshake_from_the_daemons_answer_and_a_lost_daemon_only_what_it_took() -> None:
    front_in, client_writes = os.pipe()
    client_reads, front_out = os.pipe()
    daemon, front_side = socket.socketpair()
    fresh_daemon, fresh_front_side = socket.socketpair()
    for end in (daemon, fresh_daemon):
        end.settimeout(STEP_SECONDS)
    fresh_daemon.sendall(Answer(True, __version__).encode())  # waiting for the hello the front will send
    hello = Hello.of_this_process("/", {})

    def reconnect() -> socket.socket:
        greeted(fresh_front_side, hello)
        return fresh_front_side

    lines = ClientLines(front_in, front_out)
    front = Front(front_side, reconnect, hello, lines, Answer(True, __version__, handshake=HANDSHAKE))
    status: list[int] = []
    runner = threading.Thread(target=lambda: status.append(front.run()), daemon=True)
    runner.start()
    try:
        os.write(client_writes, INITIALIZE)
        initialized = json.loads(client_line(client_reads))
        assert initialized["id"] == 1
        assert initialized["result"]["instructions"] == HANDSHAKE.instructions  # before the daemon said a word
        os.write(client_writes, INITIALIZED + TOOLS_LIST)
        assert json.loads(client_line(client_reads)) == {
            "jsonrpc": "2.0",
            "id": 2,
            "result": {"tools": HANDSHAKE.tools},
        }
        assert [read_line(daemon) for _ in range(3)] == [INITIALIZE, INITIALIZED, TOOLS_LIST]

        daemon.sendall(answer_of(1, initialized["result"]) + answer_of(2, {"tools": HANDSHAKE.tools}) + LOG)
        assert client_line(client_reads) == LOG, "the daemon's answers to the handshake were dropped"

        os.write(client_writes, CALL)
        assert read_line(daemon) == CALL
        daemon.close()  # lost with the call
        lost = cast(dict[str, Any], json.loads(client_line(client_reads)))
        assert (lost["id"], lost["error"]["code"]) == (3, DAEMON_LOST)  # and no error for 1 or 2

        assert Hello.decode(read_line(fresh_daemon)) == hello
        replayed = json.loads(read_line(fresh_daemon))
        assert (replayed["id"], replayed["method"]) == (REPLAYED_ID, "initialize")
        assert json.loads(read_line(fresh_daemon)) == json.loads(INITIALIZED)
        fresh_daemon.sendall(answer_of(cast(Any, REPLAYED_ID), initialized["result"]) + LOG)
        assert client_line(client_reads) == LOG, "the replayed handshake's answer was kept from the client"

        os.close(client_writes)
        assert fresh_daemon.recv(1) == b"", "the client's end reached the daemon"
        fresh_daemon.close()
        runner.join(STEP_SECONDS)
        assert status == [0]
    finally:
        for end in (daemon, fresh_daemon):
            end.close()
        for fd in (client_writes, client_reads):
            with contextlib.suppress(OSError):
                os.close(fd)


def test_a_hello_answer_is_read_to_its_end_and_not_a_byte_further() -> None:
    daemon, front = socket.socketpair()
    with daemon, front:
        daemon.sendall(Answer(True, __version__, handshake=HANDSHAKE).encode() + LOG)
        answer = greeted(front, Hello.of_this_process("/", {}))
        assert answer.handshake == HANDSHAKE
        assert read_line(front) == LOG


def test_an_answer_with_a_handshake_of_another_shape_is_taken_without_one() -> None:
    line = Answer(True, __version__, handshake=HANDSHAKE).encode()
    body = json.loads(line)
    body["mcpGatewayAnswer"]["handshake"]["tools"] = "four tools"
    answer = Answer.decode(json.dumps(body).encode())
    assert (answer.accepted, answer.handshake) == (True, None)


def test_a_wedged_daemon_is_found_out_by_its_unanswered_ping_and_the_session_moves_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pipe, "QUIET_SECONDS", 0.2)
    monkeypatch.setattr(pipe, "PING_SECONDS", 0.3)
    monkeypatch.setattr(pipe, "POLL_QUIET_SECONDS", 0.05)
    front_in, client_writes = os.pipe()
    client_reads, front_out = os.pipe()
    daemon, front_side = socket.socketpair()
    fresh_daemon, fresh_front_side = socket.socketpair()
    for end in (daemon, fresh_daemon):
        end.settimeout(STEP_SECONDS)
    fresh_daemon.sendall(Answer(True, __version__).encode())
    hello = Hello.of_this_process("/", {})

    def reconnect() -> socket.socket:
        greeted(fresh_front_side, hello)
        return fresh_front_side

    front = Front(
        front_side, reconnect, hello, ClientLines(front_in, front_out), Answer(True, __version__, handshake=HANDSHAKE)
    )
    status: list[int] = []
    runner = threading.Thread(target=lambda: status.append(front.run()), daemon=True)
    runner.start()
    try:
        os.write(client_writes, INITIALIZE + INITIALIZED + CALL)
        assert json.loads(client_line(client_reads))["id"] == 1
        assert [read_line(daemon) for _ in range(3)] == [INITIALIZE, INITIALIZED, CALL]
        ping = json.loads(read_line(daemon))  # the call waited with nothing from the daemon
        assert (ping["method"], ping["id"].startswith(PROBE_ID_PREFIX)) == ("ping", True)
        wedged = json.loads(client_line(client_reads))  # and the ping was never answered
        assert wedged["id"] == 3
        assert wedged["error"]["code"] == DAEMON_LOST
        assert "stopped answering" in wedged["error"]["message"]
        assert Hello.decode(read_line(fresh_daemon)) == hello, "the session moved on to another daemon"
        assert json.loads(read_line(fresh_daemon))["id"] == REPLAYED_ID
        os.close(client_writes)
        assert json.loads(read_line(fresh_daemon)) == json.loads(INITIALIZED)
        fresh_daemon.close()
        runner.join(STEP_SECONDS)
        assert status == [0]
    finally:
        for end in (daemon, fresh_daemon):
            end.close()
        for fd in (client_writes, client_reads):
            with contextlib.suppress(OSError):
                os.close(fd)


def test_a_line_nested_past_what_python_reads_passes_through_the_front_untouched() -> None:
    front_in, client_writes = os.pipe()
    client_reads, front_out = os.pipe()
    daemon, front_side = socket.socketpair()
    daemon.settimeout(STEP_SECONDS)
    deep = b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    front = Front(
        front_side,
        reconnect_nowhere,
        Hello.of_this_process("/", {}),
        ClientLines(front_in, front_out),
        Answer(True, __version__),
    )
    runner = threading.Thread(target=front.run, daemon=True)
    runner.start()
    try:
        os.write(client_writes, INITIALIZE)
        assert read_line(daemon) == INITIALIZE
        threading.Thread(target=os.write, args=(client_writes, deep), daemon=True).start()
        received = b""
        while not received.endswith(b"\n"):
            chunk = daemon.recv(1 << 16)
            assert chunk, "the front closed: it did not survive the line"
            received += chunk
        assert received == deep, "the daemon judges it; the front only passes it on"
        daemon.sendall(answer_of(4, {}))
        assert json.loads(client_line(client_reads))["id"] == 4
    finally:
        daemon.close()
        for fd in (client_writes, client_reads):
            with contextlib.suppress(OSError):
                os.close(fd)


def reconnect_nowhere() -> socket.socket:
    raise NoRendezvous("no other daemon in this test")
