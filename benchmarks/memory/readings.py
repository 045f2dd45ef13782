"""The gateway's memory as /proc tells it (VmRSS, RssAnon, VmHWM) for each of a session's processes (its front
and its daemon), and when to read it: the daemon reads cache.json and runs its startup check in the background
after the front answered `initialize`, so an idle reading waits until the session's processes together have
used (next to) no CPU for a whole window. A bare `import mcp` process gives the scale.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

import anyio

from benchmarks.gateway_session import GatewaySessionError
from benchmarks.procfs import cpu_seconds, memory_mb

IDLE_WAIT_SECONDS = 2.0
"""Least wait after `tools/list` before the idle reading: the gateway reads cache.json and runs its startup
check in the background after answering `initialize`."""
IDLE_MAX_SECONDS = 20.0
"""Most wait for the gateway to go quiet; a reading taken then is flagged as not settled."""
QUIET_WINDOW_SECONDS = 0.5
QUIET_CPU_SECONDS = 0.02
"""At most this much CPU time in one window counts as quiet: the background load is CPU-bound."""
BARE_SECONDS = 30.0
"""Upper bound for the bare `import mcp` process to say it is ready."""
BARE_PROGRAM = "import sys, mcp; print('ready', flush=True); sys.stdin.read()"
"""`python -c "import mcp"`, kept alive until we have read its memory."""


@dataclass(frozen=True)
class Memory:
    rss_mb: float
    anon_mb: float
    """The private heap part of RSS: what the catalog and the index cost, without shared libraries."""
    hwm_mb: float

    def plus(self, other: Memory) -> Memory:
        """Two processes' memory together (the peaks added: an upper bound of what they held at once)."""
        return Memory(self.rss_mb + other.rss_mb, self.anon_mb + other.anon_mb, self.hwm_mb + other.hwm_mb)


def memory_of(pid: int) -> Memory:
    sizes = memory_mb(pid)
    return Memory(sizes["VmRSS"], sizes["RssAnon"], sizes["VmHWM"])


def cpu_of(pids: Sequence[int]) -> float:
    """The CPU time of `pids` together; GatewaySessionError when one has exited."""
    total = 0.0
    for pid in pids:
        seconds = cpu_seconds(pid)
        if seconds is None:
            raise GatewaySessionError(f"a gateway process (pid {pid}) exited while idle")
        total += seconds
    return total


async def settle(pids: Sequence[int]) -> float | None:
    """Wait until the session's processes have been quiet (no background load using CPU) for one window, at
    least `IDLE_WAIT_SECONDS` after now; the seconds that took, or None if they never went quiet."""
    started = anyio.current_time()
    await anyio.sleep(IDLE_WAIT_SECONDS - QUIET_WINDOW_SECONDS)
    with anyio.move_on_after(IDLE_MAX_SECONDS):
        while True:
            before = cpu_of(pids)
            await anyio.sleep(QUIET_WINDOW_SECONDS)
            if cpu_of(pids) - before <= QUIET_CPU_SECONDS:
                return anyio.current_time() - started
    return None


async def bare_import_rss() -> float:
    """RSS of a Python process that has only imported the MCP SDK."""
    async with await anyio.open_process([sys.executable, "-c", BARE_PROGRAM]) as process:
        if process.stdout is None or process.stdin is None:
            raise GatewaySessionError("the bare python process has no pipes")
        with anyio.fail_after(BARE_SECONDS):
            await process.stdout.receive()  # "ready": the import is done
        rss = memory_of(process.pid).rss_mb
        await process.stdin.aclose()  # EOF ends sys.stdin.read()
        await process.wait()
    return rss
