"""The handshake a front answers with the standard library is the SDK's own answer, and the session goes on from it.

Over the real parts, in process: the client's two pipes read by `ClientLines`, the session front's pipe
(`front.pipe.Front`, in a thread, as it runs), a socket pair to the daemon's transport (`socket_streams`) and
the real SDK `Server` that `build_server` makes. The same lines are sent once to a session with nothing
answered early, and once through a front that answers the handshake early, before the session even exists.
The answers must be equal for every handshake version, and the session taking over must initialize from the
handshake the front passed on, its own answers checked against the early ones and not sent again, and answer
what comes next.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import logging
import os
import socket
from collections.abc import AsyncGenerator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import anyio
import anyio.abc
import anyio.to_thread
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from gateway_testing import load, write_workspace
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from mcp_gateway.front.client_lines import ClientLines
from mcp_gateway.front.early_answers import EarlyAnswers, Handshake
from mcp_gateway.front.hello import Answer, Hello
from mcp_gateway.front.pipe import Front
from mcp_gateway.front.rendezvous import NoRendezvous
from mcp_gateway.line_bounds import MAX_PRIVATE_LINE_BYTES
from mcp_gateway.server.app import build_server, initialization_options
from mcp_gateway.server.socket_streams import socket_streams
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.surface import instructions, meta_tool_definitions

pytestmark = pytest.mark.anyio

STEP_SECONDS = 10.0
"""Generous bound for one answer to come back."""
SERVERS = {"notes": {"command": "notes-server", "aliases": ["memo", "笔记"]}, "github": {"command": "gh-server"}}
CLIENT = {"name": "claude-code", "version": "2.1.0"}
CAPABILITIES: list[dict[str, Any]] = [
    {},
    {"roots": {"listChanged": True}, "elicitation": {"form": {}}, "sampling": {"tools": {}}},
]


def line(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False).encode() + b"\n"


def handshake_lines(version: str, capabilities: dict[str, Any], list_params: Any = ...) -> list[bytes]:
    params = {"protocolVersion": version, "capabilities": capabilities, "clientInfo": CLIENT}
    listing = {"id": "list", "method": "tools/list"} | ({} if list_params is ... else {"params": list_params})
    return [
        line({"id": 1, "method": "initialize", "params": params}),
        line({"method": "notifications/initialized"}),
        line(listing),
    ]


class Client:
    def __init__(self, writes: int, reads: io.BufferedReader) -> None:
        self._writes = writes
        self._reads = reads

    def send(self, lines: Sequence[bytes]) -> None:
        os.write(self._writes, b"".join(lines))

    def close(self) -> None:
        """Close the client's side of stdin, as a client leaving does."""
        with contextlib.suppress(OSError):
            os.close(self._writes)

    async def next_message(self) -> dict[str, Any]:
        with anyio.fail_after(STEP_SECONDS):
            read = await anyio.to_thread.run_sync(self._reads.readline, abandon_on_cancel=True)
        return cast(dict[str, Any], json.loads(read))


@asynccontextmanager
async def pipes(early: EarlyAnswers | None) -> AsyncGenerator[tuple[Client, ClientLines]]:
    gateway_reads, client_writes = os.pipe()
    client_reads, gateway_writes = os.pipe()
    with os.fdopen(client_reads, "rb") as reads:
        client = Client(client_writes, reads)
        try:
            yield client, ClientLines(gateway_reads, gateway_writes, early)
        finally:
            client.close()


def no_other_daemon() -> socket.socket:
    raise NoRendezvous("this test's session has one daemon")


@asynccontextmanager
async def session(home: Path, client: Client, lines: ClientLines, handshake: Handshake) -> AsyncGenerator[None]:
    """The daemon's session behind a front over `lines`, as a daemon and its front run it, until `client` leaves.
    A front whose `lines` answer nothing early is given no handshake by its daemon either: the SDK answers."""
    workspace = write_workspace(home, SERVERS)
    front_end, daemon_end = socket.socketpair()
    answer = Answer(True, handshake.version, handshake=handshake if lines.early is not None else None)
    front = Front(front_end, no_other_daemon, Hello.of_this_process(str(home), {}), lines, answer)
    async with Gateway(workspace, load(workspace)) as gateway, anyio.create_task_group() as tg:
        server = build_server(gateway, handshake)
        stream = await anyio.abc.UNIXSocketStream.from_socket(daemon_end)
        reader = BufferedByteReceiveStream(stream)
        async with stream, socket_streams(stream, reader, anyio.Event(), MAX_PRIVATE_LINE_BYTES) as (reading, writing):
            tg.start_soon(server.run, reading, writing, initialization_options(server))
            tg.start_soon(functools.partial(anyio.to_thread.run_sync, front.run, abandon_on_cancel=True))
            yield
            client.close()  # the front passes the end on, the session ends, and the front returns


def handshake_of(home: Path) -> Handshake:
    return Handshake(instructions(load(write_workspace(home, SERVERS))), meta_tool_definitions())


@pytest.mark.parametrize("list_params", [..., None, {}])
@pytest.mark.parametrize("capabilities", CAPABILITIES)
@pytest.mark.parametrize("version", [*HANDSHAKE_PROTOCOL_VERSIONS, "2099-01-01"])
async def test_the_early_answers_are_the_answers_the_sdk_gives(
    tmp_path: Path, version: str, capabilities: dict[str, Any], list_params: Any
) -> None:
    """`list_params`: tools/list without params (`...`), with null params, with empty ones."""
    handshake = handshake_of(tmp_path)
    async with pipes(None) as (client, lines), session(tmp_path, client, lines, handshake):
        client.send(handshake_lines(version, capabilities, list_params))
        sdk = [await client.next_message(), await client.next_message()]
    async with pipes(EarlyAnswers(handshake)) as (client, lines):
        client.send(handshake_lines(version, capabilities, list_params))
        early = [await client.next_message(), await client.next_message()]
        lines.hand_over(lambda _: None, lambda: None)
    assert early == sdk
    assert [message["id"] for message in early] == [1, "list"]
    assert "error" not in early[0]
    assert len(early[1]["result"]["tools"]) == 4


async def test_the_session_takes_over_from_the_early_handshake_without_answering_it_twice(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="mcp_gateway.front.early_answers")
    handshake = handshake_of(tmp_path)
    async with pipes(EarlyAnswers(handshake)) as (client, lines):
        client.send(handshake_lines("2025-06-18", CAPABILITIES[1]))
        assert [(await client.next_message())["id"] for _ in range(2)] == [1, "list"]
        client.send([line({"id": 3, "method": "ping"})])  # before the session exists: it waits for it
        async with session(tmp_path, client, lines, handshake):
            assert await client.next_message() == {"jsonrpc": "2.0", "id": 3, "result": {}}
            client.send([line({"id": 4, "method": "tools/call", "params": {"name": "list_tools", "arguments": {}}})])
            called = await client.next_message()
    assert called["id"] == 4, "nothing else came first: the replayed handshake's answers were not sent again"
    assert called["result"]["isError"] is True
    settled = [record for record in caplog.records if record.name == "mcp_gateway.front.early_answers"]
    assert [record.levelno for record in settled] == [logging.DEBUG, logging.DEBUG]
    assert all("is the same" in record.getMessage() for record in settled)
