"""The shared daemons a test's sessions left: stopped when the test ends, as a user's logout stops them.

Every gateway the tests start serves as a user's does, through its workspace's shared daemon, which outlives
the session for its grace period (`daemonGraceSeconds`, 30 s by default) so that the next session finds it.
A test's workspace is its own, so whatever daemon is left when it ends serves nobody again: it is told to stop
(SIGTERM, what a logout sends) and must be gone within `DAEMON_STOP_SECONDS`, its servers with it. A daemon is
found by the run's marker in its environment (`process_leaks`) and its command line, never by a guess.
"""

from __future__ import annotations

import contextlib
import signal
import time

import psutil
from process_leaks import TEST_RUN_ENV

DAEMON_STOP_SECONDS = 15.0
"""A daemon stops every server in parallel within about 8 s at most (`server/stopping.py`), on a loaded machine."""


def running_daemons(marker: str) -> list[psutil.Process]:
    """The shared daemons started during this run (`mcp-gateway … daemon --socket …`) that still run."""
    found: list[psutil.Process] = []
    for process in psutil.process_iter(["cmdline"]):
        command: list[str] = process.info["cmdline"] or []
        if "daemon" not in command or "--socket" not in command:
            continue
        with contextlib.suppress(psutil.Error):
            if process.environ().get(TEST_RUN_ENV) == marker and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
    return found


def stop_daemons(marker: str) -> list[str]:
    """Stop every daemon of this run; the command lines of those that had to be killed (none, when all is well)."""
    daemons = running_daemons(marker)
    for daemon in daemons:
        with contextlib.suppress(psutil.Error):
            daemon.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + DAEMON_STOP_SECONDS
    _, alive = psutil.wait_procs(daemons, timeout=max(0.0, deadline - time.monotonic()))
    stubborn: list[str] = []
    for daemon in alive:
        with contextlib.suppress(psutil.Error):
            stubborn.append(" ".join(daemon.cmdline()))
            daemon.kill()
    return stubborn
