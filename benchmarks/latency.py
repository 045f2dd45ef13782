"""Latency of the gateway against the same work done without it, each pair measured in the same run.

    python -m benchmarks.latency [--repeat N] [--calls N] [--queries N] [--json]

The machine is shared and noisy, so every gateway figure has its baseline measured in the same run,
interleaved with it (rotating blocks or alternating repeats), and compared by median:
1. warm `execute_tool` (server already running) vs the same `tools/call` straight to the server, for the
   fake fixture server's `echo` and server-everything's `echo`: `--calls` each (default 200) in rotating
   blocks of 10 after a warm-up, with two hop baselines in the same blocks: the gateway's own
   `tools/list` and a plain SDK server's `tools/list` (the demo toolbox, directly). Target: gateway
   <= 1.3x direct. CPU time per request of the answering process comes from /proc/PID/stat.
2. cold `execute_tool` (a fresh gateway with a valid cache, so nothing runs yet; its own start is not
   timed) vs spawn + initialize + call of the server directly: `--repeat` each (default 10).
3. start to an answered `tools/list`: the gateway on the demo workspace (`mcp-gateway demo`'s two
   servers, cache refreshed beforehand) vs both demo servers spawned in parallel, each initialized and
   listed: `--repeat` each.
4. `search_tools` round trips at 2,266 and 5,645 cached tools (bench-data catalogs served from cache, no
   server started) over `--queries` fixed queries from queries.jsonl, interleaved with trivial requests on
   the same connection (`tools/list`; `list_tools` of the smallest server, a tools/call like search); the
   time to an answered `initialize` and the first search, sent right after it, are reported apart.
5. start-up imports (`python -X importtime`, median of 3 runs): the console script's entry module, the
   SDK alone, and the real serve path cut where tools/list, a first search and a first call are answered;
   its start split by who caused each import, and the heaviest packages, each marked whether answering
   initialize/tools/list needs it and whether `import mcp` would import it anyway.

Needs the npm peer server-everything (`npm install --prefix tests/e2e/peers --no-audit --no-fund
--ignore-scripts`). About two minutes with the defaults. Exits 1 when the warm target is missed, 2 when
the benchmark could not run.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TextIO, cast

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from benchmarks.bench_data import DEFAULT_DATA_DIR, BenchServer, load_catalog, load_queries
from benchmarks.bench_workspace import spawned, write_bench_workspace
from benchmarks.gateway_session import gateway_command, gateway_environment, refresh_catalog
from mcp_gateway.cli.demo import DEMO_SERVERS

ROOT = Path(__file__).resolve().parent.parent
FAKE_SERVER = ROOT / "fixtures" / "fake_mcp_server.py"
EVERYTHING_BIN = ROOT / "tests" / "e2e" / "peers" / "node_modules" / ".bin" / "mcp-server-everything"
CATALOGS = ("catalog.json", "catalog-xl.json")
PLAIN_SDK_SERVER = "toolbox"
"""The demo server whose `tools/list` shows what one hop through a plain Python SDK server costs."""

WARM_TARGET_RATIO = 1.3
WARMUP_CALLS = 20
BLOCK_CALLS = 10
"""Calls per block in the warm comparison: short enough that a burst of noise hits every series alike."""
DEFAULT_CALLS = 200
DEFAULT_REPEAT = 10
DEFAULT_QUERIES = 200
IMPORT_RUNS = 3
HEAVIEST_SHOWN = 15
LATER_PACKAGES_SHOWN = 3
MIN_PHASE_MS_SHOWN = 1.0
SESSION_TIMEOUT_SECONDS = 120.0
"""Upper bound for one whole client session (start, calls, shutdown); a hang fails the run, never stalls it."""
SUBPROCESS_TIMEOUT_SECONDS = 120.0
ECHO_MESSAGE = "latency probe"
STDERR_LINES_SHOWN = 10
LABEL_WIDTH = 30
MS_PER_US = 1e-3
MS_PER_NS = 1e-6
NS_PER_SECOND = 1_000_000_000
PROTOCOL_VERSION = "2025-11-25"
INTERPRETER = "interpreter start-up (site, runpy)"
INTERPRETER_ROOTS = frozenset({"site", "encodings"})
"""Imports under these happen before any code of ours runs (.pth files, editable-install finders)."""
SDK_PACKAGES = frozenset({"mcp", "mcp_types"})
GATEWAY_PACKAGE = "mcp_gateway"

NOT_NEEDED_TO_LIST = {
    "rapidfuzz": "fuzzy matching: search_tools",
    "mcp_gateway.search": "the search index: search_tools",
    "jsonschema": "argument validation: execute_tool",
    "jsonschema_specifications": "argument validation: execute_tool",
    "referencing": "argument validation: execute_tool",
    "rpds": "argument validation: execute_tool",
    "attrs": "argument validation: execute_tool",
    "attr": "argument validation: execute_tool",
    "regex": "argument validation: execute_tool",
    "httpx2": "HTTP client: remote downstreams only",
    "httpcore2": "HTTP client: remote downstreams only",
    "h11": "HTTP client: remote downstreams only",
    "certifi": "HTTP client: remote downstreams only",
    "idna": "HTTP client: remote downstreams only",
    "mcp_gateway.downstream": "the pool's connections: execute_tool",
    "mcp_gateway.importers": "the import command only",
    "mcp_gateway.tokens": "token counts: demo and doctor only",
    "tiktoken": "token counts: demo and doctor only",
    "starlette": "the SDK's HTTP server side; the gateway serves stdio",
    "uvicorn": "the SDK's HTTP server side; the gateway serves stdio",
    "sse_starlette": "the SDK's HTTP server side; the gateway serves stdio",
    "python_multipart": "the SDK's HTTP server side; the gateway serves stdio",
    "multipart": "the SDK's HTTP server side; the gateway serves stdio",
    "click": "uvicorn's CLI, via the SDK's HTTP server side",
    "jwt": "the SDK's OAuth support",
    "cryptography": "the SDK's OAuth support",
    "opentelemetry": "the SDK's tracing hooks",
}
"""Packages that answering `initialize` and `tools/list` does not use, with what does use them."""


class BenchError(Exception):
    """The benchmark could not measure what it set out to (a server missing, a wrong result)."""


# Statistics.


@dataclass(frozen=True)
class Sample:
    """Durations in milliseconds."""

    values: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def p90(self) -> float:
        if len(self.values) == 1:
            return self.values[0]
        return statistics.quantiles(self.values, n=10, method="inclusive")[-1]

    def as_json(self) -> dict[str, float | int]:
        return {"median_ms": round(self.median, 3), "p90_ms": round(self.p90, 3), "n": len(self.values)}


def sample(values: Sequence[float]) -> Sample:
    if not values:
        raise BenchError("no measurement was taken")
    return Sample(tuple(values))


async def timed(step: Callable[[], Awaitable[object]]) -> float:
    started = time.perf_counter()
    await step()
    return (time.perf_counter() - started) * 1000


def rotated(items: Sequence[str], turn: int) -> list[str]:
    """`items` starting at a different one each turn, so none is always first after a pause."""
    shift = turn % len(items)
    return [*items[shift:], *items[:shift]]


# Servers and connections.


@dataclass(frozen=True)
class Target:
    """A downstream tool called both through the gateway and directly."""

    label: str
    server: str
    entry: dict[str, Any]
    tool: str
    arguments: dict[str, Any]
    expected: str
    """Text the result must contain: a wrong answer must never pass as a fast one."""

    @property
    def qualified(self) -> str:
        return f"{self.server}.{self.tool}"


def targets(spawn_log: Path) -> list[Target]:
    fake = {"command": sys.executable, "args": [str(FAKE_SERVER)], "env": {"FAKE_MCP_SPAWN_LOG": str(spawn_log)}}
    everything = {"command": str(EVERYTHING_BIN)}
    echo = {"message": ECHO_MESSAGE}
    return [
        Target("fake echo", "fake", fake, "echo", echo, ECHO_MESSAGE),
        Target("everything echo", "everything", everything, "echo", echo, ECHO_MESSAGE),
        # The same fixed cost set against a tool that does some work, as most real tools do.
        Target("fake sleep 10 ms", "fake", fake, "sleep", {"seconds": 0.01}, "slept 0.01"),
    ]


def demo_entries(home: Path) -> dict[str, dict[str, Any]]:
    """The servers `mcp-gateway demo` configures, as it configures them."""
    return {
        name: {
            "command": sys.executable,
            "args": ["-m", module],
            "env": {"DEMO_NOTES_DIR": str(home)},
            "aliases": aliases,
        }
        for name, (module, aliases) in DEMO_SERVERS.items()
    }


def write_config(home: Path, servers: Mapping[str, Mapping[str, Any]]) -> None:
    home.mkdir(parents=True, exist_ok=True)
    document = {"version": 1, "mcpServers": {name: dict(entry) for name, entry in servers.items()}}
    (home / "config.json").write_text(json.dumps(document, indent=2, ensure_ascii=False))


def gateway_params(home: Path) -> StdioServerParameters:
    command, *args = gateway_command(home)
    return StdioServerParameters(command=command, args=args, env=gateway_environment())


def direct_params(entry: Mapping[str, Any]) -> StdioServerParameters:
    # As the gateway starts it (inheritEnv defaults to true), so both sides run the same process.
    env = dict(os.environ) | cast(dict[str, str], entry.get("env", {}))
    return StdioServerParameters(command=entry["command"], args=list(entry.get("args", [])), env=env)


@asynccontextmanager
async def connect(params: StdioServerParameters, errlog: TextIO) -> AsyncGenerator[Client]:
    """An SDK client over stdio; the server's stderr goes to `errlog`, never into the report."""
    async with Client(stdio_client(params, errlog=errlog), mode="legacy", cache=None) as client:
        yield client


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(item.text for item in result.content if isinstance(item, types.TextContent))


