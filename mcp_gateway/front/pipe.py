"""The session front: what a client starts as `mcp-gateway`, a byte pipe between its stdio and the daemon.

Standard library only. With the workspace's daemon running, a client's connect costs this module, the
rendezvous and one hello: no MCP SDK, no pydantic, no catalog. The front says hello (its environment and
working directory), reads the daemon's answer, and then copies bytes, stdin to the socket and the socket to
stdout, until either side ends: the daemon speaks MCP to the client through it.

- The client closing stdin shuts the socket's writing half; the daemon ends the session and closes, and the
  front exits 0.
- The daemon going away mid-session (crash, kill) is seen as the socket's end: the front answers every
  request the client has in flight with a JSON-RPC error saying so, and exits; the client's next start
  starts a fresh daemon. (It cannot take the session over: the client's handshake went to the old daemon.)
- A stop signal ends the front at once: the socket closes and the daemon cancels the session's calls.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import threading
from collections.abc import Callable
from typing import Any, cast

from mcp_gateway.front.hello import HELLO_SECONDS, MAX_HELLO_BYTES, Answer, BadHello, Hello
from mcp_gateway.front.rendezvous import NoRendezvous

CHUNK_BYTES = 64 * 1024
DAEMON_LOST = -32000
"""The JSON-RPC server-error code for requests the daemon took with it: the request itself was fine."""
MAX_TRACKED_LINE_BYTES = 1024 * 1024
"""Lines longer than this are not parsed for their request id (arguments can be large; ids are near the
start, but a partial line cannot be parsed): such a request, if unanswered when the daemon goes, gets no error."""


class Front:
    """One session's pipe; `run` returns the exit status."""

    def __init__(self, sock: socket.socket, stdin_fd: int = 0, stdout_fd: int = 1) -> None:
        self._sock = sock
        self._stdin = stdin_fd
        self._stdout = stdout_fd
        self._pending: dict[str, Any] = {}
        """Requests sent to the daemon and not yet answered, by their id's JSON text."""
        self._lock = threading.Lock()
        self._client_done = False

    def greet(self, hello: Hello) -> Answer:
        self._sock.settimeout(HELLO_SECONDS)
        self._sock.sendall(hello.encode())
        line = _read_line(self._sock, MAX_HELLO_BYTES)
        self._sock.settimeout(None)
        return Answer.decode(line)

    def run(self) -> int:
        upstream = threading.Thread(target=self._client_to_daemon, name="client to daemon", daemon=True)
        upstream.start()
        lost = self._daemon_to_client()
        if lost:
            self._answer_pending("the gateway daemon stopped before answering; start the session again")
            return 1
        return 0

    def _client_to_daemon(self) -> None:
        buffer = b""
        try:
            while chunk := os.read(self._stdin, CHUNK_BYTES):
                buffer = self._track(buffer + chunk, outgoing=True)
                self._sock.sendall(chunk)
        except OSError:
            pass  # the daemon went away: the other direction sees it and says so
        finally:
            self._client_done = True
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_WR)

    def _daemon_to_client(self) -> bool:
        """Copy until the daemon closes; True when it closed with requests unanswered and the client still there."""
        buffer = b""
        try:
            while chunk := self._sock.recv(CHUNK_BYTES):
                buffer = self._track(buffer + chunk, outgoing=False)
                _write_all(self._stdout, chunk)
        except OSError:
            pass
        with self._lock:
            return bool(self._pending) and not self._client_done

    def _track(self, buffer: bytes, *, outgoing: bool) -> bytes:
        """Note request ids going out and answers coming back, line by line; returns the unfinished tail."""
        *lines, tail = buffer.split(b"\n")
        for line in lines:
            if outgoing:
                message = _message(line)
                if message is not None and "id" in message and "method" in message:
                    with self._lock:
                        self._pending[json.dumps(message["id"])] = message["id"]
            else:
                answered = _answered_id(line)
                if answered is not None:
                    with self._lock:
                        self._pending.pop(answered, None)
        return tail if len(tail) <= MAX_TRACKED_LINE_BYTES else b""

    def _answer_pending(self, reason: str) -> None:
        with self._lock:
            ids = list(self._pending.values())
            self._pending.clear()
        for request_id in ids:
            error = {"jsonrpc": "2.0", "id": request_id, "error": {"code": DAEMON_LOST, "message": reason}}
            try:
                _write_all(self._stdout, json.dumps(error).encode() + b"\n")
            except OSError:
                return


def run_front(connect: Callable[[], socket.socket], hello: Hello) -> int:
    """Connect, greet and pipe; NoRendezvous when no daemon serves this session (the caller serves standalone)."""
    try:
        sock = connect()
    except OSError as exc:
        raise NoRendezvous(f"the gateway daemon cannot be reached ({exc.strerror or exc})") from exc
    with sock:
        front = Front(sock)
        try:
            answer = front.greet(hello)
        except (OSError, BadHello) as exc:
            raise NoRendezvous(f"the gateway daemon did not answer its hello ({exc})") from exc
        if not answer.accepted:
            raise NoRendezvous(f"the gateway daemon refused the session: {answer.reason}")
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a stop ends the pipe at once; the daemon sees the close
        return front.run()


def _read_line(sock: socket.socket, limit: int) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        byte = sock.recv(1)  # one byte at a time: what follows the line is the session's, not ours
        if not byte:
            raise BadHello("the daemon closed before answering")
        data += byte
        if len(data) > limit:
            raise BadHello("the daemon's answer is too long")
    return data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _message(line: bytes) -> dict[str, Any] | None:
    if not line.strip() or len(line) > MAX_TRACKED_LINE_BYTES:
        return None
    try:
        parsed: Any = json.loads(line)
    except ValueError:
        return None
    return cast(dict[str, Any], parsed) if isinstance(parsed, dict) else None


_RESPONSE_PREFIX = b'{"jsonrpc":"2.0","id":'
"""How the daemon writes every response (`wire.encode`: the SDK's field order), so a response of any size is
known by its first bytes without parsing the rest."""
_DECODER = json.JSONDecoder()


def _answered_id(line: bytes) -> str | None:
    """The id (as JSON text) of the response `line`; None for a request or notification from the daemon."""
    if not line.startswith(_RESPONSE_PREFIX):
        return None
    head = line[len(_RESPONSE_PREFIX) : len(_RESPONSE_PREFIX) + 512].decode("utf-8", "replace")
    try:
        request_id, _end = _DECODER.raw_decode(head)
    except ValueError:
        return None
    return json.dumps(request_id)
