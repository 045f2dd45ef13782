"""Pair 3: start to an answered `tools/list`, every subject in one interleaved rotation.

The subjects: the smallest Python SDK server (`benchmarks/minimal_sdk_server.py`, the baseline), the gateway
on an empty config, on the demo workspace and on the 2,266-tool catalog.json workspace (each with a valid
cache, so that nothing is started and a big catalog cannot hide behind the demo), each started three ways:
- with the daemon running: a fresh front, the workspace's shared daemon already serving another session (held
  open for the whole pair), as every session but a user's first gets it;
- with no daemon running: the front starts the shared daemon (a copy of the workspace, whose daemon is stopped
  after each start, so that each is cold; the front answers from the handshake the last cold start remembered,
  as a user's cold starts but the very first do);
- standalone: the front and a private daemon, gone with the session;
and both demo servers spawned in parallel, each initialized and listed, as a client without the gateway
starts them. `--other-gateway PROGRAM` adds the same nine subjects served by another gateway program (a
checkout of main, say), in a runtime directory of its own, to the same rotation, for an A/B.

For each gateway the time to an answered `initialize` is reported apart, and so is the time until it answers
a `search_tools` sent right after `tools/list` (what a model calls first): the front answers the handshake
before the daemon's catalog and search index are ready, so an early answer cannot hide a later readiness.

Judged against the minimal SDK server, by median: with the daemon running, at most DAEMON_RUNNING_GOAL of its
time (issue 25); with none running and standalone, no later than it (TARGET_RATIO, issue 11).
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio
from mcp import StdioServerParameters

from benchmarks.bench_data import DEFAULT_DATA_DIR, load_catalog
from benchmarks.bench_workspace import spawned, write_bench_workspace
from benchmarks.gateway_runtime import SHARED, STANDALONE, Mode, Runtime, private_runtime, stop_shared_daemon
from benchmarks.gateway_session import gateway_environment, gateway_parameters, stdio_session, text_of
from benchmarks.latency.failure import BenchError
from benchmarks.latency.sampling import Sample, rotated, sample
from benchmarks.latency.subjects import SESSION_TIMEOUT_SECONDS, demo_entries, direct_params, write_config
from benchmarks.repo_paths import ROOT

META_TOOLS = 4
"""The gateway lists its four meta-tools, whatever it serves."""
MINIMAL_SERVER = ROOT / "benchmarks" / "minimal_sdk_server.py"
MINIMAL_TOOLS = 1
TARGET_RATIO = 1.0
"""A gateway should answer `tools/list` no later than the minimal SDK server (issue 11, problem 2)."""
DAEMON_RUNNING_GOAL = 0.25
"""With the daemon running, at most a quarter of the minimal SDK server's time (issue 25)."""
CATALOG = "catalog.json"
FIRST_QUERY = "add two numbers"

MINIMAL = "minimal Python SDK server"
DIRECT = "both demo servers directly"
EMPTY, DEMO, BIG = "empty config", "demo workspace", f"{CATALOG} workspace"
WORKSPACES = (EMPTY, DEMO, BIG)
RUNNING, COLD, ALONE = "daemon running", "no daemon running", "standalone"
KINDS = (RUNNING, COLD, ALONE)
GOALS = {RUNNING: DAEMON_RUNNING_GOAL, COLD: TARGET_RATIO, ALONE: TARGET_RATIO}
OTHER_SUFFIX = " (other gateway)"
COLD_SUFFIX = "-cold"


@dataclass(frozen=True)
class GatewayStart:
    workspace: str
    kind: str
    other: bool
    listed: Sample
    initialized: Sample
    """Of `listed`: until `initialize` was answered."""
    searched: Sample
    """Until a `search_tools` sent right after `tools/list` was answered (it waits for the catalog's index)."""

    @property
    def label(self) -> str:
        return subject_label(self.workspace, self.kind, self.other)

    @property
    def goal(self) -> float | None:
        """Its greatest ratio to the minimal SDK server; None for another gateway's, which are not judged."""
        return None if self.other else GOALS[self.kind]


