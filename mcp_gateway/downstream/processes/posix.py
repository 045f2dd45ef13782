"""Process groups on POSIX: the only place the gateway sends a signal, and the guard in front of it.

A process group id is a number on disk or in memory, and a wrong one is dangerous: `killpg(0)` signals the
gateway's own group (which may hold the AI client that started it) and `killpg(1)` means `kill(-1)`, every
process the user may signal. So `signal_group` refuses any group id that is not > 1, and the gateway's own
group, whoever asks; it logs the refusal and reports it. Whether a group is *ours* is the caller's question
(see `ownership`); this module only makes sure no call can ever reach the groups nobody may signal.
"""

from __future__ import annotations

import logging
import os
import signal

logger = logging.getLogger(__name__)

LOWEST_SIGNALLABLE_GROUP = 2
"""Group ids 0 (our own group) and 1 (every process, through kill(-1)) are never signalled."""


def refusal(pgid: int) -> str | None:
    """Why `pgid` may never be signalled by this process, or None when it may be."""
    if pgid < LOWEST_SIGNALLABLE_GROUP:
        return f"process group {pgid} names no single group (0 is our own group, 1 or less reaches every process)"
    if pgid == os.getpgrp():
        return f"process group {pgid} is the gateway's own group (it may hold the AI client)"
    return None


def signal_group(pgid: int, signum: signal.Signals) -> bool:
    """Send `signum` to group `pgid` unless the guard refuses it; True when the kernel accepted the signal."""
    reason = refusal(pgid)
    if reason is not None:
        logger.warning("refused to send %s: %s", signum.name, reason)
        return False
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def group_alive(pgid: int) -> bool:
    """Whether group `pgid` still has a member (zombies included); a refused id is never one of ours."""
    if refusal(pgid) is not None:
        return False
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists; EPERM only says we may not signal it
    return True


def pid_alive(pid: int) -> bool:
    if pid < 1:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def group_of(pid: int) -> int | None:
    """The process group of `pid`, or None when it is gone or its group cannot be read."""
    try:
        return os.getpgid(pid)
    except OSError:
        return None
