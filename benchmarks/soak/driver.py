"""Driving the gateway as a user's machine runs it: N client sessions (`--sessions`, 1 by default), each with a
real session front, all served by the workspace's one shared daemon (or, with `--standalone`, one session
served by its private daemon), in a runtime directory of the soak's own; a warm-up call per server and
session, then C workers each calling `execute_tool` until the deadline, worker i in session i mod N, every call
bounded by LOST_AFTER_SECONDS; the daemon's RSS after the warm-up, at the end of each tenth of the run and at
the end, the fronts' at the end, and the CPU time of the daemon and the fronts in between, read from /proc.

A call is cancelled by leaving its scope: the SDK then sends notifications/cancelled to the gateway. A dead
daemon stops the workers instead of turning every further call into an instant exception.
"""

from __future__ import annotations

import random
from collections.abc import AsyncGenerator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

from benchmarks.gateway_runtime import SHARED, STANDALONE, Runtime, private_daemon
from benchmarks.gateway_session import (
    GATEWAY_STDERR,
    PID_WAIT_SECONDS,
    POLL_SECONDS,
    GatewaySessionError,
    find_fronts,
    gateway_parameters,
    stdio_session,
)
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

    daemon_pid: int | None = None
    """The shared daemon, or with `--standalone` the session's private daemon."""
    front_pids: list[int] = field(default_factory=list[int])
    """The session fronts the clients started."""
    records: list[CallRecord] = field(default_factory=list[CallRecord])
    elapsed: float = 0.0
    rss_warm_mb: float | None = None
    rss_end_mb: float | None = None
    rss_during_mb: list[float] = field(default_factory=list[float])
    fronts_rss_end_mb: list[float] = field(default_factory=list[float])
    cpu_seconds: float | None = None
    """The daemon's and the fronts' CPU time during the run."""
    aborted: str | None = None


async def warm_up(clients: Sequence[Client], servers: Sequence[FakeServer]) -> None:
    """One echo per server in every session, so every server and session ran once before the first RSS reading."""
    for client in clients:
        for server in servers:
            plan = plan_call(0, "fast", server.name, random.Random(0))
            record = await run_call(client, plan)
            if record.outcome != "ok":
                raise SoakError(f"warm-up call to {server.name} failed: {record.outcome} {record.detail}")


async def drive(clients: Sequence[Client], schedule: Schedule, options: Options, daemon_pid: int) -> list[CallRecord]:
    """C workers calling until the deadline; calls in flight then are waited for (each is bounded)."""
    records: list[CallRecord] = []
    deadline = schedule.started + options.seconds

    async def worker(client: Client) -> None:
        # A dead daemon would turn every further call into an instant exception: stop instead.
        while anyio.current_time() < deadline and is_alive(daemon_pid):
            records.append(await run_call(client, schedule.next_plan(anyio.current_time())))

    async with anyio.create_task_group() as workers:
        for index in range(options.concurrency):
            workers.start_soon(worker, clients[index % len(clients)])
    return records


async def read_rss_during(pid: int, started: float, seconds: float, readings: list[float]) -> None:
    for index in range(1, RSS_READINGS + 1):
        await anyio.sleep_until(started + seconds * index / RSS_READINGS)
        rss = rss_mb(pid)
        if rss is None:
            return
        readings.append(rss)


def session_parameters(home: Path, runtime: Runtime, options: Options) -> StdioServerParameters:
    """A session front serving `home`, sharing the daemon of `runtime` or, with `--standalone`, with its own."""
    return gateway_parameters(home, runtime, STANDALONE if options.standalone else SHARED)


@asynccontextmanager
async def client_sessions(
    home: Path, runtime: Runtime, options: Options, errlog: TextIO
) -> AsyncGenerator[list[Client]]:
    async with AsyncExitStack() as stack:
        params = session_parameters(home, runtime, options)
        yield [await stack.enter_async_context(stdio_session(params, errlog)) for _ in range(options.sessions)]


def serving(home: Path, runtime: Runtime, options: Options) -> tuple[int | None, list[int]]:
    """(the daemon, the session fronts) serving `home`, found in /proc."""
    mode = STANDALONE if options.standalone else SHARED
    fronts = find_fronts(home, runtime, mode)
    if options.standalone:
        return (private_daemon(fronts[0]) if len(fronts) == 1 else None), fronts
    return runtime.shared_daemon(home), fronts


async def wait_for_serving(home: Path, runtime: Runtime, options: Options) -> tuple[int, list[int]]:
    with anyio.move_on_after(PID_WAIT_SECONDS):
        while True:
            daemon, fronts = serving(home, runtime, options)
            if daemon is not None and len(fronts) == options.sessions:
                return daemon, fronts
            await anyio.sleep(POLL_SECONDS)
    raise GatewaySessionError(
        f"no daemon and {options.sessions} fronts serving {home} found within {PID_WAIT_SECONDS:g} s"
    )


def cpu_of(pids: Sequence[int]) -> float | None:
    """The CPU time of `pids` together; None once one of them is gone."""
    readings = [cpu_seconds(pid) for pid in pids]
    return None if any(value is None for value in readings) else sum(value or 0.0 for value in readings)


async def run_session(
    home: Path, runtime: Runtime, servers: Sequence[FakeServer], options: Options, session: Session
) -> None:
    """Start N fronts (and so the daemon), warm up, soak, read the daemon's RSS and CPU, disconnect (a private
    daemon then stops with its session; the shared one once its grace has passed)."""
    with (home / GATEWAY_STDERR).open("w") as errlog:
        async with client_sessions(home, runtime, options, errlog) as clients:
            await soak_sessions(home, runtime, clients, servers, options=options, session=session)


async def soak_sessions(
    home: Path,
    runtime: Runtime,
    clients: Sequence[Client],
    servers: Sequence[FakeServer],
    *,
    options: Options,
    session: Session,
) -> None:
    session.daemon_pid, session.front_pids = await wait_for_serving(home, runtime, options)
    pid = session.daemon_pid
    watched = [pid, *session.front_pids]
    await warm_up(clients, servers)
    session.rss_warm_mb, cpu_warm = rss_mb(pid), cpu_of(watched)
    schedule = Schedule([s.name for s in servers], random.Random(options.seed), anyio.current_time())
    records: list[CallRecord] = []
    async with anyio.create_task_group() as readers:
        readers.start_soon(read_rss_during, pid, schedule.started, options.seconds, session.rss_during_mb)
        records = await drive(clients, schedule, options, pid)
        readers.cancel_scope.cancel()
    session.records = judge(records)
    session.elapsed = anyio.current_time() - schedule.started
    if not is_alive(pid):
        session.aborted = "the daemon died during the soak"
    session.rss_end_mb, cpu_end = rss_mb(pid), cpu_of(watched)
    session.fronts_rss_end_mb = [rss for front in session.front_pids if (rss := rss_mb(front)) is not None]
    if cpu_warm is not None and cpu_end is not None:
        session.cpu_seconds = cpu_end - cpu_warm
