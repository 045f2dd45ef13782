"""The sessions a daemon serves, in one registry: counted for its idle stop, shown in its state file.

Each front's connection whose hello was accepted is a session, numbered in the order they came (never reused).
It says who it is by its handshake's `clientInfo`, and its `tools/call`s are counted while in flight
(`server/session.py` reads both as its messages pass). Which processes it uses the pool knows: the session's id
is the label of the `Origin` its calls carry.

`keep_state` writes the state file at once when a session opens, closes or says who it is, and otherwise samples
it every `STATE_INTERVAL_SECONDS` (calls in flight, a server starting or stopping), writing it when it differs;
always from a worker thread. A write that fails is logged once and loses only what `status` can show.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Generator, Mapping, Sequence, Set
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from mcp_gateway import __version__
from mcp_gateway.daemon.state_file import (
    DaemonState,
    ProcessEntry,
    SessionEntry,
    remove_stale,
    remove_state,
    write_state,
)
from mcp_gateway.downstream.processes import start_time
from mcp_gateway.downstream.supervisor import State

if TYPE_CHECKING:
    from mcp_gateway.downstream.slots import ProcessView

logger = logging.getLogger(__name__)

STATE_INTERVAL_SECONDS = 1.0
"""How stale the calls in flight that `status` shows may be: a person reads them, a second is current enough,
and a busy daemon writes its file at most once a second for them."""


class DaemonSessions:
    def __init__(self) -> None:
        self._open: dict[int, SessionEntry] = {}
        self._in_flight: dict[int, int] = {}
        """Calls in flight per session, counted apart from its entry: a call changes a number, not a record."""
        self._last_id = 0
        self._news = 0
        self._seen = 0
        self._changed = anyio.Event()
        self.idle_since: float | None = time.time()
        """When the last session left (the daemon's start, before any came); None while one is open."""

    def open(self) -> int:
        """A new session's id; it is open until `close`."""
        self._last_id += 1
        self._open[self._last_id] = SessionEntry(self._last_id, None, None, time.time(), 0)
        self._in_flight[self._last_id] = 0
        self.idle_since = None
        self._wake()
        return self._last_id

    def close(self, session: int) -> None:
        del self._open[session], self._in_flight[session]
        if not self._open:
            self.idle_since = time.time()
        self._wake()

    def identified(self, session: int, name: str, version: str) -> None:
        """The session's client said who it is (its handshake's `clientInfo`)."""
        entry = self._open.get(session)
        if entry is not None and (entry.client_name, entry.client_version) != (name, version):
            self._open[session] = replace(entry, client_name=name, client_version=version)
            self._wake()

    def client_of(self, label: str) -> tuple[str | None, str | None]:
        """The name and version the client of the session labelled `label` (its id) said it is."""
        entry = self._open.get(int(label)) if label.isdigit() else None
        return (entry.client_name, entry.client_version) if entry is not None else (None, None)

    @contextmanager
    def calling(self, session: int) -> Generator[None]:
        """A call of `session` in flight for the duration of the block."""
        self._count_call(session, 1)
        try:
            yield
        finally:
            self._count_call(session, -1)

    def entries(self) -> tuple[SessionEntry, ...]:
        return tuple(replace(entry, calls_in_flight=self._in_flight[session]) for session, entry in self._open.items())

    async def changed(self) -> None:
        """Return once a session has opened, closed or said who it is since this was last called."""
        if self._seen == self._news:
            await self._changed.wait()
        self._seen = self._news

    async def idle_for(self, seconds: float) -> None:
        """Return once no session has been open for `seconds`."""
        while True:
            while self._open:
                await self._changed.wait()
            with anyio.move_on_after(seconds):
                await self._changed.wait()
                continue
            if not self._open:
                return

    def _count_call(self, session: int, step: int) -> None:
        if session in self._in_flight:
            self._in_flight[session] += step

    def _wake(self) -> None:
        self._news += 1
        self._changed.set()
        self._changed = anyio.Event()


async def keep_state(
    sessions: DaemonSessions,
    directory: Path,
    *,
    socket: Path,
    front_protocol: int,
    grace_seconds: float,
    processes: Callable[[], Mapping[str, Sequence[ProcessView]]],
    mask: Callable[[str], str],
) -> None:
    """Keep the daemon's state file in `directory` true until cancelled, then remove it; first remove those of
    daemons that no longer run. `processes`: each enabled server's supervisors in the pool."""
    pid = os.getpid()
    failed = False
    try:
        start = await anyio.to_thread.run_sync(start_time, pid)
        await anyio.to_thread.run_sync(remove_stale, directory)
        written: DaemonState | None = None
        while True:
            state = DaemonState(
                pid=pid,
                start=start,
                version=__version__,
                front_protocol=front_protocol,
                socket=os.fspath(socket),
                grace_seconds=grace_seconds,
                idle_since=sessions.idle_since,
                written_at=time.time(),
                sessions=sessions.entries(),
                processes=process_entries(processes(), {entry.id for entry in sessions.entries()}),
            ).masked(mask)
            if written is None or replace(state, written_at=written.written_at) != written:
                try:
                    await anyio.to_thread.run_sync(write_state, directory, state)
                except OSError as error:
                    if not failed:
                        failed = True
                        logger.warning(
                            "could not write the daemon's state in %s (%s), so `mcp-gateway status` cannot show its "
                            "sessions; make it a writable directory",
                            directory,
                            error,
                        )
                written = state
            with anyio.move_on_after(STATE_INTERVAL_SECONDS):
                await sessions.changed()
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(remove_state, directory, pid)


def process_entries(views: Mapping[str, Sequence[ProcessView]], open_sessions: Set[int]) -> tuple[ProcessEntry, ...]:
    """A process per supervisor the pool has started (starting, ready, draining or backing off; one per resolved
    definition), with the open sessions that made calls or subscriptions on it: a session's label in the pool is
    its id."""
    return tuple(
        ProcessEntry(
            server,
            view.pid,
            view.state.value,
            view.calls_in_flight,
            tuple(sorted(int(label) for label in view.sessions if label.isdigit() and int(label) in open_sessions)),
        )
        for server, server_views in views.items()
        for view in server_views
        if view.pid is not None or view.state not in (State.IDLE, State.STOPPED)
    )
