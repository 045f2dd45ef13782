"""Resident memory of the real gateway process serving big cached catalogs, and the processes it starts.

    python -m benchmarks.memory [--json] [--data DIR] [--rounds 3]

Each configuration runs in a fresh `mcp-gateway --home HOME` process on a fresh workspace whose cache.json
holds the catalog (`bench_workspace`), driven by the official SDK client: the empty config (no servers: the
gateway's own cost), catalog.json (2,266 tools) and catalog-xl.json (5,645 tools), from `../shared/bench-data`.
VmRSS (and RssAnon) and VmHWM (the peak so far) are read from /proc/<gateway pid>/status:
- idle: after connecting and one `tools/list`, once the gateway has gone quiet: it reads cache.json and runs
  its startup check in the background after answering `initialize`, so the reading waits (at least 2 s) until
  the gateway uses no CPU for half a second; the first search then confirms that nothing was still loading;
- after one `search_tools`, and after 50 (different public queries, default limit).
A bare `python -c "import mcp"` process is measured in the same run, for scale. The machine is shared and
noisy: the configurations take turns, each is run `--rounds` times, and the report gives the medians.

Processes: a search-only session must start none. Counted are the spawn-log entries (every catalog server
would start the fake fixture server, which logs its pid), every descendant of the gateway seen by sampling
/proc during the session, and every process still naming the workspace after it. Target: idle RSS <= 120 MB
with catalog-xl.json cached. Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from benchmarks.bench_data import DEFAULT_DATA_DIR, BenchServer, load_catalog, load_queries
from benchmarks.bench_workspace import spawned, write_bench_workspace
from benchmarks.gateway_session import GatewaySessionError, gateway_client, search, wait_for_gateway_pid
from benchmarks.procfs import (
    KIB_PER_MB,
    command_line,
    cpu_seconds,
    descendants,
    environment,
    memory_mb,
    process_parents,
)
from mcp_gateway.paths import Workspace

CATALOG_FILES = ("catalog.json", "catalog-xl.json")
EMPTY = "empty config"
QUERIES_FILE = "queries.jsonl"
ROUNDS = 3
SEARCHES = 50
IDLE_WAIT_SECONDS = 2.0
"""Least wait after `tools/list` before the idle reading: the gateway reads cache.json and runs its startup
check in the background after answering `initialize`."""
IDLE_MAX_SECONDS = 20.0
"""Most wait for the gateway to go quiet; a reading taken then is flagged as not settled."""
QUIET_WINDOW_SECONDS = 0.5
QUIET_CPU_SECONDS = 0.02
"""At most this much CPU time in one window counts as quiet: the background load is CPU-bound."""
SAMPLE_SECONDS = 0.1
"""How often /proc is scanned for descendants of the gateway during a session."""
BARE_SECONDS = 30.0
"""Upper bound for the bare `import mcp` process to say it is ready."""
BARE_PROGRAM = "import sys, mcp; print('ready', flush=True); sys.stdin.read()"
"""`python -c "import mcp"`, kept alive until we have read its memory."""
BARE_LABEL = 'python -c "import mcp"'

RSS_TARGET_MB = 120.0
TARGET_CONFIG = "catalog-xl.json"
GATEWAY_STDERR = "gateway.stderr.log"


# Memory and processes, from /proc.


@dataclass(frozen=True)
class Memory:
    rss_mb: float
    anon_mb: float
    """The private heap part of RSS: what the catalog and the index cost, without shared libraries."""
    hwm_mb: float


def memory_of(pid: int) -> Memory:
    sizes = memory_mb(pid)
    return Memory(sizes["VmRSS"], sizes["RssAnon"], sizes["VmHWM"])


def naming(marker: str) -> set[int]:
    """Live processes whose command line or environment names `marker` (spawned servers carry the workspace
    path in their spawn-log variable); orphans are found this way too, whoever their parent is now."""
    found: set[int] = set()
    for pid in process_parents():
        with contextlib.suppress(OSError):  # gone, or not ours to read
            if marker in " ".join(command_line(pid)) or marker.encode() in environment(pid):
                found.add(pid)
    return found


@dataclass
class ProcessWatch:
    """Every descendant of the gateway seen while the session ran, with its command line."""

    seen: dict[int, str] = field(default_factory=dict[int, str])

    async def watch(self, gateway_pid: int) -> None:
        while True:
            for pid in descendants(gateway_pid) - self.seen.keys():
                self.seen[pid] = " ".join(command_line(pid)).strip()
            await anyio.sleep(SAMPLE_SECONDS)


# One gateway run.


@dataclass(frozen=True)
class Readings:
    idle: Memory
    settled_after: float | None
    """Seconds after `tools/list` until the gateway went quiet and `idle` was read; None: it never did."""
    one_search: Memory
    searches: Memory
    loading_after_idle: bool
    """The first search said a catalog was still loading: the idle reading was taken too early."""


@dataclass(frozen=True)
class Run:
    config: str
    readings: Readings
    spawn_log_entries: int
    descendants: dict[int, str]
    left_after: list[str]

    @property
    def processes(self) -> int:
        return self.spawn_log_entries + len(self.descendants) + len(self.left_after)


async def settle(pid: int) -> float | None:
    """Wait until the gateway has been quiet (no background load using CPU) for one window, at least
    `IDLE_WAIT_SECONDS` after now; the seconds that took, or None if it never went quiet."""
    started = anyio.current_time()
    await anyio.sleep(IDLE_WAIT_SECONDS - QUIET_WINDOW_SECONDS)
    with anyio.move_on_after(IDLE_MAX_SECONDS):
        while True:
            before = cpu_seconds(pid)
            await anyio.sleep(QUIET_WINDOW_SECONDS)
            after = cpu_seconds(pid)
            if before is None or after is None:
                raise GatewaySessionError(f"the gateway (pid {pid}) exited while idle")
            if after - before <= QUIET_CPU_SECONDS:
                return anyio.current_time() - started
    return None


async def drive(client: Client, pid: int, queries: Sequence[str]) -> Readings:
    await client.list_tools()
    settled = await settle(pid)
    idle = memory_of(pid)
    first = await search(client, queries[0])
    one_search = memory_of(pid)
    for query in queries[1:]:
        await search(client, query)
    return Readings(idle, settled, one_search, memory_of(pid), first.still_loading)


async def run_gateway(config: str, servers: Sequence[BenchServer], home: Path, queries: Sequence[str]) -> Run:
    """A fresh gateway on a fresh workspace: idle, one search, then the rest of `queries`."""
    spawn_log = home / "spawns.log"
    write_bench_workspace(home, servers, spawn_log=spawn_log)
    watch = ProcessWatch()
    readings: Readings | None = None
    with (home / GATEWAY_STDERR).open("w") as errlog:
        async with gateway_client(home, errlog) as client, anyio.create_task_group() as watchers:
            pid = await wait_for_gateway_pid(home)
            watchers.start_soon(watch.watch, pid)
            readings = await drive(client, pid, queries)
            watchers.cancel_scope.cancel()
    if readings is None:
        raise GatewaySessionError(f"the session with the gateway serving {home} ended early")
    # The client has left and the gateway has exited: anything still naming the workspace outlived it.
    left = sorted(naming(str(home)))
    return Run(
        config=config,
        readings=readings,
        spawn_log_entries=len(spawned(spawn_log)),
        descendants=watch.seen,
        left_after=[f"pid {pid}: {' '.join(command_line(pid)).strip()}" for pid in left],
    )


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


# All runs.


@dataclass
class Results:
    runs: list[Run] = field(default_factory=list[Run])
    bare_rss: list[float] = field(default_factory=list[float])
    tools: dict[str, int] = field(default_factory=dict[str, int])
    cache_mb: dict[str, float] = field(default_factory=dict[str, float])

    def of(self, config: str) -> list[Run]:
        return [run for run in self.runs if run.config == config]


def spread_queries(data: Path, count: int) -> list[str]:
    """`count` public queries taken evenly across the file, so every source and kind is represented."""
    texts = [query.text for query in load_queries(data / QUERIES_FILE)]
    step = max(len(texts) // count, 1)
    return texts[::step][:count]


async def measure_all(data: Path, scratch: Path, rounds: int) -> Results:
    configs: dict[str, list[BenchServer]] = {EMPTY: []}
    configs |= {name: load_catalog(data / name) for name in CATALOG_FILES}
    queries = spread_queries(data, SEARCHES)
    results = Results(tools={name: sum(len(s.tools) for s in servers) for name, servers in configs.items()})
    # Configurations take turns, so a noisy minute on the shared machine spreads over all of them.
    for round_number in range(rounds):
        results.bare_rss.append(await bare_import_rss())
        for name, servers in configs.items():
            home = scratch / f"{name.replace(' ', '-')}-{round_number}"
            results.runs.append(await run_gateway(name, servers, home, queries))
            cache = Workspace.from_environment(home).cache_path
            results.cache_mb[name] = cache.stat().st_size / KIB_PER_MB / KIB_PER_MB if cache.exists() else 0.0
    return results


# Output.


def median_memory(runs: Sequence[Run], phase: str) -> Memory:
    readings: list[Memory] = [getattr(run.readings, phase) for run in runs]
    return Memory(
        statistics.median(m.rss_mb for m in readings),
        statistics.median(m.anon_mb for m in readings),
        statistics.median(m.hwm_mb for m in readings),
    )


PHASES = ("idle", "one_search", "searches")


def config_summary(results: Results, config: str) -> dict[str, Any]:
    runs = results.of(config)
    return {
        "tools": results.tools[config],
        "cache_json_mb": round(results.cache_mb[config], 2),
        "runs": len(runs),
        **{phase: rounded(asdict(median_memory(runs, phase))) for phase in PHASES},
        "idle_rss_by_run_mb": [round(run.readings.idle.rss_mb, 1) for run in runs],
        "idle_settled_after_s": [_round(run.readings.settled_after) for run in runs],
        "loading_after_idle": sum(run.readings.loading_after_idle for run in runs),
        "spawn_log_entries": sum(run.spawn_log_entries for run in runs),
        "descendants": [cmd for run in runs for cmd in run.descendants.values()],
        "left_after": [line for run in runs for line in run.left_after],
    }


def settled_text(seconds: float | None) -> str:
    return f"{seconds:.1f}" if seconds is not None else f"never quiet within {IDLE_MAX_SECONDS:g}"


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def rounded(values: dict[str, float]) -> dict[str, float]:
    return {key: round(value, 1) for key, value in values.items()}


def catalog_cost_mb(results: Results, config: str) -> float:
    return median_memory(results.of(config), "idle").rss_mb - median_memory(results.of(EMPTY), "idle").rss_mb


def target_rss(results: Results) -> float:
    return median_memory(results.of(TARGET_CONFIG), "idle").rss_mb


def processes_started(results: Results) -> int:
    return sum(run.processes for run in results.runs)


def passed(results: Results) -> bool:
    return target_rss(results) <= RSS_TARGET_MB and processes_started(results) == 0


def report_json(data: Path, results: Results) -> dict[str, Any]:
    configs = [EMPTY, *CATALOG_FILES]
    return {
        "data": str(data),
        "rounds": len(results.bare_rss),
        "searches": SEARCHES,
        "idle_min_wait_seconds": IDLE_WAIT_SECONDS,
        "idle_max_wait_seconds": IDLE_MAX_SECONDS,
        "bare_import_mcp_rss_mb": round(statistics.median(results.bare_rss), 1),
        "configurations": {config: config_summary(results, config) for config in configs},
        "catalog_cost_idle_rss_mb": {name: round(catalog_cost_mb(results, name), 1) for name in CATALOG_FILES},
        "processes_started": processes_started(results),
        "target_idle_rss_mb": RSS_TARGET_MB,
        "target_config": TARGET_CONFIG,
        "passed": passed(results),
    }


def memory_cells(memory: Memory) -> str:
    return f"{memory.rss_mb:>9.1f}{memory.anon_mb:>7.1f}"


def print_rows(results: Results) -> Iterator[str]:
    bare = statistics.median(results.bare_rss)
    yield f"{BARE_LABEL:<24}{'':>7}{'':>8}{bare:>9.1f}"
    for config in (EMPTY, *CATALOG_FILES):
        runs = results.of(config)
        idle, one, many = (median_memory(runs, phase) for phase in PHASES)
        cache = f"{results.cache_mb[config]:.1f}" if results.tools[config] else "-"
        yield (
            f"{config:<24}{results.tools[config]:>7,}{cache:>8}{memory_cells(idle)}{memory_cells(one)}"
            f"{memory_cells(many)}{many.hwm_mb:>8.1f}"
        )


def print_report(data: Path, results: Results) -> None:
    rounds = len(results.bare_rss)
    print(f"mcp-gateway resident memory in MB, median of {rounds} fresh processes each; data: {data}")
    print()
    print(f"{'':<39}{'idle':>16}{'1 search':>16}{f'{SEARCHES} searches':>16}")
    phase_columns = f"{'RSS':>9}{'anon':>7}" * len(PHASES)
    print(f"{'configuration':<24}{'tools':>7}{'cache':>8}{phase_columns}{'peak':>8}")
    for row in print_rows(results):
        print(row)
    print("(cache: cache.json size; RSS = VmRSS, anon = RssAnon (private heap); peak = VmHWM at the end)")
    print(
        f"(idle: read after tools/list once the gateway is quiet, <= {QUIET_CPU_SECONDS:g} s of CPU in "
        f"{QUIET_WINDOW_SECONDS:g} s, and at least {IDLE_WAIT_SECONDS:g} s later)"
    )
    print()
    for name in CATALOG_FILES:
        cost = catalog_cost_mb(results, name)
        per_tool = cost * KIB_PER_MB / results.tools[name]
        print(f"catalog cost at idle, over the empty gateway: {name} {cost:+.1f} MB ({per_tool:.1f} KB per tool)")
    for config in (EMPTY, *CATALOG_FILES):
        runs = results.of(config)
        rss = " ".join(f"{run.readings.idle.rss_mb:.1f}" for run in runs)
        settled = " ".join(settled_text(run.readings.settled_after) for run in runs)
        print(f"idle, each run, {config}: RSS {rss}; read after {settled} s")
    late = sum(run.readings.loading_after_idle for run in results.runs)
    print(f"runs whose first search still saw a catalog loading (idle read too early): {late}")
    print_processes(results)
    print()
    print("targets")
    rss = target_rss(results)
    label = f"idle RSS with {TARGET_CONFIG} ({results.tools[TARGET_CONFIG]:,} tools) <= {RSS_TARGET_MB:g} MB"
    print(f"  {label:<60}{rss:>8.1f}  {'PASS' if rss <= RSS_TARGET_MB else 'MISS'}")
    started = processes_started(results)
    label = "processes started by search-only sessions = 0"
    print(f"  {label:<60}{started:>8}  {'PASS' if started == 0 else 'MISS'}")


def print_processes(results: Results) -> None:
    spawns = sum(run.spawn_log_entries for run in results.runs)
    seen = sum(len(run.descendants) for run in results.runs)
    left = sum(len(run.left_after) for run in results.runs)
    print(
        f"processes started by the gateway over {len(results.runs)} sessions: spawn-log entries {spawns}, "
        f"descendants seen during sessions {seen}, processes naming the workspace afterwards {left}"
    )
    for run in results.runs:
        for pid, cmd in run.descendants.items():
            print(f"  {run.config}: descendant pid {pid}: {cmd}")
        for line in run.left_after:
            print(f"  {run.config}: left after the session: {line}")


# Entry point.


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.memory", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR, help="the bench-data folder")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"runs per configuration (default {ROUNDS})")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be positive")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    data: Path = args.data
    with tempfile.TemporaryDirectory(prefix="mcp-gateway-memory-", ignore_cleanup_errors=True) as scratch:
        try:
            results = anyio.run(measure_all, data, Path(scratch), args.rounds)
        except GatewaySessionError as error:
            print(f"memory benchmark could not run: {error}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(report_json(data, results), indent=2))
    else:
        print_report(data, results)
    return 0 if passed(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
