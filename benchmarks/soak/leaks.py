"""Processes that outlived the client sessions: every spawned server, every member of its process group, the
daemon and every session front, still alive after the clients left. The gateway must have stopped them all (the
shared daemon once its grace has passed), so the soak waits a bounded time for them to go, reports those that
did not, and SIGKILLs what is left: a soak never leaves a process behind.

A pid in a spawn log proves nothing once that process is gone (pids are reused): a process counts only when
its environment names the workspace, and the gateway only when its command line does.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Collection, Sequence

import anyio

from benchmarks.bench_workspace import spawned
from benchmarks.procfs import ProcessInfo, all_processes, command_line, environment
from benchmarks.soak.workspace import FakeServer

LEAK_WAIT_SECONDS = 10.0
"""Well past the shared daemon's grace in the soak's workspace (`workspace.DAEMON_GRACE_SECONDS`) and its stop."""
POLL_SECONDS = 0.1


def mentions(pid: int, marker: str) -> bool:
    """Whether the process's environment names `marker`; pids are reused, this proves the process is ours."""
    try:
        return marker.encode() in environment(pid)
    except PermissionError:
        return True  # cannot tell: count it rather than miss a leak
    except OSError:
        return False  # gone


def leftovers(servers: Sequence[FakeServer], gateway_pids: Collection[int], marker: str) -> list[ProcessInfo]:
    """Live processes we started: spawned servers, members of their groups, and the gateway itself."""
    started = {pid for server in servers for pid in spawned(server.spawn_log)}
    found: list[ProcessInfo] = []
    for info in all_processes():
        if info.state == "Z":
            continue
        server = (info.pid in started or info.pgid in started) and mentions(info.pid, marker)
        gateway = info.pid in gateway_pids and marker in command_line(info.pid)
        if server or gateway:
            found.append(info)
    return found


async def wait_for_leftovers(
    servers: Sequence[FakeServer], gateway_pids: Collection[int], marker: str
) -> list[ProcessInfo]:
    with anyio.move_on_after(LEAK_WAIT_SECONDS):
        while True:
            found = leftovers(servers, gateway_pids, marker)
            if not found:
                return found
            await anyio.sleep(POLL_SECONDS)
    return leftovers(servers, gateway_pids, marker)


def kill_leftovers(servers: Sequence[FakeServer], gateway_pids: Collection[int], marker: str) -> None:
    for info in leftovers(servers, gateway_pids, marker):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(info.pid, signal.SIGKILL)


def describe_process(info: ProcessInfo, gateway_pids: Collection[int]) -> str:
    role = "gateway" if info.pid in gateway_pids else "server" if info.pid == info.pgid else "grandchild"
    return f"pid {info.pid} ({role}, group {info.pgid}, state {info.state}): {' '.join(command_line(info.pid))}"
