"""The gate: each server's verdicts as its catalog entry and the pins file stand, kept in step with both.

Verdicts are computed per catalog entry, resolution and pins version, once, off the event loop (the search
index asks for every tool of a server when it indexes it, in the engine's thread; a request has them judged in
a worker thread first, `TrustKeeper.judged`); judging takes no lock, storing the result does. A
server seen for the first time is trusted as listed and queued to be pinned so (`flush`, in a worker thread,
before the next request is served). The pins file is looked at (an `lstat`) on each request (`sync`): a
decision taken at the shell (`mcp-gateway trust`) reaches a running daemon without a restart.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import anyio.to_thread

from mcp_gateway.catalog import ServerCatalog
from mcp_gateway.integrity.decisions import Verdict, judge
from mcp_gateway.integrity.definitions import Kind
from mcp_gateway.integrity.pins import Pins, PinsFile, ServerPins, Signature, pinned
from mcp_gateway.json_object import JsonObject

MAX_JUDGED = 4096
"""Definitions of connections' first listings whose verdicts are kept (one per tool of each running process)."""


@dataclass(frozen=True)
class ServerVerdicts:
    server: str
    fingerprint: str
    verdicts: tuple[Verdict, ...]

    def held(self, kind: Kind = "tool") -> dict[str, Verdict]:
        return self._held.get(kind, {})

    @functools.cached_property
    def _held(self) -> dict[Kind, dict[str, Verdict]]:
        """Made once: every call asks it, and indexing asks it once per tool."""
        held: dict[Kind, dict[str, Verdict]] = {}
        for verdict in self.verdicts:
            if verdict.held:
                held.setdefault(verdict.kind, {})[verdict.name] = verdict
        return held


def listed_definitions(entry: ServerCatalog) -> list[tuple[Kind, JsonObject]]:
    """Every definition of `entry` that is pinned: its tools, prompts and resource templates, as listed."""
    surface = entry.surface
    kinds: list[tuple[Kind, Sequence[JsonObject]]] = [("tool", [tool.to_wire() for tool in entry.tools])]
    if surface is not None:
        kinds.append(("prompt", surface.prompts))
        kinds.append(("template", surface.templates))
    return [(kind, definition) for kind, definitions in kinds for definition in definitions]


def resolution_of(entry: ServerCatalog) -> str:
    """The resolution `entry` was listed by: its process's key, or (listed by an older gateway) its config's."""
    return entry.listed_for or entry.fingerprint


