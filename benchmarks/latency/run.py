"""One latency run: every pair chosen, in order (warm, cold, start-up, search, imports), in one scratch folder
that is removed afterwards, the stderr of every server and gateway kept in a log there so that a failure can
say why while that log still exists. Every gateway of the run meets its daemons in one runtime directory of
the run's own; between pairs every daemon there is stopped, so no pair finds another's running, and none is
left once the run ends.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import anyio

from benchmarks.bench_data import DEFAULT_DATA_DIR, spread_queries
from benchmarks.gateway_runtime import Runtime, private_runtime, stop_daemons
from benchmarks.gateway_session import compile_package, refresh_catalog
from benchmarks.latency.cold import ColdResult, measure_cold
from benchmarks.latency.failure import BenchError, failure
from benchmarks.latency.imports import ImportReport, measure_imports
from benchmarks.latency.search_round_trips import SearchResult, measure_search
from benchmarks.latency.startup import StartupResult, measure_startup
from benchmarks.latency.subjects import EVERYTHING_BIN, PLAIN_SDK_SERVER, demo_entries, targets, write_config
from benchmarks.latency.warm import WarmResult, measure_warm

PAIRS = ("warm", "cold", "startup", "search", "imports")


@dataclass(frozen=True)
class Options:
    calls: int
    repeat: int
    queries: int
    pairs: tuple[str, ...] = PAIRS
    """Which pairs to measure (all by default), always in the order of PAIRS."""
    other_gateway: tuple[str, ...] | None = None
    """Another gateway program whose start-up pair 3 times in the same rotation (an A/B against a checkout)."""


@dataclass
class Report:
    options: Options
    warm: list[WarmResult] = field(default_factory=list[WarmResult])
    cold: list[ColdResult] = field(default_factory=list[ColdResult])
    startup: StartupResult | None = None
    search: list[SearchResult] = field(default_factory=list[SearchResult])
    imports: ImportReport | None = None
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        """Every target measured was met: warm execute_tool (ratio, and added time of a trivial echo through the
        shared daemon), and start-up against the minimal SDK server (with the daemon running, and without)."""
        return all(r.passed for r in self.warm) and (self.startup is None or self.startup.passed)


async def measure_all(root: Path, options: Options, report: Report, errlog: TextIO) -> None:
    async with private_runtime() as runtime:
        await measure_pairs(root, runtime, options, report, errlog)


async def measure_pairs(root: Path, runtime: Runtime, options: Options, report: Report, errlog: TextIO) -> None:
    spawn_log = root / "fake.spawns"
    subjects = targets(spawn_log)
    calls_home, demo_home = root / "calls", root / "demo"
    write_config(calls_home, {target.server: target.entry for target in subjects})
    write_config(demo_home, demo_entries(demo_home))
    if {"warm", "cold"} & set(options.pairs):
        refresh_catalog(calls_home)
    refresh_catalog(demo_home)
    sdk_server = demo_entries(demo_home)[PLAIN_SDK_SERVER]
    if "warm" in options.pairs:
        report.warm = await measure_warm(calls_home, runtime, subjects, sdk_server, options.calls, errlog=errlog)
        await stop_daemons(runtime)
    if "cold" in options.pairs:
        report.cold = await measure_cold(calls_home, runtime, subjects, options.repeat, spawn_log, errlog=errlog)
        await stop_daemons(runtime)
    if "startup" in options.pairs:
        report.startup = await measure_startup(
            root, demo_home, runtime, options.repeat, errlog, other_gateway=options.other_gateway
        )
        await stop_daemons(runtime)
    if "search" in options.pairs:
        queries = spread_queries(DEFAULT_DATA_DIR, options.queries)
        report.search = await measure_search(root, runtime, queries, errlog)
        await stop_daemons(runtime)
    if "imports" in options.pairs:
        report.imports = await anyio.to_thread.run_sync(measure_imports, demo_home, runtime)


def run(options: Options) -> Report:
    if not EVERYTHING_BIN.exists():
        raise BenchError(
            f"{EVERYTHING_BIN} is missing; install it: "
            "npm install --prefix tests/e2e/peers --no-audit --no-fund --ignore-scripts"
        )
    report = Report(options)
    compile_package()
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
