"""The workspace's gateway daemon: one catalog, one index and one pool for every session of its user.

Started by the first session front that finds none (`front.rendezvous`), it listens on the workspace's socket
(0600, in the private runtime directory) and serves each front's connection as one MCP session of the SDK's
`Server` over the shared `Gateway`. A connection is served only when its peer is this user (`peer`) and its
hello speaks this protocol and version. The daemon stops its servers and exits `grace_seconds` after its
last session has left, or at once on SIGINT/SIGTERM/SIGHUP; it removes its socket as it goes, so the next
front starts a fresh one. A session's disconnect cancels its own in-flight calls only: each session runs in
its own task, and a call's downstream request is cancelled with the task that made it. Each session's calls
carry its `Origin` (the environment and working directory its hello brought, and its session's id as its
label), by which the pool resolves each server for it (`downstream/definitions.py`): sessions share a process only
where their definitions are equal.

The answer to an accepted hello carries the handshake the session's server is built from: the front answers
the client's `initialize` and `tools/list` with it at once, whatever the daemon's event loop is busy with.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

import anyio
import anyio.abc
import anyio.to_thread
from anyio.streams.buffered import BufferedByteReceiveStream

from mcp_gateway import __version__
from mcp_gateway.config import GatewayConfig
from mcp_gateway.front.early_answers import Handshake
from mcp_gateway.front.hello import HELLO_SECONDS, MAX_HELLO_BYTES, Answer, BadHello, Hello
from mcp_gateway.front.rendezvous import FRONT_PROTOCOL
from mcp_gateway.origin import Origin
from mcp_gateway.paths import Workspace
from mcp_gateway.server.app import build_server, initialization_options
from mcp_gateway.server.peer import same_user
from mcp_gateway.server.session_watch import SessionWatch
from mcp_gateway.server.socket_streams import socket_streams
from mcp_gateway.server.start import STOP_SIGNALS
from mcp_gateway.service.daemon_gateway import DaemonGateway
from mcp_gateway.service.daemon_sessions import DaemonSessions, Session
from mcp_gateway.service.daemon_state import StateWriter
from mcp_gateway.service.surface import meta_tool_definitions

logger = logging.getLogger(__name__)

SOCKET_MODE = 0o600


class Sessions:
    """The sessions being served; `idle_for` ends once none has been served for the grace period."""

    def __init__(self) -> None:
        self.count = 0
        self._changed = anyio.Event()

    def opened(self) -> None:
        self.count += 1
        self._wake()

    def closed(self) -> None:
        self.count -= 1
        self._wake()

    async def idle_for(self, seconds: float) -> None:
        while True:
            while self.count:
                await self._changed.wait()
            with anyio.move_on_after(seconds):
                await self._changed.wait()
                continue
            if not self.count:
                return

    def _wake(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()


async def run_daemon(home: str | None, config: GatewayConfig, socket_path: Path, grace_seconds: float) -> int:
    """Serve every front of the workspace until idle for `grace_seconds` or stopped by a signal; exit status."""
    sessions = Sessions()
    listener = await anyio.create_unix_listener(socket_path)
    try:
        os.chmod(socket_path, SOCKET_MODE)
        with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
            gateway = DaemonGateway(Workspace.from_environment(home), config, DaemonSessions())
            async with gateway:
                gateway.start_background()
                async with anyio.create_task_group() as tg:

                    async def stop_on_signal() -> None:
                        async for _ in signals:
                            tg.cancel_scope.cancel()

                    async def stop_when_idle() -> None:
                        await sessions.idle_for(grace_seconds)
                        tg.cancel_scope.cancel()

                    async def serve(stream: anyio.abc.SocketStream) -> None:
                        await serve_connection(gateway, stream, sessions)

                    tg.start_soon(stop_on_signal)
                    tg.start_soon(stop_when_idle)
                    tg.start_soon(StateWriter(gateway, socket_path, FRONT_PROTOCOL, grace_seconds).run)
                    await listener.serve(serve, task_group=tg)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(socket_path)  # before the servers stop: a front arriving now starts a fresh daemon
        await listener.aclose()
    return 0


async def serve_connection(gateway: DaemonGateway, stream: anyio.abc.SocketStream, sessions: Sessions) -> None:
    async with stream:
        raw = stream.extra(anyio.abc.SocketAttribute.raw_socket)
        if not same_user(raw):
            logger.warning("refused a connection from another user")
            return
        reader = BufferedByteReceiveStream(stream)
        hello = await _hello(reader)
        if isinstance(hello, str):
            await stream.send(Answer(False, __version__, hello).encode())
            return
        said = Handshake(gateway.instructions(), meta_tool_definitions())
        await stream.send(await anyio.to_thread.run_sync(Answer(True, __version__, handshake=said).encode))
        sessions.opened()
        try:
            with gateway.sessions.serving() as served:
                origin = Origin.of(hello.environ, hello.cwd, str(served.id))
                await _serve_session(gateway, stream, reader, served, origin=origin, said=said)
        finally:
            sessions.closed()


async def _serve_session(
    gateway: DaemonGateway,
    stream: anyio.abc.SocketStream,
    reader: BufferedByteReceiveStream,
    served: Session,
    *,
    origin: Origin,
    said: Handshake,
) -> None:
    """One session, until its front closes: then its calls still in flight are cancelled, as a standalone
    gateway cancels them when its client closes stdin (their downstream requests with them). Its server says
    `said`, which the front may have answered the handshake with already."""
    server = build_server(gateway, said, origin=origin)
    server.middleware.append(SessionWatch(gateway.sessions, served))  # who it is, its calls in flight
    ended = anyio.Event()
    async with anyio.create_task_group() as session:

        async def cancel_when_ended() -> None:
            await ended.wait()
            session.cancel_scope.cancel()

        session.start_soon(cancel_when_ended)
        async with socket_streams(stream, reader, ended) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, initialization_options(server))
        session.cancel_scope.cancel()


async def _hello(reader: BufferedByteReceiveStream) -> Hello | str:
    """The front's hello, or why the session is refused."""
    try:
        with anyio.fail_after(HELLO_SECONDS):
            line = await reader.receive_until(b"\n", MAX_HELLO_BYTES)
        hello = Hello.decode(line)
    except (TimeoutError, anyio.EndOfStream, anyio.IncompleteRead, anyio.DelimiterNotFound, BadHello) as exc:
        return f"no usable hello ({exc or type(exc).__name__})"
    if hello.protocol != FRONT_PROTOCOL or hello.version != __version__:
        return (
            f"this daemon is mcp-gateway {__version__} (front protocol {FRONT_PROTOCOL}), the front "
            f"{hello.version} (protocol {hello.protocol})"
        )
    if not os.path.isabs(hello.cwd):  # a server without its own cwd runs there: never relative to the daemon's
        return f"the session's working directory {hello.cwd!r} is not an absolute path"
    return hello
