"""Pair 1: a warm `execute_tool` (the server already running) through the gateway, as a user has it (a front
and the workspace's shared daemon) and standalone (a front and its private daemon), against the same
`tools/call` made straight to the server, with two hop baselines in the same blocks: the gateway's own
`tools/list` (the client-front-daemon round trip with nothing behind it) and a plain SDK server's `tools/list`
(what one Python MCP hop costs).

Every side runs in blocks of BLOCK_CALLS, rotating which goes first, after WARMUP_CALLS each: a burst of
noise on the shared machine hits every series alike. The CPU time per request of the processes answering
(the front and its daemon on the gateway's rows, the server on the others) comes from /proc.

Judged: through the shared daemon, gateway/direct <= WARM_TARGET_RATIO for every target, and for the trivial
echoes (issue 25) at most ADDED_GOAL_MS more than direct, by median.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio
from mcp import Client

from benchmarks.gateway_runtime import SHARED, STANDALONE, Runtime
from benchmarks.gateway_session import gateway_client, stdio_session, wait_for_session
from benchmarks.latency.sampling import Sample, rotated, sample, timed
from benchmarks.latency.subjects import (
    SESSION_TIMEOUT_SECONDS,
    Target,
    call_directly,
    call_through_gateway,
    child_pid,
    command_argument,
    direct_params,
)
from benchmarks.procfs import cpu_ns

WARM_TARGET_RATIO = 1.3
ADDED_GOAL_MS = 1.0
"""Issue 25: a warm execute_tool of a trivial echo through the shared daemon adds at most this over direct."""
WARMUP_CALLS = 20
BLOCK_CALLS = 10
"""Calls per block in the warm comparison: short enough that a burst of noise hits every series alike."""
MS_PER_NS = 1e-6


@dataclass(frozen=True)
class Measured:
    latency: Sample
    cpu_parts_ms: tuple[float | None, ...]
    """CPU time per request of each process answering it (the front, then its daemon, for the gateway's rows;
    the server for direct rows), every thread included; None where /proc could not tell."""

    @property
    def cpu_ms(self) -> float | None:
        """Of all the processes answering it together."""
        parts = self.cpu_parts_ms
        return None if any(part is None for part in parts) else sum(part or 0.0 for part in parts)

    def as_json(self) -> dict[str, Any]:
        parts = [None if part is None else round(part, 3) for part in self.cpu_parts_ms]
        total = None if self.cpu_ms is None else round(self.cpu_ms, 3)
        return self.latency.as_json() | {"cpu_ms_per_request": total, "cpu_ms_per_request_by_process": parts}


@dataclass(frozen=True)
class WarmResult:
    target: str
    trivial: bool
    """A trivial echo: what issue 25's added-time goal is about."""
    gateway: Measured
    """Through a front and the workspace's shared daemon: what a user gets."""
    standalone: Measured
    """Through a front and its private daemon."""
    direct: Measured
    hop: Measured
    """The gateway's own `tools/list` (shared): the client-front-daemon round trip with no downstream behind it."""
    sdk_hop: Measured
    """A plain SDK server's `tools/list` (the demo toolbox, directly): what one Python MCP hop costs."""

    @property
    def ratio(self) -> float:
        return self.gateway.latency.median / self.direct.latency.median

    @property
    def added_ms(self) -> float:
        """What the shared daemon's path adds to the direct call, by median."""
        return self.gateway.latency.median - self.direct.latency.median

    @property
    def standalone_added_ms(self) -> float:
        return self.standalone.latency.median - self.direct.latency.median

    @property
    def added_passed(self) -> bool | None:
        """Issue 25's goal, for a trivial echo; None for a target it does not judge."""
        return self.added_ms <= ADDED_GOAL_MS if self.trivial else None

    @property
    def passed(self) -> bool:
        return self.ratio <= WARM_TARGET_RATIO and self.added_passed is not False


@dataclass(frozen=True)
class Side:
    """One series of the warm comparison: the request, and the processes whose CPU it costs."""

    step: Callable[[], Awaitable[object]]
    pids: tuple[int | None, ...]


async def measure_series(sides: Mapping[str, Side], calls: int) -> dict[str, Measured]:
    """Every side in blocks of BLOCK_CALLS, rotating which goes first, so noise hits every side alike."""
    for _ in range(WARMUP_CALLS):
        for side in sides.values():
            await side.step()
    latencies: dict[str, list[float]] = {name: [] for name in sides}
    cpu: dict[str, list[list[int | None]]] = {name: [[] for _ in side.pids] for name, side in sides.items()}
    for block in range(math.ceil(calls / BLOCK_CALLS)):
        for name in rotated(list(sides), block):
            side = sides[name]
            before = [cpu_ns(pid) for pid in side.pids]
            for _ in range(BLOCK_CALLS):
                latencies[name].append(await timed(side.step))
            after = [cpu_ns(pid) for pid in side.pids]
            for deltas, start, end in zip(cpu[name], before, after, strict=True):
                deltas.append(None if start is None or end is None else end - start)
    return {
        name: Measured(
            sample(latencies[name]), tuple(cpu_per_call_ms(deltas, len(latencies[name])) for deltas in cpu[name])
        )
        for name in sides
    }


def cpu_per_call_ms(deltas: Sequence[int | None], calls: int) -> float | None:
    known = [delta for delta in deltas if delta is not None]
    return sum(known) * MS_PER_NS / calls if known and len(known) == len(deltas) else None


@dataclass(frozen=True)
class Reference:
    """The sides every target shares: the gateway in each mode (with its front and daemon) and the plain SDK
    server."""

    gateway: Client
    gateway_pids: tuple[int, int]
    standalone: Client
    standalone_pids: tuple[int, int]
    sdk_server: Client
    sdk_server_pid: int | None


async def warm_pair(
    reference: Reference, direct: Client, direct_pid: int | None, target: Target, calls: int
) -> WarmResult:
    sides = {
        "gateway": Side(lambda: call_through_gateway(reference.gateway, target), reference.gateway_pids),
        "standalone": Side(lambda: call_through_gateway(reference.standalone, target), reference.standalone_pids),
        "direct": Side(lambda: call_directly(direct, target), (direct_pid,)),
        "hop": Side(reference.gateway.list_tools, reference.gateway_pids),
        "sdk_hop": Side(reference.sdk_server.list_tools, (reference.sdk_server_pid,)),
    }
    m = await measure_series(sides, calls)
    return WarmResult(target.label, target.trivial, m["gateway"], m["standalone"], m["direct"], m["hop"], m["sdk_hop"])


async def measure_warm(
    home: Path,
    runtime: Runtime,
    subjects: Sequence[Target],
    sdk_server: Mapping[str, Any],
    calls: int,
    *,
    errlog: TextIO,
) -> list[WarmResult]:
    results: list[WarmResult] = []
    with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
        async with (
            gateway_client(home, errlog, runtime, SHARED) as gateway,
            gateway_client(home, errlog, runtime, STANDALONE) as standalone,
            stdio_session(direct_params(sdk_server), errlog) as sdk,
        ):
            shared_pids = (await wait_for_session(home, runtime, SHARED)).pids
            standalone_pids = (await wait_for_session(home, runtime, STANDALONE)).pids
            sdk_pid = child_pid(command_argument(sdk_server))
            reference = Reference(gateway, shared_pids, standalone, standalone_pids, sdk, sdk_pid)
            for target in subjects:
                async with stdio_session(direct_params(target.entry), errlog) as direct:
                    pid = child_pid(command_argument(target.entry))
                    results.append(await warm_pair(reference, direct, pid, target, calls))
    return results
