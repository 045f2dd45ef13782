"""Pair 2: a cold `execute_tool` against spawn + initialize + call of the same server directly.

The gateway side starts a fresh session (a front, and the workspace's shared daemon, none running before) on a
workspace with a valid cache, so no server runs yet; its own start is not timed, only its first call, which
wakes the server. The front answers the handshake before the daemon is ready to serve (pair 3 times both), so
its start ends with a `search_tools`, which starts no server and is answered once the daemon serves. After
each, the daemon is stopped (with the server it started), so the next turn is cold again. Neither side's
shutdown is timed. The sides alternate, each turn starting with the other.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import anyio

from benchmarks.bench_workspace import spawned
from benchmarks.gateway_runtime import Runtime, stop_shared_daemon
from benchmarks.gateway_session import gateway_client, stdio_session, text_of
from benchmarks.latency.failure import BenchError
from benchmarks.latency.sampling import Sample, rotated, sample, timed
from benchmarks.latency.subjects import (
    SESSION_TIMEOUT_SECONDS,
    Target,
    call_directly,
    call_through_gateway,
    direct_params,
)


@dataclass(frozen=True)
class ColdResult:
    target: str
    gateway: Sample
    direct: Sample

    @property
    def ratio(self) -> float:
        return self.gateway.median / self.direct.median


async def cold_through_gateway(home: Path, runtime: Runtime, target: Target, spawn_log: Path, errlog: TextIO) -> float:
    """A fresh session, with no daemon running, is started first (not timed); then its first `execute_tool`
    wakes the server. The daemon is stopped before and after."""
    with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
        await stop_shared_daemon(runtime, home)  # an earlier pair's, lingering for its grace
        before = len(spawned(spawn_log))
        async with gateway_client(home, errlog, runtime) as gateway:
            ready = await gateway.call_tool("search_tools", {"query": target.tool})
            if ready.is_error:
                raise BenchError(f"the gateway's search before the cold call failed: {text_of(ready)[:300]!r}")
            if len(spawned(spawn_log)) != before:
                raise BenchError("the gateway started a server before any call: the cold measurement is void")
            elapsed = await timed(lambda: call_through_gateway(gateway, target))
        await stop_shared_daemon(runtime, home)
        return elapsed


async def cold_directly(target: Target, errlog: TextIO) -> float:
    """Spawn, initialize and call; the shutdown that follows is not timed (nor is the gateway's)."""
    with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
        started = time.perf_counter()
        async with stdio_session(direct_params(target.entry), errlog) as direct:
            await call_directly(direct, target)
            return (time.perf_counter() - started) * 1000


async def measure_cold(
    home: Path, runtime: Runtime, subjects: Sequence[Target], repeat: int, spawn_log: Path, *, errlog: TextIO
) -> list[ColdResult]:
    series: dict[str, dict[str, list[float]]] = {t.label: {"gateway": [], "direct": []} for t in subjects}
    for turn in range(repeat):
        for target in subjects:
            for side in rotated(["gateway", "direct"], turn):
                if side == "gateway":
                    elapsed = await cold_through_gateway(home, runtime, target, spawn_log, errlog)
                else:
                    elapsed = await cold_directly(target, errlog)
                series[target.label][side].append(elapsed)
    return [ColdResult(label, sample(s["gateway"]), sample(s["direct"])) for label, s in series.items()]
