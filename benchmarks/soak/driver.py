"""Driving the gateway: one client session with a standalone gateway process (or, with `--sessions N`, N
sessions with the real session fronts of one shared daemon, in a private runtime directory), a warm-up call
per server, then C workers each calling `execute_tool` until the deadline, worker i in session i mod N, every
call bounded by LOST_AFTER_SECONDS; the gateway's (the daemon's) RSS after the warm-up, at the end of each
tenth of the run and at the end, and its CPU time in between, read from /proc.

A call is cancelled by leaving its scope: the SDK then sends notifications/cancelled to the gateway. A
dead gateway stops the workers instead of turning every further call into an instant exception.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from collections.abc import AsyncGenerator, Generator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

from benchmarks.gateway_session import (
    GATEWAY_STDERR,
    PID_WAIT_SECONDS,
    POLL_SECONDS,
    GatewaySessionError,
    gateway_command,
    gateway_environment,
    stdio_session,
)
from benchmarks.procfs import all_processes, children, command_line, cpu_seconds, is_alive, rss_mb
from benchmarks.soak.judging import judge
from benchmarks.soak.outcomes import CallRecord, Outcome, classify
from benchmarks.soak.plan import Options, Plan, Schedule, plan_call
from benchmarks.soak.workspace import REQUEST_TIMEOUT_MS, FakeServer
from mcp_gateway.front.launch import STANDALONE_ENV

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
    """The standalone gateway, or the shared daemon."""
    front_pids: list[int] = field(default_factory=list[int])
    """With `--sessions`: the session fronts the clients started."""
    records: list[CallRecord] = field(default_factory=list[CallRecord])
    elapsed: float = 0.0
    rss_warm_mb: float | None = None
    rss_end_mb: float | None = None
    rss_during_mb: list[float] = field(default_factory=list[float])
    cpu_seconds: float | None = None
    aborted: str | None = None


async def warm_up(clients: Sequence[Client], servers: Sequence[FakeServer]) -> None:
    """One echo per server in every session, so every server and session ran once before the first RSS reading."""
    for client in clients:
        for server in servers:
            plan = plan_call(0, "fast", server.name, random.Random(0))
            record = await run_call(client, plan)
            if record.outcome != "ok":
                raise SoakError(f"warm-up call to {server.name} failed: {record.outcome} {record.detail}")


async def drive(clients: Sequence[Client], schedule: Schedule, options: Options, gateway_pid: int) -> list[CallRecord]:
    """C workers calling until the deadline; calls in flight then are waited for (each is bounded)."""
    records: list[CallRecord] = []
    deadline = schedule.started + options.seconds

    async def worker(client: Client) -> None:
        # A dead gateway would turn every further call into an instant exception: stop instead.
        while anyio.current_time() < deadline and is_alive(gateway_pid):
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


@contextmanager
def runtime_directory(options: Options) -> Generator[Path | None]:
    """With `--sessions`, a private runtime directory for the daemon's socket (short: a socket path is at most
    104 bytes), removed afterwards; None for a standalone gateway."""
    if not options.sessions:
        yield None
        return
    directory = Path(tempfile.mkdtemp(prefix="mgw-soak-", dir="/tmp"))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def session_parameters(home: Path, runtime: Path | None) -> StdioServerParameters:
    """A standalone gateway (`MCP_GATEWAY_STANDALONE=1`), or a session front sharing the daemon in `runtime`."""
    env = gateway_environment()
    if runtime is None:
        env[STANDALONE_ENV] = "1"
    else:
        env.pop(STANDALONE_ENV, None)
        env["MCP_GATEWAY_RUNTIME_DIR"] = str(runtime / "mcp-gateway")
    command, *args = gateway_command(home)
    return StdioServerParameters(command=command, args=args, env=env)


@asynccontextmanager
async def client_sessions(home: Path, runtime: Path | None, count: int, errlog: TextIO) -> AsyncGenerator[list[Client]]:
    async with AsyncExitStack() as stack:
        params = session_parameters(home, runtime)
        yield [await stack.enter_async_context(stdio_session(params, errlog)) for _ in range(count)]


def serving(home: Path, runtime: Path | None) -> tuple[int | None, list[int]]:
    """(the standalone gateway or the daemon, the session fronts) serving `home`, found in /proc."""
    ours = [pid for pid in children(os.getpid()) if _serves(pid, home)]
    if runtime is None:
        return (ours[0] if ours else None), []
    daemons = [info.pid for info in all_processes() if info.state != "Z" and _is_daemon(info.pid, runtime)]
    return (daemons[0] if len(daemons) == 1 else None), ours


async def wait_for_serving(home: Path, runtime: Path | None, fronts: int) -> tuple[int, list[int]]:
    with anyio.move_on_after(PID_WAIT_SECONDS):
        while True:
            gateway, found = serving(home, runtime)
            if gateway is not None and len(found) == fronts:
                return gateway, found
            await anyio.sleep(POLL_SECONDS)
    raise GatewaySessionError(f"no gateway (or daemon) serving {home} found within {PID_WAIT_SECONDS:g} s")


def _serves(pid: int, home: Path) -> bool:
    argv = command_line(pid)
    return "--home" in argv[:-1] and argv[argv.index("--home") + 1] == str(home)


def _is_daemon(pid: int, runtime: Path) -> bool:
    """The daemon whose socket is in `runtime` (`mcp_gateway … daemon --socket PATH`)."""
    argv = command_line(pid)
    return "daemon" in argv and "--socket" in argv[:-1] and argv[argv.index("--socket") + 1].startswith(f"{runtime}/")


async def run_session(home: Path, servers: Sequence[FakeServer], options: Options, session: Session) -> None:
    """Start the gateway (or N fronts of one daemon), warm up, soak, read its RSS and CPU, disconnect (the
    gateway then stops itself; the daemon once its grace has passed)."""
    with runtime_directory(options) as runtime, (home / GATEWAY_STDERR).open("w") as errlog:
        async with client_sessions(home, runtime, max(1, options.sessions), errlog) as clients:
            fronts = options.sessions
            session.gateway_pid, session.front_pids = await wait_for_serving(home, runtime, fronts)
            pid = session.gateway_pid
            await warm_up(clients, servers)
            session.rss_warm_mb, cpu_warm = rss_mb(pid), cpu_seconds(pid)
            schedule = Schedule([s.name for s in servers], random.Random(options.seed), anyio.current_time())
            records: list[CallRecord] = []
            async with anyio.create_task_group() as readers:
                readers.start_soon(read_rss_during, pid, schedule.started, options.seconds, session.rss_during_mb)
                records = await drive(clients, schedule, options, pid)
                readers.cancel_scope.cancel()
            session.records = judge(records)
            session.elapsed = anyio.current_time() - schedule.started
            if not is_alive(pid):
                session.aborted = "the gateway process died during the soak"
            session.rss_end_mb, cpu_end = rss_mb(pid), cpu_seconds(pid)
            if cpu_warm is not None and cpu_end is not None:
                session.cpu_seconds = cpu_end - cpu_warm