def checked(result: types.CallToolResult, expected: str, what: str) -> types.CallToolResult:
    if result.is_error or expected not in text_of(result):
        raise BenchError(f"{what} returned an unexpected result: {text_of(result)[:300]!r}")
    return result


async def call_through_gateway(gateway: Client, target: Target) -> types.CallToolResult:
    result = await gateway.call_tool("execute_tool", {"tool": target.qualified, "arguments": target.arguments})
    return checked(result, target.expected, f"execute_tool {target.qualified}")


async def call_directly(direct: Client, target: Target) -> types.CallToolResult:
    result = await direct.call_tool(target.tool, target.arguments)
    return checked(result, target.expected, f"{target.label} called directly")


def child_pid(argument: str) -> int | None:
    """Our child process with `argument` in its command line; the SDK does not expose the process it started."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        # The command name may hold spaces and parentheses; the fields after the last ')' are fixed.
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        if parent == os.getpid() and argument in argv:
            return int(entry.name)
    return None


def cpu_ns(pid: int | None) -> int | None:
    """CPU time (user + system) of `pid` so far, threads that already exited included.

    /proc/PID/stat counts in clock ticks (10 ms); the per-thread schedstat counters are exact but forget
    a thread when it exits, and the fake server runs every call on a thread of its own. Summed over many
    blocks, the tick rounding stays within about 0.1 ms per request.
    """
    if pid is None:
        return None
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    utime, stime = stat[stat.rindex(")") + 2 :].split()[11:13]
    return (int(utime) + int(stime)) * NS_PER_SECOND // os.sysconf("SC_CLK_TCK")


# 1. Warm execute_tool.


@dataclass(frozen=True)
class Measured:
    latency: Sample
    cpu_ms: float | None
    """CPU time per request of the process answering it (the gateway for the gateway's rows, the server for
    direct rows), every thread included; None when /proc could not tell."""

    def as_json(self) -> dict[str, float | int | None]:
        return self.latency.as_json() | {"cpu_ms_per_request": None if self.cpu_ms is None else round(self.cpu_ms, 3)}


@dataclass(frozen=True)
class WarmResult:
    target: str
    gateway: Measured
    direct: Measured
    hop: Measured
    """The gateway's own `tools/list`: the client-gateway round trip with no downstream behind it."""
    sdk_hop: Measured
    """A plain SDK server's `tools/list` (the demo toolbox, directly): what one Python MCP hop costs."""

    @property
    def ratio(self) -> float:
        return self.gateway.latency.median / self.direct.latency.median

    @property
    def passed(self) -> bool:
        return self.ratio <= WARM_TARGET_RATIO


