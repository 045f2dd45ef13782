"""Pair 3: start to an answered `tools/list`, every subject in one interleaved rotation.

The subjects: the smallest Python SDK server (`benchmarks/minimal_sdk_server.py`, the target: a gateway
should answer no later than it), the gateway on an empty config, on the demo workspace and on the
2,266-tool catalog.json workspace (each with a valid cache, so that nothing is started and a big catalog
cannot hide behind the demo), and both demo servers spawned in parallel, each initialized and listed, as
a client without the gateway starts them. `--other-gateway PROGRAM` adds the same three workspaces served
by another gateway program (a checkout of main, say) to the same rotation, for an A/B.

For each gateway the time to an answered `initialize` is reported apart, and so is the time until it
answers a `search_tools` sent right after `tools/list` (what a model calls first): the gateway answers
its handshake before its catalog and search index are ready, so an early answer cannot hide a later
readiness.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio
from mcp import StdioServerParameters

from benchmarks.bench_data import DEFAULT_DATA_DIR, load_catalog
from benchmarks.bench_workspace import spawned, write_bench_workspace
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
CATALOG = "catalog.json"
FIRST_QUERY = "add two numbers"

MINIMAL = "minimal Python SDK server"
DIRECT = "both demo servers directly"
EMPTY, DEMO, BIG = "empty config", "demo workspace", f"{CATALOG} workspace"
WORKSPACES = (EMPTY, DEMO, BIG)


@dataclass(frozen=True)
class GatewayStart:
    label: str
    listed: Sample
    initialized: Sample
    """Of `listed`: until `initialize` was answered."""
    searched: Sample
    """Until a `search_tools` sent right after `tools/list` was answered (it waits for the catalog's index)."""


@dataclass(frozen=True)
class StartupResult:
    minimal: Sample
    direct: Sample
    gateways: tuple[GatewayStart, ...]
    workspaces: Mapping[str, str]
    """Per workspace label, what it serves."""

    def gateway(self, label: str) -> GatewayStart:
        return next(start for start in self.gateways if start.label == label)

    def ratio_to_minimal(self, start: GatewayStart) -> float:
        return start.listed.median / self.minimal.median

    @property
    def ratio_to_direct(self) -> float:
        """The gateway on the demo workspace against the two demo servers it replaces."""
        return self.gateway(DEMO).listed.median / self.direct.median

    @property
    def passed(self) -> bool:
        """Every gateway of this checkout (not `--other-gateway`'s) answered no later than the minimal server."""
        return all(self.ratio_to_minimal(self.gateway(label)) <= TARGET_RATIO for label in WORKSPACES)


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
    run), and what each serves."""
    empty, big = root / "startup-empty", root / "startup-catalog"
    write_config(empty, {})
    servers = load_catalog(DEFAULT_DATA_DIR / CATALOG)
    write_bench_workspace(big, servers, spawn_log=spawn_log)
    homes = {EMPTY: empty, DEMO: demo_home, BIG: big}
    tools = sum(len(server.tools) for server in servers)
    served = {
        EMPTY: "no server",
        DEMO: f"{', '.join(demo_entries(demo_home))}",
        BIG: f"{len(servers)} servers, {tools:,} tools cached",
    }
    return homes, served


OTHER_SUFFIX = " (other gateway)"


def other_label(label: str) -> str:
    return label + OTHER_SUFFIX


async def measure_startup(
    root: Path, demo_home: Path, repeat: int, errlog: TextIO, *, other_gateway: Sequence[str] | None = None
) -> StartupResult:
    spawn_log = root / "startup-catalog.spawns"
    homes, served = startup_workspaces(root, demo_home, spawn_log)
    gateways: dict[str, StdioServerParameters] = {label: gateway_parameters(home) for label, home in homes.items()}
    if other_gateway is not None:
        gateways |= {other_label(label): gateway_parameters(home, other_gateway) for label, home in homes.items()}
    entries = demo_entries(demo_home)
    minimal: list[float] = []
    direct: list[float] = []
    timings: dict[str, list[Timing]] = {label: [] for label in gateways}
    for turn in range(repeat):
        for side in rotated([MINIMAL, DIRECT, *gateways], turn):
            if side == MINIMAL:
                minimal.append(await minimal_startup(errlog))
            elif side == DIRECT:
                direct.append(await direct_startup(entries, errlog))
            else:
                timings[side].append(await gateway_startup(gateways[side], errlog))
    if spawned(spawn_log):
        raise BenchError(f"a gateway started a server of the {CATALOG} workspace: its start-up was not measured alone")
    starts = tuple(
        GatewayStart(
            label,
            sample([t.listed_ms for t in series]),
            sample([t.initialized_ms for t in series]),
            sample([t.searched_ms for t in series]),
        )
        for label, series in timings.items()
    )
    return StartupResult(sample(minimal), sample(direct), starts, served)
