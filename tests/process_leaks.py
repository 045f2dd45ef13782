"""The test suite leaves no process behind: every process the tests start is found and accounted for.

At session start a marker (`TEST_RUN_ENV=<random>`) is put in the test process's environment, so every
process the tests start inherits it: gateways, the servers gateways start (with `inheritEnv`, the default),
their grandchildren, npm peers, the Inspector, shell wrappers. At session end every other process whose
environment carries this session's marker has outlived the tests: it gets LEAK_GRACE_SECONDS to exit,
then it is killed (so that a run never leaks, on CI or anywhere) and the run fails, naming it.

One process is exempt: the multiprocessing resource tracker of the test process itself (started by tests
that use the "spawn" context), which by design lives exactly as long as the test process and exits on its
own when that exits.

Not seen: a process started with an environment that does not derive from the test process's own (a
server configured with `inheritEnv: false`, or started with a hand-made environment), and processes of
other users (their environments cannot be read).
"""

from __future__ import annotations

import bisect
import os
import time
import uuid
from dataclasses import dataclass

import psutil

TEST_RUN_ENV = "MCP_GATEWAY_TEST_RUN"
LEAK_GRACE_SECONDS = 5.0
"""How long processes still running at session end get to finish exiting before they count as leaked."""
KILL_WAIT_SECONDS = 5.0
"""How long a SIGKILLed leak gets to disappear."""
_RESOURCE_TRACKER_MAIN = "from multiprocessing.resource_tracker import main;"


def start_session() -> str:
    """Mark this test session; every process started from now on inherits the marker."""
    marker = uuid.uuid4().hex
    os.environ[TEST_RUN_ENV] = marker
    return marker


@dataclass(frozen=True)
class Leak:
    pid: int
    command: str
    started_during: str
    """The test that was running when the process started."""


class RunTimeline:
    """When each test started, so that a leaked process can be traced to the test that started it."""

    def __init__(self) -> None:
        self._starts: list[float] = []
        self._tests: list[str] = []

    def test_started(self, nodeid: str) -> None:
        self._starts.append(_process_clock())
        self._tests.append(nodeid)

    def test_running_at(self, moment: float) -> str:
        index = bisect.bisect_right(self._starts, moment) - 1
        return self._tests[index] if index >= 0 else "(before the first test: a fixture or plugin)"


def find_leaks(marker: str, timeline: RunTimeline) -> list[Leak]:
    """Kill every process (but this one) carrying `marker` that is still running after a grace; name each."""
    carrying = _carrying(marker)
    if not carrying:
        return []
    _, alive = psutil.wait_procs(carrying, timeout=LEAK_GRACE_SECONDS)
    leaks = [_describe(process, timeline) for process in alive]
    for process in alive:
        try:
            process.kill()  # psutil checks the pid still names the same process
        except psutil.Error:
            continue
    psutil.wait_procs(alive, timeout=KILL_WAIT_SECONDS)
    return leaks


def report(leaks: list[Leak], marker: str) -> list[str]:
    lines = [f"{len(leaks)} process(es) outlived the test session {TEST_RUN_ENV}={marker} (now killed):"]
    lines += [f"  pid {leak.pid}: {leak.command}  (started during {leak.started_during})" for leak in leaks]
    return lines


def _process_clock() -> float:
    """Now, on the clock psutil dates processes by: the boot time it reads plus the time since boot."""
    if hasattr(time, "CLOCK_BOOTTIME"):
        return psutil.boot_time() + time.clock_gettime(time.CLOCK_BOOTTIME)
    return time.time()


def _carrying(marker: str) -> list[psutil.Process]:
    found: list[psutil.Process] = []
    for process in psutil.process_iter():
        if process.pid == os.getpid():
            continue
        try:
            if (
                process.environ().get(TEST_RUN_ENV) == marker
                and process.status() != psutil.STATUS_ZOMBIE
                and not _is_our_resource_tracker(process)
            ):
                found.append(process)
        except psutil.Error:
            continue  # gone, a zombie, or another user's: not ours to account for
    return found


def _is_our_resource_tracker(process: psutil.Process) -> bool:
    command = process.cmdline()
    return (
        process.ppid() == os.getpid()
        and len(command) >= 2
        and command[-2] == "-c"
        and command[-1].startswith(_RESOURCE_TRACKER_MAIN)
    )


def _describe(process: psutil.Process, timeline: RunTimeline) -> Leak:
    try:
        command = " ".join(process.cmdline()) or process.name()
        started = timeline.test_running_at(process.create_time())
    except psutil.Error:
        command, started = "(exited while being described)", "(unknown)"
    return Leak(pid=process.pid, command=command, started_during=started)