@dataclass(frozen=True)
class Side:
    """One series of the warm comparison: the request, and the process whose CPU it costs."""

    step: Callable[[], Awaitable[object]]
    pid: int | None


async def measure_series(sides: Mapping[str, Side], calls: int) -> dict[str, Measured]:
    """Every side in blocks of BLOCK_CALLS, rotating which goes first, so noise hits every side alike."""
    for _ in range(WARMUP_CALLS):
        for side in sides.values():
            await side.step()
    latencies: dict[str, list[float]] = {name: [] for name in sides}
    cpu: dict[str, list[int | None]] = {name: [] for name in sides}
    for block in range(math.ceil(calls / BLOCK_CALLS)):
        for name in rotated(list(sides), block):
            side = sides[name]
            before = cpu_ns(side.pid)
            for _ in range(BLOCK_CALLS):
                latencies[name].append(await timed(side.step))
            after = cpu_ns(side.pid)
            cpu[name].append(None if before is None or after is None else after - before)
    return {name: Measured(sample(latencies[name]), cpu_per_call_ms(cpu[name], len(latencies[name]))) for name in sides}


def cpu_per_call_ms(deltas: Sequence[int | None], calls: int) -> float | None:
    known = [delta for delta in deltas if delta is not None]
    return sum(known) * MS_PER_NS / calls if known and len(known) == len(deltas) else None


@dataclass(frozen=True)
class Reference:
    """The sides every target shares: the gateway (with its pid) and the plain SDK server."""

    gateway: Client
    gateway_pid: int | None
    sdk_server: Client
    sdk_server_pid: int | None


async def warm_pair(
    reference: Reference, direct: Client, direct_pid: int | None, target: Target, calls: int
) -> WarmResult:
    sides = {
        "gateway": Side(lambda: call_through_gateway(reference.gateway, target), reference.gateway_pid),
        "direct": Side(lambda: call_directly(direct, target), direct_pid),
        "hop": Side(reference.gateway.list_tools, reference.gateway_pid),
        "sdk_hop": Side(reference.sdk_server.list_tools, reference.sdk_server_pid),
    }
    measured = await measure_series(sides, calls)
    return WarmResult(target.label, measured["gateway"], measured["direct"], measured["hop"], measured["sdk_hop"])


def command_argument(entry: Mapping[str, Any]) -> str:
    """An argument that tells this server's process apart from our other children."""
    args = cast(list[str], entry.get("args", []))
    return args[-1] if args else cast(str, entry["command"])


async def measure_warm(
    home: Path, subjects: Sequence[Target], sdk_server: Mapping[str, Any], calls: int, errlog: TextIO
) -> list[WarmResult]:
    results: list[WarmResult] = []
    with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
        async with connect(gateway_params(home), errlog) as gateway, connect(direct_params(sdk_server), errlog) as sdk:
            reference = Reference(gateway, child_pid(str(home)), sdk, child_pid(command_argument(sdk_server)))
            for target in subjects:
                async with connect(direct_params(target.entry), errlog) as direct:
                    pid = child_pid(command_argument(target.entry))
                    results.append(await warm_pair(reference, direct, pid, target, calls))
    return results


# 2. Cold execute_tool.


@dataclass(frozen=True)
class ColdResult:
    target: str
    gateway: Sample
    direct: Sample

    @property
    def ratio(self) -> float:
        return self.gateway.median / self.direct.median


async def cold_through_gateway(home: Path, target: Target, spawn_log: Path, errlog: TextIO) -> float:
    """A fresh gateway is started first (not timed); then its first `execute_tool` wakes the server."""
    with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
        before = len(spawned(spawn_log))
        async with connect(gateway_params(home), errlog) as gateway:
            if len(spawned(spawn_log)) != before:
                raise BenchError("the gateway started a server before any call: the cold measurement is void")
            return await timed(lambda: call_through_gateway(gateway, target))


async def cold_directly(target: Target, errlog: TextIO) -> float:
    """Spawn, initialize and call; the shutdown that follows is not timed (nor is the gateway's)."""
    with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
        started = time.perf_counter()
        async with connect(direct_params(target.entry), errlog) as direct:
            await call_directly(direct, target)
            return (time.perf_counter() - started) * 1000


async def measure_cold(
    home: Path, subjects: Sequence[Target], repeat: int, spawn_log: Path, errlog: TextIO
) -> list[ColdResult]:
    series: dict[str, dict[str, list[float]]] = {t.label: {"gateway": [], "direct": []} for t in subjects}
    for turn in range(repeat):
        for target in subjects:
            for side in rotated(["gateway", "direct"], turn):
                if side == "gateway":
                    elapsed = await cold_through_gateway(home, target, spawn_log, errlog)
                else:
                    elapsed = await cold_directly(target, errlog)
                series[target.label][side].append(elapsed)
    return [ColdResult(label, sample(s["gateway"]), sample(s["direct"])) for label, s in series.items()]


# 3. Start-up to an answered tools/list.


@dataclass(frozen=True)
class StartupResult:
    gateway: Sample
    direct: Sample
    gateway_initialized: Sample
    """Of the gateway's total: until `initialize` was answered."""

    @property
    def ratio(self) -> float:
        return self.gateway.median / self.direct.median


