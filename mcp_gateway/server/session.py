"""What serves a daemon's sessions: the shared gateway, and each session as one run of the SDK's `Server`.

Imported by the daemon (`daemon`) in a worker thread while its door already answers hellos: the SDK, the
service, the catalog, the search and the pool are all behind this module. `Serving` owns the `DaemonGateway`
for the daemon's life; each greeted connection is served as one session over it. A session's disconnect
cancels its own calls in flight only: each session runs in its own task, and a call's downstream request is
cancelled with the task that made it. Each session's calls carry its `Origin` (the environment and working
directory its hello brought, and its session's id as its label), by which the pool resolves each server for it
(`downstream/definitions.py`): sessions share a process only where their definitions are equal.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from types import TracebackType

import anyio

from mcp_gateway.config import GatewayConfig
from mcp_gateway.front.early_answers import Handshake
from mcp_gateway.front.rendezvous import FRONT_PROTOCOL
from mcp_gateway.origin import Origin
from mcp_gateway.paths import Workspace
from mcp_gateway.server.app import build_server, initialization_options
from mcp_gateway.server.daemon import Greeted
from mcp_gateway.server.session_watch import SessionWatch
from mcp_gateway.server.socket_streams import socket_streams
from mcp_gateway.service.daemon_gateway import DaemonGateway
from mcp_gateway.service.daemon_sessions import DaemonSessions
from mcp_gateway.service.daemon_state import StateWriter
from mcp_gateway.service.surface import meta_tool_definitions


class Serving:
    """The daemon's gateway, from before its first session is served until after its last has ended."""

    def __init__(
        self,
        home: str | None,
        config: GatewayConfig,
        socket_path: Path | None,
        grace_seconds: float,
        problem: str | None = None,
    ) -> None:
        """`socket_path`: the shared daemon's socket (None: a private daemon, which keeps no state file).
        `problem`: why config.json could not be used, if `config` stands in for it."""
        self._socket_path = socket_path
        self._grace_seconds = grace_seconds
        workspace = Workspace.from_environment(home)
        self.gateway = DaemonGateway(workspace, config, DaemonSessions(), config_problem=problem)

    async def __aenter__(self) -> Serving:
        await self.gateway.__aenter__()
        self.gateway.start_background()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        return await self.gateway.__aexit__(exc_type, exc, tb)

    async def handshake(self) -> Handshake:
        """What a session opened now is told at its handshake: the gateway's instructions as they are now."""
        return Handshake(await self.gateway.current_instructions(), meta_tool_definitions())

    def hurry(self) -> None:
        """Every server's stop, begun or to come, is urgent (a client ending its session by signals)."""
        self.gateway.hurry_stop()

    def kill_everything(self) -> None:
        self.gateway.stop_now()

    async def keep_state(self) -> None:
        """Keep the shared daemon's state file true until cancelled (`status` reads it)."""
        assert self._socket_path is not None
        await StateWriter(self.gateway, self._socket_path, FRONT_PROTOCOL, self._grace_seconds).run()

    async def serve(self, greeted: Greeted, *, max_line_bytes: int) -> None:
        """One session, until its front closes: then its calls still in flight are cancelled, as a gateway's are
        when its client closes stdin (their downstream requests with them). A client line longer than
        `max_line_bytes` is refused unread."""
        try:
            with self.gateway.sessions.serving() as served:
                origin = Origin.of(greeted.hello.environ, greeted.hello.cwd, str(served.id))
                server = build_server(self.gateway, greeted.said, origin=origin)
                server.middleware.append(SessionWatch(self.gateway.sessions, served))  # who it is, its calls
                ended = anyio.Event()
                async with anyio.create_task_group() as session:

                    async def cancel_when_ended() -> None:
                        await ended.wait()
                        session.cancel_scope.cancel()

                    session.start_soon(cancel_when_ended)
                    async with socket_streams(greeted.stream, greeted.reader, ended, max_line_bytes) as (
                        reading,
                        writing,
                    ):
                        await server.run(reading, writing, initialization_options(server))
                    session.cancel_scope.cancel()
        finally:
            with contextlib.suppress(OSError, anyio.BrokenResourceError):
                await greeted.stream.aclose()
