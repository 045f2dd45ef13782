"""Background failures of the running gateways of a workspace, on disk, for `mcp-gateway status`.

`status` runs in a different process from the serving gateways, so each gateway writes what failed in its
background (see `mcp_gateway.background`) to `background-problems.json`, under its own pid and start time.
Entries of gateways that are gone are dropped when read and when the file is next written; a process id
reused by another program does not inherit them (its start time differs). Last writer wins between
gateways, as for errors.json: losing an entry loses a report, never anything a gateway needs. The file is read
and written as `workspace_files` says: never through a link, never blocking, at most `MAX_JOURNAL_BYTES`.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

from pydantic import TypeAdapter, ValidationError

from mcp_gateway.background import BackgroundProblem
from mcp_gateway.downstream import processes
from mcp_gateway.errors import UnusableFileError
from mcp_gateway.workspace_files import read_regular, replace_file

MAX_JOURNAL_BYTES = 4 * 1024 * 1024
"""A few problems per running gateway are a few kilobytes; a larger file is not a journal."""
_PROBLEM = TypeAdapter(BackgroundProblem)


@dataclass(frozen=True)
class GatewayProblem:
    gateway_pid: int
    problem: BackgroundProblem


class BackgroundJournal:
    def __init__(self, path: Path, owner_pid: int | None = None) -> None:
        self._path = path
        self._owner = os.getpid() if owner_pid is None else owner_pid

    def with_others(self, own: list[BackgroundProblem]) -> list[GatewayProblem]:
        """`own` (this gateway's problems) and those the other running gateways recorded, oldest first."""
        mine = [GatewayProblem(self._owner, problem) for problem in own]
        others = [found for found in self.read() if found.gateway_pid != self._owner]
        return sorted(mine + others, key=lambda found: found.problem.at)

    def record(self, problem: BackgroundProblem) -> None:
        """Add one of this gateway's problems (blocking file I/O: call it from a worker thread)."""
        entries = self._live_entries()
        own = entries.setdefault(str(self._owner), {"start": processes.start_time(self._owner), "problems": []})
        cast(list[Any], own["problems"]).append(asdict(problem))
        self._write(entries)

    def forget(self, task: str) -> None:
        """Drop this gateway's problems of `task`, which works again (blocking file I/O: a worker thread)."""
        entries = self._live_entries()
        own = entries.get(str(self._owner))
        if own is None:
            return
        problems = cast(list[Any], own["problems"])
        kept: list[Any] = [item for item in problems if not _of_task(item, task)]
        if len(kept) != len(problems):
            own["problems"] = kept
            self._write(entries)

    def said_of(self, task: str, problem: str | None) -> None:
        """Record why `task` fails now, or forget it once `problem` is None (blocking file I/O: a worker thread)."""
        if problem is None:
            self.forget(task)
        else:
            self.record(BackgroundProblem(task, problem, time.time()))

    def read(self) -> list[GatewayProblem]:
        """The problems of every gateway still running, oldest first."""
        found: list[GatewayProblem] = []
        for pid, entry in self._live_entries().items():
            for fields in cast(list[Any], entry["problems"]):
                with contextlib.suppress(ValidationError):  # one unsound problem costs only itself
                    found.append(GatewayProblem(int(pid), _PROBLEM.validate_python(fields)))
        return sorted(found, key=lambda each: each.problem.at)

    def _live_entries(self) -> dict[str, dict[str, Any]]:
        try:
            raw = json.loads(read_regular(self._path, MAX_JOURNAL_BYTES))
        except (OSError, ValueError, UnusableFileError, RecursionError):
            return {}
        if not isinstance(raw, dict):
            return {}
        live: dict[str, dict[str, Any]] = {}
        for pid, entry in cast(dict[str, Any], raw).items():
            if not isinstance(entry, dict) or not pid.isdigit():
                continue
            fields = cast(dict[str, Any], entry)
            if isinstance(fields.get("problems"), list) and _running(int(pid), fields.get("start")):
                live[pid] = fields
        return live

    def _write(self, entries: dict[str, dict[str, Any]]) -> None:
        with contextlib.suppress(OSError):
            replace_file(self._path, json.dumps(entries).encode(), durable=False)


def _running(pid: int, start: object) -> bool:
    if start is None:
        return processes.pid_alive(pid)
    if type(start) not in (int, float):
        return False  # not a start time this version writes: the entry of a gateway that is gone
    return processes.same_start(cast(float, start), processes.start_time(pid))


def _of_task(item: object, task: str) -> bool:
    return isinstance(item, dict) and cast(dict[str, Any], item).get("task") == task