def subject_label(workspace: str, kind: str, other: bool) -> str:
    return f"{workspace}, {kind}" + (OTHER_SUFFIX if other else "")


@dataclass(frozen=True)
class StartupResult:
    minimal: Sample
    direct: Sample
    gateways: tuple[GatewayStart, ...]
    workspaces: Mapping[str, str]
    """Per workspace label, what it serves."""

    def gateway(self, workspace: str, kind: str) -> GatewayStart:
        return next(s for s in self.gateways if (s.workspace, s.kind, s.other) == (workspace, kind, False))

    def ratio_to_minimal(self, start: GatewayStart) -> float:
        return start.listed.median / self.minimal.median

    def met(self, start: GatewayStart) -> bool | None:
        return None if start.goal is None else self.ratio_to_minimal(start) <= start.goal

    @property
    def ratio_to_direct(self) -> float:
        """The gateway on the demo workspace, with its daemon running, against the two demo servers it replaces."""
        return self.gateway(DEMO, RUNNING).listed.median / self.direct.median

    @property
    def passed(self) -> bool:
        """Every start of this checkout (not `--other-gateway`'s) met its goal."""
        return all(self.met(start) is not False for start in self.gateways)


@dataclass(frozen=True)
class Timing:
    listed_ms: float
    initialized_ms: float
    searched_ms: float


async def gateway_startup(params: StdioServerParameters, errlog: TextIO) -> Timing:
    with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
        started = time.perf_counter()
        async with stdio_session(params, errlog) as gateway:
            initialized = time.perf_counter()
            listed = await gateway.list_tools()
            answered = time.perf_counter()
            found = await gateway.call_tool("search_tools", {"query": FIRST_QUERY})
            searched = time.perf_counter()
    if len(listed.tools) != META_TOOLS:
        raise BenchError(f"the gateway listed {len(listed.tools)} tools, not its four meta-tools")
    if found.is_error:
        raise BenchError(f"the gateway's first search failed: {text_of(found)[:300]!r}")
    return Timing(*((moment - started) * 1000 for moment in (answered, initialized, searched)))


async def minimal_startup(errlog: TextIO) -> float:
    params = StdioServerParameters(command=sys.executable, args=[str(MINIMAL_SERVER)], env=gateway_environment())
    with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
        started = time.perf_counter()
        async with stdio_session(params, errlog) as server:
            listed = await server.list_tools()
            answered = time.perf_counter()
    if len(listed.tools) != MINIMAL_TOOLS:
        raise BenchError(f"the minimal SDK server listed {len(listed.tools)} tools, not {MINIMAL_TOOLS}")
    return (answered - started) * 1000


async def direct_startup(entries: Mapping[str, Mapping[str, Any]], errlog: TextIO) -> float:
    """Every server spawned at once, as a client without the gateway starts them; done when all listed."""
    answered: list[float] = []

    async def start(entry: Mapping[str, Any]) -> None:
        async with stdio_session(direct_params(entry), errlog) as direct:
            if not (await direct.list_tools()).tools:
                raise BenchError(f"{entry['args']} listed no tools")
            answered.append(time.perf_counter())

    with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
        started = time.perf_counter()
        async with anyio.create_task_group() as group:
            for entry in entries.values():
                group.start_soon(start, entry)
    return (max(answered) - started) * 1000


def startup_workspaces(root: Path, demo_home: Path, spawn_log: Path) -> tuple[dict[str, Path], dict[str, str]]:
    """The three workspaces a gateway is timed on, each with a valid cache (the demo's is refreshed by the
    run), and what each serves; each has a copy (`cold_home`) that no session holds open."""
    empty, big = root / "startup-empty", root / "startup-catalog"
    write_config(empty, {})
    servers = load_catalog(DEFAULT_DATA_DIR / CATALOG)
    write_bench_workspace(big, servers, spawn_log=spawn_log)
    homes = {EMPTY: empty, DEMO: demo_home, BIG: big}
    for home in homes.values():  # the same config and cache: its fingerprints hold for the copy
        shutil.copytree(home, cold_home(home), dirs_exist_ok=True)
    tools = sum(len(server.tools) for server in servers)
    served = {
        EMPTY: "no server",
        DEMO: f"{', '.join(demo_entries(demo_home))}",
        BIG: f"{len(servers)} servers, {tools:,} tools cached",
    }
    return homes, served


