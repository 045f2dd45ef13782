"""The sessions a daemon serves, as its state file and `mcp-gateway status` show them.

Each front's connection is one session (`server/daemon.py`): it gets an id (1, 2, … in the order they came,
never reused by the daemon), and the session says who it is by the `clientInfo` of its handshake
(`server/session_watch.py` reads it from the SDK's session and counts its calls in flight). Which processes a
session uses the pool knows itself: the session's id is the label of the `Origin` its calls carry.

Sessions opening, closing or saying who they are is news the state file should show at once: `changed()`
returns once any of them happened. Calls in flight change too often for that; the state writer samples
them (`service/daemon_state.py`).
"""

from __future__ import annotations

import time
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass

import anyio

from mcp_gateway.service.daemon_record import SessionEntry


@dataclass
class Session:
    id: int
    connected_at: float
    client_name: str | None = None
    client_version: str | None = None
    calls_in_flight: int = 0


class DaemonSessions:
    def __init__(self) -> None:
        self._open: dict[int, Session] = {}
        self._last_id = 0
        self._changed = anyio.Event()
        self.idle_since: float | None = time.time()
        """When the last session left (the daemon's start, before any came); None while one is open."""

    @contextmanager
    def serving(self) -> Generator[Session]:
        """Register a new session for the duration of the block."""
        self._last_id += 1
        session = Session(self._last_id, time.time())
        self._open[session.id] = session
        self.idle_since = None
        self._news()
        try:
            yield session
        finally:
            del self._open[session.id]
            if not self._open:
                self.idle_since = time.time()
            self._news()

    def identified(self, session: Session, name: str, version: str) -> None:
        """The session's client said who it is (its handshake's `clientInfo`)."""
        if (session.client_name, session.client_version) != (name, version):
            session.client_name, session.client_version = name, version
            self._news()

    @contextmanager
    def calling(self, session: Session) -> Generator[None]:
        """A call of `session` in flight for the duration of the block."""
        session.calls_in_flight += 1
        try:
            yield
        finally:
            session.calls_in_flight -= 1

    def open_ids(self) -> frozenset[int]:
        return frozenset(self._open)

    def entries(self) -> tuple[SessionEntry, ...]:
        return tuple(
            SessionEntry(
                session.id, session.client_name, session.client_version, session.connected_at, session.calls_in_flight
            )
            for session in self._open.values()
        )

    async def changed(self) -> None:
        """Return once a session has opened, closed or said who it is, since this was last called."""
        await self._changed.wait()
        self._changed = anyio.Event()

    def _news(self) -> None:
        self._changed.set()
