"""What a daemon's session says about itself, read from the SDK's own session as its messages pass.

One `SessionWatch` per session, on the session's `Server.middleware` (the SDK's seam that sees every inbound
request and notification): once the handshake has been accepted, the client's `clientInfo` is the
session's `client_params` (a handshake-era client's `initialize`; a 2026-07-28 client's per-request
envelope), and the first message after it tells the daemon who the session is. Each `tools/call` is a call
in flight until its answer is made.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from mcp_gateway.service.daemon_sessions import DaemonSessions, Session

CALL_METHOD = "tools/call"


class SessionWatch:
    def __init__(self, sessions: DaemonSessions, session: Session) -> None:
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
