"""Who a process is, beyond its reusable pid: its start time and the gateway marker in its environment.

Pids and process group ids are reused (`pid_max` is 32768 on many systems), so a number recorded by one
gateway proves nothing to the next. Two facts survive reuse:
- a process's start time: a pid reused later belongs to a process started later;
- the marker `MCP_GATEWAY_GROUP=<token>` the gateway puts in every stdio child's environment, which the
  child's own children inherit; the token is random per gateway process and written in its record file.

psutil reads both portably. It is imported on first use only: the path to answering `initialize` needs
neither, and `warm_up` lets a caller pay for the import in a worker thread.
"""

from __future__ import annotations

import functools
import importlib
import math
import os
from dataclasses import dataclass

GROUP_MARKER_ENV = "MCP_GATEWAY_GROUP"
"""The environment variable that marks a process as started by one gateway process."""
START_TIME_TOLERANCE_SECONDS = 0.01
"""Start times are clock ticks (1/100 s) plus the boot time; equal within a tick means the same process.

A wall clock stepped since the record was written makes them differ: the process is then "in doubt".
"""

TOKEN_BYTES = 16
"""128 random bits: no unrelated process carries the token by chance."""


@functools.cache
def gateway_token() -> str:
    """This gateway process's marker token (random, made once per process)."""
    return os.urandom(TOKEN_BYTES).hex()


def warm_up() -> None:
    """Import psutil now (about 30 ms), so that a later call on the event loop does not pay for it."""
    importlib.import_module("psutil")


def start_time(pid: int) -> float | None:
    """When `pid` started (seconds since the epoch, as psutil reports it), or None when it is gone or unreadable."""
    import psutil

    try:
        return psutil.Process(pid).create_time()
    except (psutil.Error, OSError, ValueError):
        return None


def same_start(recorded: float, current: float | None) -> bool:
    return current is not None and math.isclose(recorded, current, rel_tol=0.0, abs_tol=START_TIME_TOLERANCE_SECONDS)


@dataclass(frozen=True)
class Marker:
    """What a process's environment says about its origin."""

    readable: bool
    token: str | None
    """The value of GROUP_MARKER_ENV, None when the variable is absent (or the environment unreadable)."""


def marker_of(pid: int) -> Marker:
    import psutil

    try:
        environment = psutil.Process(pid).environ()
    except (psutil.Error, OSError, ValueError):
        return Marker(readable=False, token=None)
    return Marker(readable=True, token=environment.get(GROUP_MARKER_ENV))


def all_pids() -> list[int]:
    import psutil

    try:
        return psutil.pids()
    except (psutil.Error, OSError):
        return []


def is_zombie(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except (psutil.Error, OSError, ValueError):
        return True  # gone by now: as dead as a zombie
