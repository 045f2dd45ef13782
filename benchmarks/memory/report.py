"""The memory report, as text (the table of configurations and phases, each run's idle reading, the
processes, the targets) or as one JSON object: both print the same numbers, and neither measures anything.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from benchmarks.memory.readings import (
    IDLE_MAX_SECONDS,
    IDLE_WAIT_SECONDS,
    QUIET_CPU_SECONDS,
    QUIET_WINDOW_SECONDS,
    Memory,
)
from benchmarks.memory.run import CATALOG_FILES, EMPTY, SEARCHES, Results
from benchmarks.memory.targets import (
    PHASES,
    RSS_TARGET_MB,
    TARGET_CONFIG,
    catalog_cost_mb,
    median_memory,
    passed,
    processes_started,
    target_rss,
)
from benchmarks.procfs import KIB_PER_MB

BARE_LABEL = 'python -c "import mcp"'


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
