"""Processes a search-only session must not start: every descendant of its front or its daemon other than those
two (the downstream servers) seen while the session ran (sampled), and every process still naming the
workspace after it, the daemon included once its grace has passed, whoever its parent is by then.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import anyio

from benchmarks.gateway_session import SessionProcesses
from benchmarks.procfs import command_line, descendants, environment, process_parents

SAMPLE_SECONDS = 0.1
"""How often /proc is scanned for descendants of the session's processes."""


def naming(marker: str) -> set[int]:
    """Live processes whose command line or environment names `marker` (spawned servers carry the workspace
    path in their spawn-log variable); orphans are found this way too, whoever their parent is now."""
    found: set[int] = set()
    for pid in process_parents():
        with contextlib.suppress(OSError):  # gone, or not ours to read
            if marker in " ".join(command_line(pid)) or marker.encode() in environment(pid):
                found.add(pid)
    return found


@dataclass
class ProcessWatch:
    """Every process the session's front or daemon started, other than the daemon, with its command line."""

    seen: dict[int, str] = field(default_factory=dict[int, str])

    async def watch(self, session: SessionProcesses) -> None:
        while True:
            started = (descendants(session.front) | descendants(session.daemon)) - set(session.pids)
            for pid in started - self.seen.keys():
                self.seen[pid] = " ".join(command_line(pid)).strip()
            await anyio.sleep(SAMPLE_SECONDS)
