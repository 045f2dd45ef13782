"""Driving the gateway: one client session with the real gateway process, a warm-up call per server, then
C workers each calling `execute_tool` until the deadline, every call bounded by LOST_AFTER_SECONDS; the
gateway's RSS after the warm-up, at the end of each tenth of the run and at the end, and its CPU time in
between, read from /proc.

A call is cancelled by leaving its scope: the SDK then sends notifications/cancelled to the gateway. A
dead gateway stops the workers instead of turning every further call into an instant exception.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import mcp_types as types
from mcp import Client

from benchmarks.gateway_session import GATEWAY_STDERR, gateway_client, wait_for_gateway_pid
from benchmarks.procfs import cpu_seconds, is_alive, rss_mb
from benchmarks.soak.judging import judge
from benchmarks.soak.outcomes import CallRecord, Outcome, classify
from benchmarks.soak.plan import Options, Plan, Schedule, plan_call
from benchmarks.soak.workspace import REQUEST_TIMEOUT_MS, FakeServer

LOST_AFTER_SECONDS = REQUEST_TIMEOUT_MS / 1000 + 30
"""A call still unanswered after this long never will be: its result was lost."""

RSS_READINGS = 10
"""RSS readings spread over the run: growth that levels off (allocator arenas, caches filling up) then
looks different from growth that goes on (a leak), which two readings cannot tell apart."""


class SoakError(Exception):
    """The soak could not run at all (as opposed to finding problems, which it reports)."""


async def perform(client: Client, plan: Plan) -> tuple[Outcome, str]:
    request = {"tool": f"{plan.server}.{plan.tool}", "arguments": plan.arguments}
    if plan.cancel_after is None:
        return classify(plan, await client.call_tool("execute_tool", request))
    result: types.CallToolResult | None = None
    # Leaving the scope cancels the request: the SDK sends notifications/cancelled to the gateway.
    with anyio.move_on_after(plan.cancel_after):
        result = await client.call_tool("execute_tool", request)
    return ("cancelled", "") if result is None else classify(plan, result)


async def run_call(client: Client, plan: Plan) -> CallRecord:
    started = anyio.current_time()
    outcome: Outcome = "lost"
    detail = f"no result within {LOST_AFTER_SECONDS:g}s"
    with anyio.move_on_after(LOST_AFTER_SECONDS):
        try:
            outcome, detail = await perform(client, plan)
        except Exception as exc:  # anything the client raises is a finding, not a reason to stop
            outcome, detail = "unexpected", f"{type(exc).__name__}: {exc}"
    return CallRecord(plan, started, anyio.current_time(), outcome, detail)


@dataclass
class Session:
    """What one client session with the gateway measured; filled in as it goes, so clean-up knows the pid."""

    gateway_pid: int | None = None
    records: list[CallRecord] = field(default_factory=list[CallRecord])
    elapsed: float = 0.0
    rss_warm_mb: float | None = None
    rss_end_mb: float | None = None
    rss_during_mb: list[float] = field(default_factory=list[float])
    cpu_seconds: float | None = None
    aborted: str | None = None


async def warm_up(client: Client, servers: Sequence[FakeServer]) -> None:
    """One echo per server, so every server ran once before the first RSS reading."""
    for server in servers:
        plan = plan_call(0, "fast", server.name, random.Random(0))
        record = await run_call(client, plan)
        if record.outcome != "ok":
            raise SoakError(f"warm-up call to {server.name} failed: {record.outcome} {record.detail}")


async def drive(client: Client, schedule: Schedule, options: Options, gateway_pid: int) -> list[CallRecord]:
    """C workers calling until the deadline; calls in flight then are waited for (each is bounded)."""
    records: list[CallRecord] = []
    deadline = schedule.started + options.seconds

    async def worker() -> None:
        # A dead gateway would turn every further call into an instant exception: stop instead.
        while anyio.current_time() < deadline and is_alive(gateway_pid):
            records.append(await run_call(client, schedule.next_plan(anyio.current_time())))

    async with anyio.create_task_group() as workers:
        for _ in range(options.concurrency):
            workers.start_soon(worker)
    return records


async def read_rss_during(pid: int, started: float, seconds: float, readings: list[float]) -> None:
    for index in range(1, RSS_READINGS + 1):
        await anyio.sleep_until(started + seconds * index / RSS_READINGS)
        rss = rss_mb(pid)
        if rss is None:
            return
        readings.append(rss)


async def run_session(home: Path, servers: Sequence[FakeServer], options: Options, session: Session) -> None:
    """Start the gateway, warm up, soak, read its RSS and CPU, disconnect (the gateway then stops itself)."""
    with (home / GATEWAY_STDERR).open("w") as errlog:
        async with gateway_client(home, errlog) as client:
            session.gateway_pid = pid = await wait_for_gateway_pid(home)
            await warm_up(client, servers)
            session.rss_warm_mb, cpu_warm = rss_mb(pid), cpu_seconds(pid)
            schedule = Schedule([s.name for s in servers], random.Random(options.seed), anyio.current_time())
            records: list[CallRecord] = []
            async with anyio.create_task_group() as readers:
                readers.start_soon(read_rss_during, pid, schedule.started, options.seconds, session.rss_during_mb)
                records = await drive(client, schedule, options, pid)
                readers.cancel_scope.cancel()
            session.records = judge(records)
            session.elapsed = anyio.current_time() - schedule.started
            if not is_alive(pid):
                session.aborted = "the gateway process died during the soak"
            session.rss_end_mb, cpu_end = rss_mb(pid), cpu_seconds(pid)
            if cpu_warm is not None and cpu_end is not None:
                session.cpu_seconds = cpu_end - cpu_warm
