"""The mock model API on 127.0.0.1: every client's wire, one script, every request recorded.

`running_mock_api(script)` serves, for as long as the block runs, the routes of every wire module (a client
uses the one it speaks) on a free port, and a forward proxy on another that refuses every request and
records what it was for. A client gets `HTTPS_PROXY`/`HTTP_PROXY` pointing at that proxy (and `NO_PROXY`
for 127.0.0.1), so it stays offline on any machine and its attempts to reach the internet (telemetry,
model catalogs, registries) are written down rather than waited on.

The server is uvicorn in the test's own event loop; its signal capture is switched off, so Ctrl-C and the
test runner's signals keep their meaning. Each request is answered by the first wire module that knows
its route; one that none knows gets a 404, and both are recorded.
"""

from __future__ import annotations

import functools
import json
import socket
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field

import anyio
import anyio.abc
import anyio.lowlevel
import uvicorn
from anyio.streams.buffered import BufferedByteReceiveStream
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from clients import anthropic_wire, chat_wire, gemini_wire, responses_wire
from clients.conversation import ModelRequest, ToolCall, Turn
from clients.script import Script
from clients.wire import STREAM_MEDIA_TYPE, HttpCall, Reply, Wire, not_found

WIRES: tuple[Wire, ...] = (anthropic_wire.answer, chat_wire.answer, responses_wire.answer, gemini_wire.answer)
START_SECONDS = 10.0
"""Upper bound for uvicorn to listen on an already bound socket (it takes milliseconds)."""
GRACEFUL_SHUTDOWN_SECONDS = 2
"""How long uvicorn lets a response in flight finish when the test is over; clients have exited by then."""
PROXY_REQUEST_LINE_BYTES = 8192
PROXY_READ_SECONDS = 5.0
"""Upper bound for a client to send the request line it opened a proxy connection for."""


@dataclass(frozen=True)
class Recorded:
    """One request the mock answered."""

    call: HttpCall
    request: ModelRequest | None
    turn: Turn | None
    status: int
    at: float
    """When it arrived (time.monotonic())."""


@dataclass
class MockApi:
    script: Script
    port: int = 0
    proxy_port: int = 0
    recorded: list[Recorded] = field(default_factory=list[Recorded])
    proxied: list[str] = field(default_factory=list[str])
    """The request line of every proxy request refused ("CONNECT host:443 HTTP/1.1")."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def proxy_url(self) -> str:
        return f"http://127.0.0.1:{self.proxy_port}"

    def conversation(self, since: int = 0) -> list[Recorded]:
        """The requests that carried the session (tools and history), in the order they came; `since` skips
        the requests recorded before that count (an earlier run of the client against the same mock)."""
        return [r for r in self.recorded[since:] if r.request is not None and r.request.kind == "conversation"]

    def first_request(self, since: int = 0) -> ModelRequest:
        turns = self.conversation(since)
        assert turns, f"no conversation request reached the mock; it saw: {self.summary()}"
        first = turns[0].request
        assert first is not None
        return first

    def requests_after(self, call_id: str) -> list[ModelRequest]:
        """The conversation requests that answer the tool call `call_id` (the client sent its result)."""
        return [
            r.request
            for r in self.conversation()
            if r.request is not None and any(result.call_id == call_id for result in r.request.results)
        ]

    def calls_made(self) -> list[ToolCall]:
        return [r.turn for r in self.conversation() if isinstance(r.turn, ToolCall)]

    def summary(self) -> list[str]:
        return [f"{r.call.method} {r.call.path} -> {r.status}" for r in self.recorded]

    def _record(self, entry: Recorded) -> None:
        with self._lock:
            self.recorded.append(entry)

    async def asgi(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        raw = await request.body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        call = HttpCall(request.method, request.url.path, dict(request.query_params), dict(request.headers), body)
        exchange = next((found for wire in WIRES if (found := wire(call, self.script)) is not None), None)
        reply = exchange.reply if exchange else not_found(call)
        request_read, turn = (exchange.request, exchange.turn) if exchange else (None, None)
        self._record(Recorded(call, request_read, turn, reply.status, time.monotonic()))
        await _response(reply)(scope, receive, send)


def _response(reply: Reply) -> Response:
    if reply.events is not None:
        return StreamingResponse(_chunks(reply.events), reply.status, dict(reply.headers), STREAM_MEDIA_TYPE)
    if reply.json_body is None:
        return Response(status_code=reply.status, headers=dict(reply.headers))
    return JSONResponse(reply.json_body, reply.status, dict(reply.headers))


async def _chunks(events: Sequence[str]) -> AsyncIterator[bytes]:
    for event in events:
        yield event.encode()
        await anyio.lowlevel.checkpoint()  # one event per write, as a model's stream arrives


class _Server(uvicorn.Server):
    """uvicorn without its signal handlers: the test process's signals are not the mock's to take."""

    @contextmanager
    def capture_signals(self) -> Generator[None]:
        yield


@asynccontextmanager
async def running_mock_api(script: Script) -> AsyncGenerator[MockApi]:
    mock = MockApi(script)
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    mock.port = int(listening.getsockname()[1])
    config = uvicorn.Config(
        mock.asgi,
        interface="asgi3",
        log_config=None,
        log_level="warning",
        lifespan="off",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
    )
    server = _Server(config)
    stopped = anyio.Event()

    async def serve() -> None:
        try:
            await server.serve([listening])
        finally:
            stopped.set()

    proxy = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    mock.proxy_port = int(proxy.extra(anyio.abc.SocketAttribute.local_port))
    async with proxy, anyio.create_task_group() as group:
        group.start_soon(proxy.serve, functools.partial(_refuse, mock=mock))
        group.start_soon(serve)
        with anyio.fail_after(START_SECONDS):
            while not server.started:
                if stopped.is_set():
                    raise RuntimeError("the mock model API stopped before it listened")
                await anyio.sleep(0.01)
        try:
            yield mock
        finally:
            server.should_exit = True
            # uvicorn bounds its own graceful shutdown; this bound only guards against it hanging.
            with anyio.CancelScope(shield=True), anyio.move_on_after(GRACEFUL_SHUTDOWN_SECONDS + START_SECONDS):
                await stopped.wait()
            group.cancel_scope.cancel()
    listening.close()


async def _refuse(stream: anyio.abc.SocketStream, *, mock: MockApi) -> None:
    """Answer one proxy request with 403 and note what it was for."""
    async with stream:
        with anyio.move_on_after(PROXY_READ_SECONDS):
            try:
                line = await BufferedByteReceiveStream(stream).receive_until(b"\r\n", PROXY_REQUEST_LINE_BYTES)
            except (anyio.EndOfStream, anyio.IncompleteRead, anyio.DelimiterNotFound, anyio.BrokenResourceError):
                return
            with mock._lock:  # pyright: ignore[reportPrivateUsage]
                mock.proxied.append(line.decode(errors="replace"))
            refusal = b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            try:
                await stream.send(refusal)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                return
