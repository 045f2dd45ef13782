"""Process groups where there are none (Windows): nothing is signalled, nothing is provably ours."""

from __future__ import annotations

import logging
import signal

logger = logging.getLogger(__name__)


def refusal(pgid: int) -> str | None:
    return f"process group {pgid} cannot be signalled: this platform has no POSIX process groups"


def signal_group(pgid: int, signum: signal.Signals) -> bool:
    logger.warning("refused to send %s: %s", signum.name, refusal(pgid))
    return False


def group_alive(pgid: int) -> bool:
    return False


def pid_alive(pid: int) -> bool:
    import psutil

    return pid > 0 and psutil.pid_exists(pid)


def group_of(pid: int) -> int | None:
    return None
