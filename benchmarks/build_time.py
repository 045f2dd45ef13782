"""One index build of a catalog, timed in a process of its own: what a gateway pays when it loads a catalog.

    python -m benchmarks.build_time CATALOG.json      → one JSON line: {side: [wall s, CPU s], ...}

A build inside a process that has already built an index reuses what the first build cached (each distinct run of
letters analysed once, the lexicon's tables, the glossaries), so only a fresh process times what a gateway starting
on a catalog does. `fresh_builds` runs this several times, for the median: the machines are shared, and one build's
CPU time varies by half from run to run.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.baseline_bm25 import PlainBM25
from benchmarks.bench_data import BenchServer, load_catalog
from benchmarks.repo_paths import ROOT
from mcp_gateway.catalog import search_entry
from mcp_gateway.search import SearchEngine, ServerEntry

BUILD_TIMEOUT_SECONDS = 300.0
"""A build of catalog-xl.json takes about 2 s with the process start; a bound, not an expectation."""


@dataclass(frozen=True)
class FreshBuilds:
    """Each side's build times over the runs, in seconds: `cpu` and `wall` lists in run order."""

    cpu: dict[str, list[float]]
    wall: dict[str, list[float]]

    def median_cpu(self, side: str) -> float:
        return statistics.median(self.cpu[side])


def build_engine(servers: Sequence[BenchServer]) -> SearchEngine:
    engine = SearchEngine()
    with engine.batch():  # as the gateway loads a catalog from cache.json
        for server in servers:
            entries = [search_entry(server.name, tool) for tool in server.tools]
            engine.replace_server(ServerEntry(server.name, server.aliases), entries)
    return engine


def time_builds(catalog: Path) -> dict[str, tuple[float, float]]:
    """Wall-clock and CPU seconds of building the gateway's index, then plain BM25's, in this process."""
    servers = load_catalog(catalog)
    times: dict[str, tuple[float, float]] = {}
    started, started_cpu = time.perf_counter(), time.thread_time()
    build_engine(servers)
    times["gateway"] = (time.perf_counter() - started, time.thread_time() - started_cpu)
    started, started_cpu = time.perf_counter(), time.thread_time()
    PlainBM25(servers)
    times["plain BM25"] = (time.perf_counter() - started, time.thread_time() - started_cpu)
    return times


def fresh_builds(catalog: Path, runs: int) -> FreshBuilds:
    """`runs` builds of `catalog`, each in a new Python process."""
    builds = FreshBuilds({}, {})
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-m", "benchmarks.build_time", str(catalog)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=BUILD_TIMEOUT_SECONDS,
        )
        for side, (wall, cpu) in json.loads(done.stdout).items():
            builds.wall.setdefault(side, []).append(wall)
            builds.cpu.setdefault(side, []).append(cpu)
    return builds


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if len(arguments) != 1:
        print("usage: python -m benchmarks.build_time CATALOG.json", file=sys.stderr)
        return 2
    print(json.dumps(time_builds(Path(arguments[0]))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