def cold_home(home: Path) -> Path:
    return home.with_name(home.name + COLD_SUFFIX)


@dataclass(frozen=True)
class Program:
    """A gateway program and the runtime its daemons meet in."""

    argv: Sequence[str] | None
    """None: this checkout's (`gateway_program`)."""
    runtime: Runtime
    other: bool


@dataclass(frozen=True)
class Subject:
    program: Program
    home: Path
    """The workspace its session serves."""
    mode: Mode
    cold: bool
    """Its workspace's daemon is stopped after each start (none runs before the next)."""

    def params(self) -> StdioServerParameters:
        return gateway_parameters(self.home, self.program.runtime, self.mode, self.program.argv)

    async def start(self, errlog: TextIO) -> Timing:
        if self.cold:
            await stop_shared_daemon(self.program.runtime, self.home)
        try:
            return await gateway_startup(self.params(), errlog)
        finally:
            if self.cold:
                await stop_shared_daemon(self.program.runtime, self.home)


def subjects_of(program: Program, homes: Mapping[str, Path]) -> dict[str, Subject]:
    subjects: dict[str, Subject] = {}
    for workspace, home in homes.items():
        for kind, subject in (
            (RUNNING, Subject(program, home, SHARED, cold=False)),
            (COLD, Subject(program, cold_home(home), SHARED, cold=True)),
            (ALONE, Subject(program, home, STANDALONE, cold=False)),
        ):
            subjects[subject_label(workspace, kind, program.other)] = subject
    return subjects


async def hold_daemons(stack: AsyncExitStack, program: Program, homes: Mapping[str, Path], errlog: TextIO) -> None:
    """One idle session per workspace, open for the whole pair: the daemon runs for the other sessions."""
    for home in homes.values():
        client = await stack.enter_async_context(
            stdio_session(gateway_parameters(home, program.runtime, SHARED, program.argv), errlog)
        )
        await client.list_tools()


async def measure_startup(
    root: Path,
    demo_home: Path,
    runtime: Runtime,
    repeat: int,
    errlog: TextIO,
    *,
    other_gateway: Sequence[str] | None = None,
) -> StartupResult:
    spawn_log = root / "startup-catalog.spawns"
    homes, served = startup_workspaces(root, demo_home, spawn_log)
    entries = demo_entries(demo_home)
    minimal: list[float] = []
    direct: list[float] = []
    async with AsyncExitStack() as stack:
        programs = [Program(None, runtime, other=False)]
        if other_gateway is not None:
            programs.append(Program(other_gateway, await stack.enter_async_context(private_runtime()), other=True))
        subjects: dict[str, Subject] = {}
        for program in programs:
            await hold_daemons(stack, program, homes, errlog)
            subjects |= subjects_of(program, homes)
        timings: dict[str, list[Timing]] = {label: [] for label in subjects}
        for turn in range(repeat):
            for side in rotated([MINIMAL, DIRECT, *subjects], turn):
                if side == MINIMAL:
                    minimal.append(await minimal_startup(errlog))
                elif side == DIRECT:
                    direct.append(await direct_startup(entries, errlog))
                else:
                    timings[side].append(await subjects[side].start(errlog))
    if spawned(spawn_log):
        raise BenchError(f"a gateway started a server of the {CATALOG} workspace: its start-up was not measured alone")
    starts = tuple(
        GatewayStart(
            workspace,
            kind,
            program.other,
            sample([t.listed_ms for t in series]),
            sample([t.initialized_ms for t in series]),
            sample([t.searched_ms for t in series]),
        )
        for program in programs
        for workspace in WORKSPACES
        for kind in KINDS
        if (series := timings[subject_label(workspace, kind, program.other)])
    )
    return StartupResult(sample(minimal), sample(direct), starts, served)