async def gateway_startup(home: Path, errlog: TextIO) -> tuple[float, float]:
    with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
        started = time.perf_counter()
        async with connect(gateway_params(home), errlog) as gateway:
            initialized = time.perf_counter()
            listed = await gateway.list_tools()
            answered = time.perf_counter()
    if len(listed.tools) != 4:
        raise BenchError(f"the gateway listed {len(listed.tools)} tools, not its four meta-tools")
    return (answered - started) * 1000, (initialized - started) * 1000


async def direct_startup(entries: Mapping[str, Mapping[str, Any]], errlog: TextIO) -> float:
    """Every server spawned at once, as a client without the gateway starts them; done when all listed."""
    answered: list[float] = []

    async def start(entry: Mapping[str, Any]) -> None:
        async with connect(direct_params(entry), errlog) as direct:
            if not (await direct.list_tools()).tools:
                raise BenchError(f"{entry['args']} listed no tools")
            answered.append(time.perf_counter())

    with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
        started = time.perf_counter()
        async with anyio.create_task_group() as group:
            for entry in entries.values():
                group.start_soon(start, entry)
    return (max(answered) - started) * 1000


async def measure_startup(home: Path, repeat: int, errlog: TextIO) -> StartupResult:
    entries = demo_entries(home)
    gateway: list[float] = []
    initialized: list[float] = []
    direct: list[float] = []
    for turn in range(repeat):
        for side in rotated(["gateway", "direct"], turn):
            if side == "gateway":
                total, init = await gateway_startup(home, errlog)
                gateway.append(total)
                initialized.append(init)
            else:
                direct.append(await direct_startup(entries, errlog))
    return StartupResult(sample(gateway), sample(direct), sample(initialized))


# 4. search_tools at scale.


@dataclass(frozen=True)
class SearchResult:
    catalog: str
    servers: int
    tools: int
    initialized_ms: float
    """From spawning the gateway to its answer to `initialize`."""
    first_search_ms: float
    """Sent as soon as `initialize` was answered: it waits for cache.json to be read and indexed."""
    search: Sample
    tools_list: Sample
    list_tools: Sample
    list_tools_server: str
    list_tools_count: int
    servers_started: int


def query_sample(count: int) -> list[str]:
    """Every k-th query of queries.jsonl: fixed from run to run, and spread over every source."""
    queries = load_queries(DEFAULT_DATA_DIR / "queries.jsonl")
    stride = max(len(queries) // max(count, 1), 1)
    return [query.text for query in queries[::stride][:count]]


async def search_session(
    catalog: str, servers: Sequence[BenchServer], queries: Sequence[str], root: Path, errlog: TextIO
) -> SearchResult:
    home, spawn_log = root / catalog.removesuffix(".json"), root / f"{catalog}.spawns"
    write_bench_workspace(home, servers, spawn_log=spawn_log)
    small = min((server for server in servers if server.tools), key=lambda server: (len(server.tools), server.name))
    series: dict[str, list[float]] = {"search": [], "tools/list": [], "list_tools": []}
    with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
        started = time.perf_counter()
        async with connect(gateway_params(home), errlog) as gateway:
            initialized_ms = (time.perf_counter() - started) * 1000

            async def step(name: str, query: str) -> object:
                if name == "tools/list":
                    return await gateway.list_tools()
                if name == "search":
                    result = await gateway.call_tool("search_tools", {"query": query})
                else:
                    result = await gateway.call_tool("list_tools", {"server": small.name})
                if result.is_error:
                    raise BenchError(f"{name} failed: {text_of(result)[:300]!r}")
                return result

            first_search_ms = await timed(lambda: step("search", queries[0]))
            for turn, query in enumerate(queries):
                for name in rotated(list(series), turn):
                    series[name].append(await timed(functools.partial(step, name, query)))
    return SearchResult(
        catalog=catalog,
        servers=len(servers),
        tools=sum(len(server.tools) for server in servers),
        initialized_ms=initialized_ms,
        first_search_ms=first_search_ms,
        search=sample(series["search"]),
        tools_list=sample(series["tools/list"]),
        list_tools=sample(series["list_tools"]),
        list_tools_server=small.name,
        list_tools_count=len(small.tools),
        servers_started=len(spawned(spawn_log)),
    )


async def measure_search(root: Path, queries: Sequence[str], errlog: TextIO) -> list[SearchResult]:
    results: list[SearchResult] = []
    for catalog in CATALOGS:
        servers = load_catalog(DEFAULT_DATA_DIR / catalog)
        results.append(await search_session(catalog, servers, queries, root, errlog))
    return results


# 5. Start-up imports.

IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)\s*$")


@dataclass(frozen=True)
class Imported:
    """One line of `-X importtime`: printed when the import completed, children before their parent."""

    name: str
    self_us: int
    cumulative_us: int
    depth: int


@dataclass(frozen=True)
class ImportTree:
    nodes: tuple[Imported, ...]
    parents: tuple[int | None, ...]

    def ancestry(self, index: int) -> Iterator[int]:
        """`index`, then its parent, up to the top-level import."""
        current: int | None = index
        while current is not None:
            yield current
            current = self.parents[current]


