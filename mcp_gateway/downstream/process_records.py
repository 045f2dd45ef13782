"""Which process groups this gateway started, on disk, so a later gateway can reap what a SIGKILL left.

A gateway killed with SIGKILL cannot stop its children. Children that exit on stdin EOF are fine; the
stubborn ones would live forever. Each gateway therefore records the process groups it starts in
`run/<gateway pid>.json`, and every gateway start reaps the groups recorded by gateways that are gone.

Process ids are reused, so a recorded group is only killed when it is provably ours: the leader still
runs with the start time we recorded, or the leader is gone but members of its group remain (Linux never
hands out a pid that is still in use as a process group id, so such a group cannot be someone else's).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from pathlib import Path

from mcp_gateway.paths import FILE_MODE, ensure_private_dir

REAP_GRACE_SECONDS = 1.0
"""Time a stale group gets between SIGTERM and SIGKILL when a new gateway reaps it."""
_POLL_SECONDS = 0.02


def process_start_time(pid: int) -> str | None:
    """The kernel's start time of `pid` (clock ticks since boot), or None when it is gone or unknowable."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name may hold spaces and parentheses; fields after the last ')' are fixed.
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else None


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ProcessRecords:
    """The record file of one gateway process; `add` and `remove` rewrite it atomically."""

    def __init__(self, directory: Path, owner_pid: int | None = None) -> None:
        self._directory = directory
        self._owner = os.getpid() if owner_pid is None else owner_pid
        self._groups: dict[int, tuple[str | None, str]] = {}

    @property
    def path(self) -> Path:
        return self._directory / f"{self._owner}.json"

    def add(self, pgid: int, server: str) -> None:
        self._groups[pgid] = (process_start_time(pgid), server)
        self._write()

    def remove(self, pgid: int) -> None:
        if pgid in self._groups:
            del self._groups[pgid]
            self._write()

    def kill_all(self) -> None:
        """SIGKILL every group still recorded (also ones whose transport is still starting)."""
        for pgid in list(self._groups):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)

    def close(self) -> None:
        """Forget the record file: called once every child is known to be gone."""
        self._groups.clear()
        with contextlib.suppress(OSError):
            self.path.unlink()

    def _write(self) -> None:
        try:
            ensure_private_dir(self._directory)
            payload = {
                "gateway": {"pid": self._owner, "start": process_start_time(self._owner)},
                "groups": [
                    {"pgid": pgid, "start": start, "server": server} for pgid, (start, server) in self._groups.items()
                ],
            }
            temporary = self.path.with_suffix(".tmp")
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
            with os.fdopen(fd, "w") as handle:
                json.dump(payload, handle)
            os.replace(temporary, self.path)
        except OSError:
            pass  # losing the record only loses the SIGKILL clean-up, never the running gateway


def running_servers(directory: Path) -> dict[str, list[tuple[int, int]]]:
    """Servers that live gateways of this workspace are running: name → [(gateway pid, server pid)]."""
    running: dict[str, list[tuple[int, int]]] = {}
    if not directory.is_dir():
        return running
    for record_file in directory.glob("*.json"):
        try:
            record = json.loads(record_file.read_text())
            gateway = int(record["gateway"]["pid"])
            if not _same_process_alive(gateway, record["gateway"].get("start")):
                continue
            for group in record["groups"]:
                if group.get("server") and pid_alive(int(group["pgid"])):
                    running.setdefault(str(group["server"]), []).append((gateway, int(group["pgid"])))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return running


def reap_stale_groups(directory: Path) -> list[int]:
    """Stop every group recorded by a gateway that no longer runs; returns the groups signalled."""
    reaped: list[int] = []
    if not directory.is_dir():
        return reaped
    for record_file in directory.glob("*.json"):
        try:
            record = json.loads(record_file.read_text())
            gateway = record["gateway"]
            groups = record["groups"]
        except (OSError, ValueError, KeyError, TypeError):
            with contextlib.suppress(OSError):
                record_file.unlink()
            continue
        if _same_process_alive(int(gateway["pid"]), gateway.get("start")):
            continue
        for group in groups:
            pgid = int(group["pgid"])
            if _recorded_group_is_ours(pgid, group.get("start")):
                _terminate_group(pgid)
                reaped.append(pgid)
        with contextlib.suppress(OSError):
            record_file.unlink()
    return reaped


def _same_process_alive(pid: int, start: str | None) -> bool:
    if not pid_alive(pid):
        return False
    current = process_start_time(pid)
    return start is None or current is None or current == start


def _recorded_group_is_ours(pgid: int, start: str | None) -> bool:
    if not group_alive(pgid):
        return False
    leader_start = process_start_time(pgid)
    if leader_start is None:
        return True  # leader gone, members left: the group id cannot have been reused
    return start is not None and leader_start == start


def _terminate_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + REAP_GRACE_SECONDS
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(_POLL_SECONDS)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
