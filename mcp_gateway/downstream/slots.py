"""The pool's supervisors: one per server and resolved definition, and the sessions that use each.

A shared daemon serves sessions whose environments and working directories may resolve one server differently
(`definitions.py`), and a process is shared only by sessions whose definitions are equal. So the pool keeps,
per server name, one `Slot` per definition digest: its `Supervisor` (which owns the process, its idle timer,
backoff and probes as before), the definition it starts, the origin it was first made for (a live config edit
resolves the server again for it, to tell whether its process still fits), and which sessions used it.

A standalone gateway has one origin, so one slot per server, as the pool had one supervisor per server.
A slot whose supervisor is idle (no process, no start, no backoff) and that no call or subscription holds is
forgotten when its server gets a new slot, so a daemon that has seen a thousand sessions keeps only the slots
still in use. What each origin resolved is cached while the origin lives (one per session: a weak key), so a
call does not hash a session's environment again; a session's first call to a server resolves it in a worker
thread (`prepare`): a session's environment may be as large as a hello (1 MB), which takes about 20 ms.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from weakref import WeakKeyDictionary

import anyio.to_thread

from mcp_gateway.config import ServerConfig
from mcp_gateway.downstream.definitions import Definition, resolve
from mcp_gateway.downstream.supervisor import ServerStatus, State, Supervisor
from mcp_gateway.origin import Origin

_LIVELINESS = (State.READY, State.STARTING, State.DRAINING, State.BACKING_OFF, State.IDLE, State.STOPPED)
"""Which supervisor's status speaks for a server with several: the most alive first."""


@dataclass(frozen=True)
class ProcessView:
    """One supervisor of a server, for `status`: its process, its state, and who used it."""

    pid: int | None
    """The process of a running stdio server; None for a remote server or when none runs."""
    state: State
    calls_in_flight: int
    sessions: Mapping[str, int]
    """Each session's label (`Origin.session`) → the calls and subscriptions it made here since the slot was made."""


@dataclass
class Slot:
    supervisor: Supervisor
    definition: Definition
    origin: Origin
    sessions: Counter[str] = field(default_factory=Counter[str])
    holds: int = 0
    """Calls and subscriptions using the supervisor now: a slot held is never forgotten."""

    @contextmanager
    def used_by(self, session: str) -> Generator[Supervisor]:
        self.sessions[session] += 1
        self.holds += 1
        try:
            yield self.supervisor
        finally:
            self.holds -= 1

    @property
    def forgettable(self) -> bool:
        return not self.holds and self.supervisor.state is State.IDLE


class Slots:
    def __init__(self, own: Origin) -> None:
        self.own = own
        """The origin the config was loaded with: the gateway's own, for background work and standalone calls."""
        self._by_server: dict[str, dict[str, Slot]] = {}
        self._resolved: WeakKeyDictionary[Origin, dict[str, tuple[ServerConfig, Definition]]] = WeakKeyDictionary()

    def definition(self, server: ServerConfig, origin: Origin) -> Definition:
        """`server` resolved for `origin`, from the cache while the server's config is the same object."""
        cached = self._resolved.setdefault(origin, {})
        known = cached.get(server.name)
        if known is not None and known[0] is server:
            return known[1]
        definition = resolve(server, origin, own=origin is self.own)
        cached[server.name] = (server, definition)
        return definition

    async def prepare(self, server: ServerConfig | None, origin: Origin | None) -> None:
        """Resolve `server` for a session's `origin` in a worker thread unless already cached, so `definition`
        then finds it (an unknown server, or the gateway's own origin, is left to `definition`)."""
        if server is None or origin is None or origin is self.own:
            return
        known = self._resolved.get(origin, {}).get(server.name)
        if known is None or known[0] is not server:
            definition = await anyio.to_thread.run_sync(partial(resolve, server, origin, own=False))
            self._resolved.setdefault(origin, {})[server.name] = (server, definition)

    def find(self, name: str, digest: str) -> Slot | None:
        return self._by_server.get(name, {}).get(digest)

    def add(self, name: str, slot: Slot) -> Slot:
        """Keep `slot` for `name`, forgetting the server's idle slots nobody holds."""
        slots = self._by_server.setdefault(name, {})
        for digest in [digest for digest, kept in slots.items() if kept.forgettable]:
            del slots[digest]
        slots[slot.definition.digest] = slot
        return slot

    def of(self, name: str) -> list[Slot]:
        return list(self._by_server.get(name, {}).values())

    def items(self) -> list[tuple[str, Slot]]:
        return [(name, slot) for name, slots in self._by_server.items() for slot in slots.values()]

    def pop(self, name: str, digest: str | None = None) -> list[Slot]:
        """Take out `name`'s slot of `digest`, or all of its slots."""
        slots = self._by_server.get(name, {})
        taken = list(slots.values()) if digest is None else [slots[digest]] if digest in slots else []
        for slot in taken:
            del slots[slot.definition.digest]
        if not slots:
            self._by_server.pop(name, None)
        return taken

    def supervisors(self) -> list[Supervisor]:
        return [slot.supervisor for _, slot in self.items()]

    def live(self, name: str) -> Slot | None:
        """A slot of `name` whose process is running (a background listing uses it rather than start another)."""
        return next((slot for slot in self.of(name) if slot.supervisor.status().running), None)

    def status(self, name: str) -> ServerStatus | None:
        """The server's status: its most alive supervisor's, with the calls in flight of all; None: none yet."""
        statuses = [slot.supervisor.status() for slot in self.of(name)]
        if not statuses:
            return None
        first = min(statuses, key=lambda status: _LIVELINESS.index(status.state))
        error = next((status.last_error for status in statuses if status.last_error is not None), None)
        return replace(
            first,
            running=any(status.running for status in statuses),
            in_flight=sum(status.in_flight for status in statuses),
            last_error=first.last_error or error,
        )

    def processes(self) -> dict[str, list[ProcessView]]:
        """Per server with slots, each supervisor's process, state and sessions (see `ProcessView`)."""
        views: dict[str, list[ProcessView]] = {}
        for name, slot in self.items():
            status = slot.supervisor.status()
            views.setdefault(name, []).append(
                ProcessView(status.pid, status.state, status.in_flight, dict(slot.sessions))
            )
        return views