def parse_importtime(lines: Sequence[str]) -> list[Imported]:
    nodes: list[Imported] = []
    for line in lines:
        match = IMPORT_LINE.match(line)
        if match:
            self_us, cumulative_us, indent, name = match.groups()
            nodes.append(Imported(name, int(self_us), int(cumulative_us), len(indent) // 2))
    return nodes


def import_tree(nodes: Sequence[Imported]) -> ImportTree:
    parents: list[int | None] = [None] * len(nodes)
    pending: dict[int, list[int]] = {}
    for index, node in enumerate(nodes):
        for child in pending.pop(node.depth + 1, []):
            parents[child] = index
        pending.setdefault(node.depth, []).append(index)
    return ImportTree(tuple(nodes), tuple(parents))


def package_of(module: str) -> str:
    """The unit a cost is charged to: the top-level package, or the subpackage inside the gateway."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == GATEWAY_PACKAGE and len(parts) > 1 else parts[0]


def is_stdlib(package: str) -> bool:
    return package.split(".", maxsplit=1)[0] in sys.stdlib_module_names


@dataclass(frozen=True)
class PackageCost:
    own_us: int
    """Its modules' self time plus that of the stdlib modules it was first to import."""
    inclusive_us: int
    """With everything it imported (nested packages included), counted once per outermost import."""
    pulled_in_by: str


def package_costs(tree: ImportTree) -> dict[str, PackageCost]:
    own: dict[str, int] = {}
    inclusive: dict[str, int] = {}
    pulled_in_by: dict[str, str] = {}
    for index, node in enumerate(tree.nodes):
        chain = [package_of(tree.nodes[i].name) for i in tree.ancestry(index)]
        charged = INTERPRETER
        if chain[-1] not in INTERPRETER_ROOTS:
            charged = next((package for package in chain if not is_stdlib(package)), INTERPRETER)
        own[charged] = own.get(charged, 0) + node.self_us
        package = chain[0]
        if package not in chain[1:]:  # outermost import of this package: its cumulative time counts once
            inclusive[package] = inclusive.get(package, 0) + node.cumulative_us
            parent = tree.parents[index]
            pulled_in_by.setdefault(package, "(top level)" if parent is None else tree.nodes[parent].name)
    return {
        package: PackageCost(us, inclusive.get(package, 0), pulled_in_by.get(package, ""))
        for package, us in own.items()
    }


def bucket_of(tree: ImportTree, index: int) -> str:
    chain = [package_of(tree.nodes[i].name) for i in tree.ancestry(index)]
    if chain[-1] in INTERPRETER_ROOTS:
        return INTERPRETER
    if any(package.split(".")[0] in SDK_PACKAGES for package in chain):
        return "the SDK (mcp, mcp_types) and all it imported"
    if chain[0].startswith(GATEWAY_PACKAGE):
        return "mcp_gateway's own modules"
    if any(package.startswith(GATEWAY_PACKAGE) for package in chain):
        return "third-party and stdlib imported by mcp_gateway"
    return INTERPRETER


def buckets(tree: ImportTree) -> dict[str, int]:
    """Self times grouped by who caused the import; the groups add up to the total."""
    totals: dict[str, int] = {}
    for index, node in enumerate(tree.nodes):
        bucket = bucket_of(tree, index)
        totals[bucket] = totals.get(bucket, 0) + node.self_us
    return totals


def importtime(argv: Sequence[str]) -> list[Imported]:
    """What `python -X importtime ARGV` imported; the self times add up to the total."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *argv],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_SECONDS,
        env=gateway_environment(),
        check=False,
        cwd=ROOT,
    )
    nodes = parse_importtime(done.stderr.splitlines())
    if done.returncode != 0 or not nodes:
        raise BenchError(f"python -X importtime {' '.join(argv)} failed ({done.returncode}): {done.stderr[-500:]}")
    return nodes


SERVE_PHASES = ("start to tools/list answered", "first search_tools", "first execute_tool", "shutdown")


class TracedGateway:
    """`python -X importtime -m mcp_gateway` driven by hand-written JSON-RPC lines, its stderr merged into
    its stdout: the pipe keeps the order of writes, so every import line read before a response was
    imported before that response was sent."""

    def __init__(self, home: Path) -> None:
        command = [sys.executable, "-X", "importtime", "-m", GATEWAY_PACKAGE, "--home", str(home)]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=gateway_environment(),
            cwd=ROOT,
        )
        self._stdin = cast(IO[bytes], self.process.stdin)
        self._stdout = cast(IO[bytes], self.process.stdout)
        self._next_id = 0

    def send(self, message: Mapping[str, Any]) -> None:
        self._stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        self._stdin.flush()

    def request(self, method: str, params: Mapping[str, Any]) -> list[str]:
        """Send a request; the import lines printed until its response arrived."""
        self._next_id += 1
        self.send({"id": self._next_id, "method": method, "params": dict(params)})
        imports: list[str] = []
        for raw in self._stdout:
            line = raw.decode(errors="replace")
            if line.startswith("import time:"):
                imports.append(line)
            elif line.startswith("{") and self._answers(line, self._next_id):
                return imports
        raise BenchError(f"the traced gateway exited before answering {method}")

    def finish(self) -> list[str]:
        """Close stdin (the client leaves); the import lines printed until the process exited."""
        self._stdin.close()
        imports = [line.decode(errors="replace") for line in self._stdout]
        self.process.wait(timeout=SUBPROCESS_TIMEOUT_SECONDS)
        return [line for line in imports if line.startswith("import time:")]

    @staticmethod
    def _answers(line: str, request_id: int) -> bool:
        try:
            message = cast(dict[str, Any], json.loads(line))
        except ValueError:
            return False
        if "error" in message:
            raise BenchError(f"the traced gateway answered with an error: {line[:300]}")
        return message.get("id") == request_id and "result" in message


def trace_serve_path(home: Path) -> list[list[str]]:
    """Import lines of each of SERVE_PHASES, from one real gateway session on the demo workspace."""
    gateway = TracedGateway(home)
    # A hung gateway would block the reads below forever; killing it ends them with EOF.
    watchdog = threading.Timer(SUBPROCESS_TIMEOUT_SECONDS, gateway.process.kill)
    watchdog.start()
    try:
        client = {"name": "latency-bench", "version": "1"}
        initialize = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": client}
        started = gateway.request("initialize", initialize)
        gateway.send({"method": "notifications/initialized"})
        started += gateway.request("tools/list", {})
        search = gateway.request("tools/call", {"name": "search_tools", "arguments": {"query": "add a note"}})
        call = {"tool": "toolbox.convert_temperature", "arguments": {"value": 30, "from_unit": "C", "to_unit": "F"}}
        execute = gateway.request("tools/call", {"name": "execute_tool", "arguments": call})
        return [started, search, execute, gateway.finish()]
    finally:
        watchdog.cancel()
        if gateway.process.poll() is None:
            gateway.process.kill()
            gateway.process.wait()


@dataclass(frozen=True)
class ImportReport:
    cli_entry_ms: float
    sdk_alone_ms: float
    sdk_packages: frozenset[str]
    """Every package `import mcp` imports on its own: the gateway cannot keep these off its start-up path."""
    avoidable: list[tuple[str, float]]
    """Packages on the start-up path that tools/list does not need and the SDK does not import (own ms)."""
    phases_ms: dict[str, float]
    phase_packages: dict[str, list[tuple[str, float]]]
    """Per phase after the start, its heaviest packages (own ms)."""
    buckets_ms: dict[str, float]
    heaviest: list[tuple[str, float, float, str]]
    """(package, own ms, inclusive ms, pulled in by), median over the runs, heaviest own time first."""


def median_of(runs: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Per key, the median over runs (a key missing from a run counts as 0 there)."""
    keys = dict.fromkeys(key for run in runs for key in run)
    return {key: statistics.median(run.get(key, 0.0) for run in runs) for key in keys}


def heaviest_first(costs: Mapping[str, float], count: int) -> list[tuple[str, float]]:
    return sorted(costs.items(), key=lambda item: item[1], reverse=True)[:count]


@dataclass
class ImportRuns:
    """Each run's figures, keyed as reported; medians are taken over these."""

    cli: list[float] = field(default_factory=list[float])
    sdk: list[float] = field(default_factory=list[float])
    phases: list[dict[str, float]] = field(default_factory=list[dict[str, float]])
    phase_own: dict[str, list[dict[str, float]]] = field(default_factory=dict[str, list[dict[str, float]]])
    buckets: list[dict[str, float]] = field(default_factory=list[dict[str, float]])
    own: list[dict[str, float]] = field(default_factory=list[dict[str, float]])
    inclusive: list[dict[str, float]] = field(default_factory=list[dict[str, float]])
    pulled_in_by: dict[str, str] = field(default_factory=dict[str, str])
    sdk_packages: set[str] = field(default_factory=set[str])

    def add_cli_and_sdk(self, cli: Sequence[Imported], sdk: Sequence[Imported]) -> None:
        self.cli.append(sum(node.self_us for node in cli) * MS_PER_US)
        self.sdk.append(sum(node.self_us for node in sdk) * MS_PER_US)
        self.sdk_packages |= {package_of(node.name) for node in sdk}

    def add_serve_path(self, traced: Sequence[Sequence[str]]) -> None:
        trees = [import_tree(parse_importtime(lines)) for lines in traced]
        self.phases.append(
            {name: sum(n.self_us for n in t.nodes) * MS_PER_US for name, t in zip(SERVE_PHASES, trees, strict=True)}
        )
        for name, tree in zip(SERVE_PHASES[1:], trees[1:], strict=True):
            costs = {package: cost.own_us * MS_PER_US for package, cost in package_costs(tree).items()}
            self.phase_own.setdefault(name, []).append(costs)
        start = trees[0]
        self.buckets.append({name: us * MS_PER_US for name, us in buckets(start).items()})
        costs = package_costs(start)
        self.own.append({package: cost.own_us * MS_PER_US for package, cost in costs.items()})
        self.inclusive.append({package: cost.inclusive_us * MS_PER_US for package, cost in costs.items()})
        self.pulled_in_by |= {package: cost.pulled_in_by for package, cost in costs.items()}


def measure_imports(demo_home: Path) -> ImportReport:
    runs = ImportRuns()
    for _ in range(IMPORT_RUNS):
        runs.add_cli_and_sdk(importtime(["-c", "import mcp_gateway.cli"]), importtime(["-c", "import mcp"]))
        runs.add_serve_path(trace_serve_path(demo_home))
    own, inclusive = median_of(runs.own), median_of(runs.inclusive)
    own.pop(INTERPRETER, None)  # reported among the causes, not a package anyone could defer
    avoidable = {p: value for p, value in own.items() if p in NOT_NEEDED_TO_LIST and p not in runs.sdk_packages}
    return ImportReport(
        cli_entry_ms=statistics.median(runs.cli),
        sdk_alone_ms=statistics.median(runs.sdk),
        sdk_packages=frozenset(runs.sdk_packages),
        avoidable=heaviest_first(avoidable, len(avoidable)),
        phases_ms=median_of(runs.phases),
        phase_packages={
            phase: heaviest_first(median_of(per_run), LATER_PACKAGES_SHOWN) for phase, per_run in runs.phase_own.items()
        },
        buckets_ms=median_of(runs.buckets),
        heaviest=[
            (package, value, inclusive.get(package, 0.0), runs.pulled_in_by.get(package, ""))
            for package, value in heaviest_first(own, HEAVIEST_SHOWN)
        ],
    )


def needed_to_list(package: str, sdk_packages: frozenset[str]) -> str:
    reason = NOT_NEEDED_TO_LIST.get(package)
    if reason is None:
        return "yes"
    if package in sdk_packages:
        return f"no, but `import mcp` imports it anyway ({reason})"
    return f"NO, avoidable ({reason})"


# The run.


@dataclass(frozen=True)
class Options:
    calls: int
    repeat: int
    queries: int


@dataclass
class Report:
    options: Options
    warm: list[WarmResult] = field(default_factory=list[WarmResult])
    cold: list[ColdResult] = field(default_factory=list[ColdResult])
    startup: StartupResult | None = None
    search: list[SearchResult] = field(default_factory=list[SearchResult])
    imports: ImportReport | None = None
    seconds: float = 0.0


async def measure_all(root: Path, options: Options, report: Report, errlog: TextIO) -> None:
    spawn_log = root / "fake.spawns"
    subjects = targets(spawn_log)
    calls_home, demo_home = root / "calls", root / "demo"
    write_config(calls_home, {target.server: target.entry for target in subjects})
    write_config(demo_home, demo_entries(demo_home))
    refresh_catalog(calls_home)
    refresh_catalog(demo_home)
    sdk_server = demo_entries(demo_home)[PLAIN_SDK_SERVER]
    report.warm = await measure_warm(calls_home, subjects, sdk_server, options.calls, errlog)
    report.cold = await measure_cold(calls_home, subjects, options.repeat, spawn_log, errlog)
    report.startup = await measure_startup(demo_home, options.repeat, errlog)
    report.search = await measure_search(root, query_sample(options.queries), errlog)
    report.imports = await anyio.to_thread.run_sync(measure_imports, demo_home)


def run(options: Options) -> Report:
    if not EVERYTHING_BIN.exists():
        raise BenchError(
            f"{EVERYTHING_BIN} is missing; install it: "
            "npm install --prefix tests/e2e/peers --no-audit --no-fund --ignore-scripts"
        )
    report = Report(options)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mcp-gateway-latency-", ignore_cleanup_errors=True) as directory:
        root = Path(directory)
        stderr_log = root / "stderr.log"
        with stderr_log.open("w") as errlog:
            try:
                anyio.run(measure_all, root, options, report, errlog)
            except Exception as error:  # a server or gateway that died: say why while its stderr still exists
                raise BenchError(failure(error, stderr_log)) from error
    report.seconds = time.perf_counter() - started
    return report


def leaf_messages(error: BaseException) -> list[str]:
    """The errors inside (nested) exception groups, as task groups raise them."""
    if isinstance(error, BaseExceptionGroup):
        group = cast(BaseExceptionGroup[BaseException], error)
        return [message for inner in group.exceptions for message in leaf_messages(inner)]
    return [str(error) if isinstance(error, BenchError) else f"{type(error).__name__}: {error}"]


def failure(error: Exception, stderr_log: Path) -> str:
    stderr = stderr_log.read_text(errors="replace").splitlines()[-STDERR_LINES_SHOWN:]
    shown = "".join(f"\n  {line}" for line in stderr)
    return "; ".join(leaf_messages(error)) + (
        f"\nlast lines the servers and gateways wrote to stderr:{shown}" if shown else ""
    )


# Output.


def report_json(report: Report) -> dict[str, Any]:
    """Everything measured, as the --json object; the text report prints the same numbers."""
    data: dict[str, Any] = {"options": vars(report.options), "seconds": round(report.seconds, 1)}
    data["warm_execute"] = [
        {
            "target": r.target,
            "gateway": r.gateway.as_json(),
            "direct": r.direct.as_json(),
            "gateway_tools_list": r.hop.as_json(),
            "plain_sdk_server_tools_list": r.sdk_hop.as_json(),
            "ratio": round(r.ratio, 3),
            "target_ratio": WARM_TARGET_RATIO,
            "passed": r.passed,
        }
        for r in report.warm
    ]
    data["cold_execute"] = [
        {"target": r.target, "gateway": r.gateway.as_json(), "direct": r.direct.as_json(), "ratio": round(r.ratio, 3)}
        for r in report.cold
    ]
    if report.startup is not None:
        s = report.startup
        data["startup_to_tools_list"] = {
            "gateway": s.gateway.as_json(),
            "gateway_initialize": s.gateway_initialized.as_json(),
            "direct_both_demo_servers": s.direct.as_json(),
            "ratio": round(s.ratio, 3),
        }
    data["search"] = [
        {
            "catalog": r.catalog,
            "servers": r.servers,
            "tools": r.tools,
            "initialize_ms": round(r.initialized_ms, 1),
            "first_search_ms": round(r.first_search_ms, 2),
            "search_tools": r.search.as_json(),
            "tools_list": r.tools_list.as_json(),
            "list_tools": r.list_tools.as_json() | {"server": r.list_tools_server, "tools": r.list_tools_count},
            "servers_started": r.servers_started,
        }
        for r in report.search
    ]
    if report.imports is not None:
        i = report.imports
        data["imports"] = {
            "cli_entry_ms": round(i.cli_entry_ms, 1),
            "sdk_alone_ms": round(i.sdk_alone_ms, 1),
            "serve_phases_ms": {name: round(value, 1) for name, value in i.phases_ms.items()},
            "later_phase_packages_ms": {
                phase: {package: round(value, 1) for package, value in packages}
                for phase, packages in i.phase_packages.items()
            },
            "start_by_cause_ms": {name: round(value, 1) for name, value in i.buckets_ms.items()},
            "avoidable_at_start_ms": {package: round(value, 1) for package, value in i.avoidable},
            "heaviest": [
                {
                    "package": package,
                    "own_ms": round(own, 1),
                    "inclusive_ms": round(inclusive, 1),
                    "pulled_in_by": by,
                    "needed_for_initialize_and_tools_list": needed_to_list(package, i.sdk_packages),
                }
                for package, own, inclusive, by in i.heaviest
            ],
        }
    return data


def ms(value: float) -> str:
    return f"{value:,.1f} ms" if value < 100 else f"{value:,.0f} ms"


def row(label: str, series: Sample) -> str:
    return f"    {label:<{LABEL_WIDTH}}{ms(series.median):>11}{ms(series.p90):>11}{len(series.values):>6}"


def header(extra: str = "") -> str:
    return f"    {'':<{LABEL_WIDTH}}{'median':>11}{'p90':>11}{'n':>6}{extra}"


def figure(label: str, value: str, note: str = "") -> str:
    """One derived figure, aligned with the median column of `row`."""
    return f"    {label:<{LABEL_WIDTH}}{value:>11}" + (f"   {note}" if note else "")


def cpu_row(label: str, measured: Measured) -> str:
    cpu = "" if measured.cpu_ms is None else f"{ms(measured.cpu_ms):>12}"
    return row(label, measured.latency) + cpu


def print_warm(report: Report) -> None:
    options = report.options
    print(
        f"1. Warm execute_tool vs the same tools/call made directly ({options.calls} calls each, "
        f"rotating blocks of {BLOCK_CALLS}, after {WARMUP_CALLS} warm-up calls)"
    )
    print("  (CPU/req: CPU time of the answering process, the gateway on its rows, the server on the others)")
    print(header(extra=f"{'CPU/req':>12}"))
    for r in report.warm:
        print(f"  {r.target}")
        print(cpu_row("through the gateway", r.gateway))
        print(cpu_row("direct", r.direct))
        print(cpu_row("gateway tools/list (hop)", r.hop))
        print(cpu_row("plain SDK server tools/list", r.sdk_hop))
        added = r.gateway.latency.median - r.direct.latency.median
        verdict = "PASS" if r.passed else "MISS"
        print(figure("added by the gateway", ms(added), "(median difference)"))
        print(figure("ratio gateway/direct", f"{r.ratio:.2f}x", f"target <= {WARM_TARGET_RATIO}x: {verdict}"))
    print()


def print_cold(report: Report) -> None:
    print(
        f"2. Cold execute_tool (fresh gateway, valid cache, server not running) vs spawn + initialize + call "
        f"directly ({report.options.repeat} each)"
    )
    print(header())
    for r in report.cold:
        print(f"  {r.target}")
        print(row("through the gateway", r.gateway))
        print(row("direct", r.direct))
        print(figure("ratio gateway/direct", f"{r.ratio:.2f}x"))
    print()


def print_startup(report: Report) -> None:
    s = report.startup
    if s is None:
        return
    print(
        f"3. Start to an answered tools/list, demo workspace ({', '.join(DEMO_SERVERS)}), {report.options.repeat} each"
    )
    print(header())
    print(row("gateway", s.gateway))
    print(row("  of which to initialize", s.gateway_initialized))
    print(row("both servers directly", s.direct))
    print(figure("ratio gateway/direct", f"{s.ratio:.2f}x"))
    print()


def print_search(report: Report) -> None:
    print(
        f"4. search_tools round trip vs trivial requests on the same connection "
        f"({report.options.queries} queries from queries.jsonl, interleaved)"
    )
    for r in report.search:
        print(f"  {r.catalog}: {r.servers} servers, {r.tools:,} tools cached; servers started: {r.servers_started}")
        print(figure("spawn to initialize answered", ms(r.initialized_ms)))
        print(figure("first search, sent right then", ms(r.first_search_ms)))
        print(figure("spawn to first search answered", ms(r.initialized_ms + r.first_search_ms)))
        print(header())
        print(row("search_tools", r.search))
        print(row("tools/list", r.tools_list))
        print(row(f"list_tools ({r.list_tools_count}-tool server)", r.list_tools))
        print(figure("search minus list_tools", ms(r.search.median - r.list_tools.median), "(median difference)"))
    print()


def print_imports(report: Report) -> None:
    i = report.imports
    if i is None:
        return
    print(f"5. Start-up imports (python -X importtime, median of {IMPORT_RUNS} runs; importtime adds its own overhead)")
    print(f"  import mcp_gateway.cli (the console script's entry)   {ms(i.cli_entry_ms):>10}")
    print(f"  import mcp (the SDK alone)                            {ms(i.sdk_alone_ms):>10}")
    print("  serving the demo workspace (python -m mcp_gateway), imports per phase:")
    for name, value in i.phases_ms.items():
        packages = ", ".join(f"{p} {ms(v)}" for p, v in i.phase_packages.get(name, []) if v >= MIN_PHASE_MS_SHOWN)
        print(f"    {name:<50}  {ms(value):>10}" + (f"  ({packages})" if packages else ""))
    print("  start to tools/list answered, by who caused each import:")
    for name, value in sorted(i.buckets_ms.items(), key=lambda item: -item[1]):
        print(f"    {name:<50}  {ms(value):>10}")
    print(f"  the {HEAVIEST_SHOWN} heaviest packages before tools/list was answered")
    print("  (own: its modules plus the stdlib modules it was first to import; incl.: with all it imported)")
    print(f"    {'package':<26}{'own':>10}{'incl.':>10}  {'first imported by':<36}needed to answer tools/list?")
    for package, own, inclusive, by in i.heaviest:
        print(
            f"    {package:<26}{ms(own):>10}{ms(inclusive):>10}  {by[:35]:<36}{needed_to_list(package, i.sdk_packages)}"
        )
    total = sum(value for _, value in i.avoidable)
    names = ", ".join(f"{package} {ms(value)}" for package, value in i.avoidable)
    print(f"  avoidable on the start-up path (not needed for tools/list, not imported by the SDK): {ms(total)}")
    print(f"    {names or 'none'}")
    print()


def print_report(report: Report) -> None:
    print(f"mcp-gateway latency: gateway vs direct, same run ({report.seconds:.0f} s, {os.cpu_count()} CPUs)")
    print()
    print_warm(report)
    print_cold(report)
    print_startup(report)
    print_search(report)
    print_imports(report)
    misses = [r.target for r in report.warm if not r.passed]
    print(f"verdict: warm execute_tool {'MISS (' + ', '.join(misses) + ')' if misses else 'PASS'}")


def parse_options(argv: Sequence[str] | None) -> tuple[Options, bool]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.latency", description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--calls", type=int, default=DEFAULT_CALLS, help=f"warm calls per side (default {DEFAULT_CALLS})"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=DEFAULT_REPEAT,
        help=f"cold and start-up repeats per side (default {DEFAULT_REPEAT})",
    )
    parser.add_argument(
        "--queries", type=int, default=DEFAULT_QUERIES, help=f"search queries (default {DEFAULT_QUERIES})"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    args = parser.parse_args(argv)
    if min(args.calls, args.repeat, args.queries) < 1:
        parser.error("--calls, --repeat and --queries must be positive")
    return Options(args.calls, args.repeat, args.queries), args.json


def main(argv: Sequence[str] | None = None) -> int:
    options, as_json = parse_options(argv)
    try:
        report = run(options)
    except BenchError as error:
        print(f"latency benchmark could not run: {error}", file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(report_json(report), indent=2, ensure_ascii=False))
    else:
        print_report(report)
    return 0 if all(r.passed for r in report.warm) else 1


if __name__ == "__main__":
    raise SystemExit(main())
