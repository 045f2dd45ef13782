"""What the benchmarks know about processes, read from /proc (Linux): parents, groups, command lines,
environments, CPU time and resident memory.

The SDK does not expose the processes it starts (the gateway, the servers behind it), so every benchmark
finds and watches them here. Each reader answers None, or skips the process, once it is gone: processes
exit between a listing and a read.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

NS_PER_SECOND = 1_000_000_000
KIB_PER_MB = 1024


def stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name: state, ppid, pgrp, ... (None once gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name may hold spaces and parentheses; the fields after the last ')' are fixed.
    return stat[stat.rindex(")") + 2 :].split()


@dataclass(frozen=True)
class ProcessInfo:
    pid: int
    ppid: int
    pgid: int
    state: str


def process_info(pid: int) -> ProcessInfo | None:
    fields = stat_fields(pid)
    if fields is None:
        return None
    state, ppid, pgid = fields[:3]
    return ProcessInfo(pid, int(ppid), int(pgid), state)


def all_processes() -> Iterator[ProcessInfo]:
    """Every process, zombies (exited, not yet reaped) included."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (info := process_info(int(entry.name))) is not None:
            yield info


def process_parents() -> dict[int, int]:
    """pid -> parent pid of every live process (zombies, exited but not reaped, are left out)."""
    return {info.pid: info.ppid for info in all_processes() if info.state != "Z"}


def children(parent: int) -> list[int]:
    """The live processes whose parent is `parent`."""
    return [pid for pid, ppid in process_parents().items() if ppid == parent]


def descendants(root: int) -> set[int]:
    """Children of `root`, their children, and so on."""
    parents = process_parents()
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= frontier
    return found


def is_alive(pid: int) -> bool:
    """A zombie (exited, not yet reaped) counts as gone."""
    info = process_info(pid)
    return info is not None and info.state != "Z"


def command_line(pid: int) -> list[str]:
    """The process's argv; empty once it is gone (or a zombie)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def environment(pid: int) -> bytes:
    """The raw /proc/PID/environ; raises PermissionError for another user's process, OSError once gone."""
    return Path(f"/proc/{pid}/environ").read_bytes()


def cpu_ticks(pid: int) -> int | None:
    """User plus system CPU time so far, threads that already exited included, in clock ticks."""
    fields = stat_fields(pid)
    if fields is None:
        return None
    return int(fields[11]) + int(fields[12])  # utime + stime


def cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time of a process; None once it is gone."""
    ticks = cpu_ticks(pid)
    return None if ticks is None else ticks / os.sysconf("SC_CLK_TCK")


def cpu_ns(pid: int | None) -> int | None:
    """CPU time (user + system) of `pid` so far, threads that already exited included.

    /proc/PID/stat counts in clock ticks (10 ms); the per-thread schedstat counters are exact but forget
    a thread when it exits, and the fake server runs every call on a thread of its own. Summed over many
    blocks, the tick rounding stays within about 0.1 ms per request.
    """
    ticks = None if pid is None else cpu_ticks(pid)
    return None if ticks is None else ticks * NS_PER_SECOND // os.sysconf("SC_CLK_TCK")


def memory_mb(pid: int) -> dict[str, float]:
    """Every size in /proc/PID/status (VmRSS, RssAnon, VmHWM, ...) in MB; raises OSError once gone."""
    sizes: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if value.endswith(" kB"):
            sizes[key] = int(value.split()[0]) / KIB_PER_MB
    return sizes


def rss_mb(pid: int) -> float | None:
    """The resident set (VmRSS); None once the process is gone."""
    with contextlib.suppress(OSError):
        return memory_mb(pid).get("VmRSS")
    return None