class Integrity:
    def __init__(self, pins: PinsFile, manual: Callable[[], bool]) -> None:
        self._file = pins
        self._manual = manual
        self._pins: Pins = {}
        self._signature: Signature | None = None
        self._read = False
        self._cache: dict[tuple[str, str], tuple[ServerCatalog, bool, ServerVerdicts]] = {}
        self._first_seen: dict[tuple[str, str], ServerVerdicts] = {}
        self._judged: dict[int, tuple[JsonObject, bool, Verdict]] = {}
        """A connection's first listing is judged once per definition and pins version, not at every call."""
        self._lock = threading.Lock()

    @property
    def notice(self) -> str | None:
        return self._file.notice

    # Reading.

    def judged(self, entry: ServerCatalog) -> bool:
        """Whether `entry`'s verdicts are at hand: judging costs about 0.25 ms a definition (normalizing, hashing,
        the screen), which a caller on the event loop does in a worker thread instead (`verdicts`)."""
        cached = self._cache.get((entry.server, resolution_of(entry)))
        return cached is not None and cached[0] is entry and cached[1] == self._manual()

    def verdicts(self, entry: ServerCatalog) -> ServerVerdicts:
        """The verdict on each definition of `entry`, cached while the entry, the pins and the trust mode stand
        (per resolution: two projects' processes of one server never displace each other's)."""
        manual = self._manual()
        resolution = resolution_of(entry)
        key = (entry.server, resolution)
        cached = self._cache.get(key)
        if cached is not None and cached[0] is entry and cached[1] == manual:
            return cached[2]
        # Judged outside the lock: a reader on the event loop never waits for another thread's judging.
        server = self._server_pins(entry.server, resolution)
        found = ServerVerdicts(
            entry.server,
            resolution,
            tuple(judge(server, kind, listed, manual=manual) for kind, listed in listed_definitions(entry)),
        )
        with self._lock:
            self._cache[key] = (entry, manual, found)
            if server is None and any(verdict.first_sight for verdict in found.verdicts):
                self._first_seen[entry.server, resolution] = found
        return found

    def admits(self, entry: ServerCatalog, tool: str, kind: Kind = "tool") -> bool:
        return tool not in self.verdicts(entry).held(kind)

    def judge_listed(self, server: str, fingerprint: str, kind: Kind, listed: JsonObject) -> Verdict:
        """The verdict on one definition as a connection listed it (a call's own check), cached while the listed
        object, the pins and the trust mode stand."""
        manual = self._manual()
        with self._lock:
            cached = self._judged.get(id(listed))
            if cached is not None and cached[0] is listed and cached[1] == manual:
                return cached[2]
            pins = self._server_pins(server, fingerprint)
        verdict = judge(pins, kind, listed, manual=manual)
        with self._lock:
            if len(self._judged) >= MAX_JUDGED:
                self._judged.clear()
            self._judged[id(listed)] = (listed, manual, verdict)
        return verdict

    def _server_pins(self, server: str, fingerprint: str) -> ServerPins | None:
        return self._pins.get(server, {}).get(fingerprint)

    # Keeping in step with the file.

    async def sync(self) -> list[str]:
        """Pin what was seen for the first time, and read the file again if it changed; the servers whose pins
        changed (their verdicts, and what the index holds of them, may have)."""
        with self._lock:
            seen, self._first_seen = self._first_seen, {}
        if seen:
            await anyio.to_thread.run_sync(self._pin_first_sight, list(seen.values()))
        if self._read and self._file.signature() == self._signature:
            return []
        pins, signature = await anyio.to_thread.run_sync(self._file.read)
        return self._adopt(pins, signature)

    def _adopt(self, pins: Pins, signature: Signature | None) -> list[str]:
        with self._lock:
            before, self._pins, self._signature, self._read = self._pins, pins, signature, True
            changed = [name for name in {*before, *pins} if before.get(name) != pins.get(name)]
            for key in [key for key in self._cache if key[0] in changed]:
                del self._cache[key]
            if changed:
                self._judged.clear()
        return changed

    def _pin_first_sight(self, seen: Sequence[ServerVerdicts]) -> None:
        def change(pins: Pins) -> bool:
            wrote = False
            for server in seen:
                resolutions = pins.setdefault(server.server, {})
                if server.fingerprint in resolutions:
                    continue  # pinned meanwhile (another gateway saw it too): its pins stand
                fresh = resolutions[server.fingerprint] = ServerPins(server.fingerprint)
                for verdict in server.verdicts:
                    if verdict.first_sight:
                        fresh.pins[verdict.kind][verdict.name] = pinned(
                            verdict.digest, verdict.definition, verdict.hints, "first sight"
                        )
                wrote = True
            return wrote

        self._adopt(*self._file.update(change))

    # Deciding (at the shell).

    def decide(self, verdicts: Iterable[Verdict], server: str, fingerprint: str, *, reject: bool) -> list[str]:
        """Approve (or reject) `verdicts` of `server` as they are listed now; in a worker thread. The servers whose
        pins changed."""
        chosen = list(verdicts)

        def change(pins: Pins) -> bool:
            known = pins.setdefault(server, {}).setdefault(fingerprint, ServerPins(fingerprint))
            for verdict in chosen:
                if reject:
                    known.rejected[verdict.kind][verdict.name] = verdict.digest
                    continue
                known.rejected[verdict.kind].pop(verdict.name, None)
                known.pins[verdict.kind][verdict.name] = pinned(
                    verdict.digest, verdict.definition, verdict.hints, "review"
                )
            return bool(chosen)

        return self._adopt(*self._file.update(change))

    def first_sight(self, server: str) -> tuple[float, int] | None:
        """When `server` was first pinned as listed, and how many definitions were, if it was."""
        resolutions = self._pins.get(server, {}).values()
        times = [
            pin.at
            for known in resolutions
            for kind in known.pins.values()
            for pin in kind.values()
            if pin.by == "first sight"
        ]
        return (min(times), len(times)) if times else None
