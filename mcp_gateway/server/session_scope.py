"""What one client session holds on the gateway it shares with others, and its bound on requests in flight.

A standalone gateway serves one session for its whole life; the daemon serves many over one `Gateway`, and a
session that leaves must take everything it registered there with it, or each session leaks:
- its listener of the gateway's prompts and resources changes (`Gateway.changes.subscribe`);
- the resource subscriptions it made with `resources/subscribe` and never unsubscribed (`Offerings.release`:
  the downstream subscription ends once no other session holds it);
- its held calls (`QuestionRelay.running`, cancelled as it leaves).
Its listen streams and its calls' askers (`downstream/asking.py`) are already scoped to a request, which
ends with the session. `running` is the SDK server's lifespan, entered once per `Server.run`, that is once
per session: whatever way the session ends (the client leaves, its front is killed, the daemon stops), the
lifespan's exit releases all of it.

It is also who the session is: a tool's question is routed to the session whose call is in flight
(`server/asking.py`), and this object names the session without reaching into the SDK's private connection;
and a live config edit is said once to each session, in its own next search (`service/config_news.py`).

Fairness: the daemon's pool, worker threads and event loop are shared, so one session may have at most
`maxCallsPerSession` requests that reach servers in flight (the four meta-tools, `prompts/get`,
`resources/read`, `completion/complete`). One more waits for a slot, because clients send parallel tool calls
and expect each answered, not refused; the wait is bounded by the gateway's request timeout (the longest
any call is meant to take), after which the request is refused with one sentence saying what to do. The
bound is read from the live config at each request, so an edit applies to the next one.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

import anyio

from mcp_gateway.errors import SessionBusyError
from mcp_gateway.server.changes import ClientChanges
from mcp_gateway.service.config_news import Reader, reading_as
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.questions import QuestionRelay
from mcp_gateway.wording import counted

MS_PER_SECOND = 1000.0


class SessionScope:
    """One client session of a (possibly shared) gateway: what it registered there, and its calls in flight."""

    def __init__(self, gateway: Gateway, changes: ClientChanges, relay: QuestionRelay) -> None:
        self._gateway = gateway
        self._changes = changes
        self._relay = relay
        self._slots = anyio.CapacityLimiter(gateway.config.settings.max_calls_per_session)
        self._reader = Reader()

    @property
    def calls_in_flight(self) -> int:
        return int(self._slots.borrowed_tokens)

    @asynccontextmanager
    async def running(self) -> AsyncGenerator[dict[str, Any]]:
        """The session's life (the SDK server's lifespan): everything it registers is released as it ends."""
        stop_telling = self._gateway.changes.subscribe(self._changes.tell)
        try:
            async with self._relay.running() as state:
                yield state
        finally:
            stop_telling()
            self._gateway.offerings.release(self)

    @asynccontextmanager
    async def slot(self) -> AsyncGenerator[None]:
        """One request of this session in flight (its searches read this session's news of config edits); waits
        for a slot boundedly, else `SessionBusyError`."""
        settings = self._gateway.config.settings
        self._slots.total_tokens = settings.max_calls_per_session  # a live edit applies from the next request
        borrower = object()
        wait_seconds = settings.request_timeout_ms / MS_PER_SECOND
        acquired = False
        with anyio.move_on_after(wait_seconds):
            await self._slots.acquire_on_behalf_of(borrower)
            acquired = True
        if not acquired:
            raise SessionBusyError(
                f"This session already has {counted(settings.max_calls_per_session, 'request')} in flight through "
                f"mcp-gateway and none finished within {wait_seconds:g}s; wait for them to finish, or raise "
                "maxCallsPerSession in the gateway's config.json."
            )
        try:
            with reading_as(self._reader):
                yield
        finally:
            self._slots.release_on_behalf_of(borrower)
