"""What serves a daemon's sessions: the shared gateway, and each session as one run of the SDK's `Server`.

Imported by the daemon (`daemon`) in a worker thread while its door already answers hellos: the SDK, the
service, the catalog, the search and the pool are all behind this module. `Serving` owns the `Gateway` for the
daemon's life; each greeted connection is served as one session over it. A session's disconnect cancels its
own calls in flight only: each session runs in its own task, and a call's downstream request is cancelled with
the task that made it. Each session's calls carry its `Origin` (the environment and working directory its hello
brought, and its session's id as its label), by which the pool resolves each server for it
(`downstream/definitions.py`): sessions share a process only where their definitions are equal.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from types import TracebackType
from typing import Any

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from mcp_gateway.config import GatewayConfig
from mcp_gateway.daemon import DaemonSessions, keep_state
from mcp_gateway.front.early_answers import Handshake
from mcp_gateway.front.rendezvous import FRONT_PROTOCOL
from mcp_gateway.origin import Origin
from mcp_gateway.paths import Workspace
from mcp_gateway.server.app import build_server, initialization_options
from mcp_gateway.server.doors import Greeted
from mcp_gateway.server.socket_streams import socket_streams
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.surface import meta_tool_definitions

CALL_METHOD = "tools/call"


class Serving:
    """The daemon's gateway, from before its first session is served until after its last has ended."""

    def __init__(
        self, home: str | None, config: GatewayConfig, sessions: DaemonSessions, problem: str | None = None
    ) -> None:
        """`problem`: why config.json could not be used, if `config` stands in for it."""
        self.workspace = Workspace.from_environment(home)
        self.gateway = Gateway(
            self.workspace, config, load_in_background=True, config_problem=problem, clients=sessions.client_of
        )
        self.sessions = sessions

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

    async def keep_state(self, socket_path: Path, grace_seconds: float) -> None:
        """Keep the shared daemon's state file true until cancelled (`status` reads it)."""
        await keep_state(
            self.sessions,
            self.workspace.process_records_dir,
            socket=socket_path,
            front_protocol=FRONT_PROTOCOL,
            grace_seconds=grace_seconds,
            processes=self.gateway.processes,
            mask=self.gateway.mask,
        )

    async def serve(self, greeted: Greeted, *, max_line_bytes: int) -> None:
        """One session, until its front closes: then its calls still in flight are cancelled, as a gateway's are
        when its client closes stdin (their downstream requests with them). A client line longer than
        `max_line_bytes` is refused unread."""
        try:
            origin = Origin.of(greeted.hello.environ, greeted.hello.cwd, str(greeted.session))
            server = build_server(self.gateway, greeted.said, origin=origin)
            server.middleware.append(SessionWatch(self.sessions, greeted.session))  # who it is, its calls
            ended = anyio.Event()
            async with anyio.create_task_group() as session:

                async def cancel_when_ended() -> None:
                    await ended.wait()
                    session.cancel_scope.cancel()

                session.start_soon(cancel_when_ended)
                async with socket_streams(greeted.stream, greeted.reader, ended, max_line_bytes) as (reading, writing):
                    await server.run(reading, writing, initialization_options(server))
                session.cancel_scope.cancel()
        finally:
            with contextlib.suppress(OSError, anyio.BrokenResourceError):
                await greeted.stream.aclose()


class SessionWatch:
    """What a session says about itself, read from the SDK's own session as its messages pass (the `Server`'s
    middleware sees every inbound request and notification): once the handshake has been accepted, the
    client's `clientInfo` is the session's `client_params` (a handshake-era client's `initialize`; a 2026-07-28
    client's per-request envelope). Each `tools/call` is a call in flight until its answer is made."""

    def __init__(self, sessions: DaemonSessions, session: int) -> None:
        self._sessions = sessions
        self._session = session

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params = ctx.session.client_params
        if params is not None:
            info = params.client_info
            self._sessions.identified(self._session, info.name, info.version)
        if ctx.method != CALL_METHOD:
            return await call_next(ctx)
        with self._sessions.calling(self._session):
            return await call_next(ctx)
