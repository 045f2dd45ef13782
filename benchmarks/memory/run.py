"""Every configuration (the empty config, catalog.json, catalog-xl.json) in every mode (through the shared
daemon, as a user has it, and standalone) run `rounds` times, taking turns so that a noisy minute on the
shared machine spreads over all of them, with a bare `import mcp` each round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.bench_data import BenchServer, load_catalog, spread_queries
from benchmarks.gateway_runtime import Mode
from benchmarks.memory.readings import bare_import_rss
from benchmarks.memory.session import Run, run_gateway
from benchmarks.procfs import KIB_PER_MB
from mcp_gateway.paths import Workspace

CATALOG_FILES = ("catalog.json", "catalog-xl.json")
EMPTY = "empty config"
CONFIGS = (EMPTY, *CATALOG_FILES)
SEARCHES = 50


@dataclass
class Results:
    modes: tuple[Mode, ...]
    runs: list[Run] = field(default_factory=list[Run])
    bare_rss: list[float] = field(default_factory=list[float])
    tools: dict[str, int] = field(default_factory=dict[str, int])
    cache_mb: dict[str, float] = field(default_factory=dict[str, float])

    def of(self, config: str, mode: Mode) -> list[Run]:
        return [run for run in self.runs if run.config == config and run.mode == mode]


async def measure_all(data: Path, scratch: Path, rounds: int, modes: Sequence[Mode]) -> Results:
    configs: dict[str, list[BenchServer]] = {EMPTY: []}
    configs |= {name: load_catalog(data / name) for name in CATALOG_FILES}
    queries = spread_queries(data, SEARCHES)
    tools = {name: sum(len(server.tools) for server in servers) for name, servers in configs.items()}
    results = Results(tuple(modes), tools=tools)
    # Configurations and modes take turns, so a noisy minute on the shared machine spreads over all of them.
    for round_number in range(rounds):
        results.bare_rss.append(await bare_import_rss())
        for name, servers in configs.items():
            for mode in modes:
                home = scratch / f"{name.replace(' ', '-')}-{mode}-{round_number}"
                results.runs.append(await run_gateway(name, servers, home, queries, mode))
                cache = Workspace.from_environment(home).cache_path
                results.cache_mb[name] = cache.stat().st_size / KIB_PER_MB / KIB_PER_MB if cache.exists() else 0.0
    return results
