"""What one client session holds on the gateway it shares with others, and its bound on requests in flight.

The daemon serves many sessions over one `Gateway`, and a session that leaves must take with it everything it
registered there, or each session leaks: its listener of prompts and resources changes
(`Gateway.changes.subscribe`), the subscriptions it made with `resources/subscribe` (`Offerings.release`: the
downstream one ends with its last holder), and its held calls (`QuestionRelay.running`). `running` is the SDK
server's lifespan, entered once per session, so however the session ends (its client leaves, its front is
killed, the daemon stops) its exit releases all of it; listen streams and askers are scoped to a request already.

It is also who the session is, without reaching into the SDK's private connection: a tool's question goes to
the session whose call is in flight (`server/asking.py`), and a live config edit is said once to each session,
in its own next search (`service/config_news.py`).

Fairness: the pool, worker threads and event loop are shared, so a session may have `maxCallsPerSession`
requests that reach servers in flight (the four meta-tools, `prompts/get`, `resources/read`,
`completion/complete`). One more waits for a slot, as clients send parallel tool calls and expect each
answered, at most the request timeout (the longest a call is meant to take), then is refused with a sentence
saying what to do. The bound is read from the live config at each request.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

import anyio

from mcp_gateway.errors import SessionBusyError
from mcp_gateway.questions import QuestionRelay
from mcp_gateway.server.changes import ClientChanges
from mcp_gateway.service.config_news import Reader, reading_as
from mcp_gateway.service.gateway import Gateway
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
