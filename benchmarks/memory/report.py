"""The memory report, as text (what a session holds in each mode, the daemon by phase, each run's idle reading,
the processes, the targets) or as one JSON object: both print the same numbers, and neither measures anything.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from benchmarks.gateway_runtime import SHARED, Mode
from benchmarks.memory.readings import (
    IDLE_MAX_SECONDS,
    IDLE_WAIT_SECONDS,
    QUIET_CPU_SECONDS,
    QUIET_WINDOW_SECONDS,
    Memory,
)
from benchmarks.memory.run import CATALOG_FILES, CONFIGS, SEARCHES, Results
from benchmarks.memory.session import DAEMON_GRACE_SECONDS
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
PARTS = ("front", "daemon", "total")


def config_summary(results: Results, config: str, mode: Mode) -> dict[str, Any]:
    runs = results.of(config, mode)
    return {
        "tools": results.tools[config],
        "cache_json_mb": round(results.cache_mb[config], 2),
        "runs": len(runs),
        **{phase: {part: rounded(asdict(median_memory(runs, phase, part))) for part in PARTS} for phase in PHASES},
        "idle_total_rss_by_run_mb": [round(run.readings.idle.total.rss_mb, 1) for run in runs],
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


def bare(results: Results) -> float:
    return statistics.median(results.bare_rss)


def report_json(data: Path, results: Results) -> dict[str, Any]:
    return {
        "data": str(data),
        "rounds": len(results.bare_rss),
        "searches": SEARCHES,
        "idle_min_wait_seconds": IDLE_WAIT_SECONDS,
        "idle_max_wait_seconds": IDLE_MAX_SECONDS,
        "bare_import_mcp_rss_mb": round(bare(results), 1),
        "modes": {
            mode: {
                "configurations": {config: config_summary(results, config, mode) for config in CONFIGS},
                "catalog_cost_idle_rss_mb": {
                    name: round(catalog_cost_mb(results, name, mode), 1) for name in CATALOG_FILES
                },
                "target_idle_rss_mb": round(target_rss(results, mode), 1),
            }
            for mode in results.modes
        },
        "processes_started": processes_started(results),
        "target_idle_rss_limit_mb": RSS_TARGET_MB,
        "target_config": TARGET_CONFIG,
        "passed": passed(results),
    }


def holding_rows(results: Results) -> Iterator[str]:
    """Per configuration, what one idle session holds in each mode: front, daemon, both, and both over a bare
    `import mcp` process."""
    for config in CONFIGS:
        cache = f"{results.cache_mb[config]:.1f}" if results.tools[config] else "-"
        cells = ""
        for mode in results.modes:
            runs = results.of(config, mode)
            front, daemon, total = (median_memory(runs, "idle", part).rss_mb for part in PARTS)
            cells += f"  |{front:>7.1f}{daemon:>8.1f}{total:>8.1f}{total / bare(results):>7.1f}x"
        yield f"{config:<18}{results.tools[config]:>7,}{cache:>7}{cells}"


def memory_cells(memory: Memory) -> str:
    return f"{memory.rss_mb:>9.1f}{memory.anon_mb:>7.1f}"


def daemon_rows(results: Results) -> Iterator[str]:
    for mode in results.modes:
        for config in CONFIGS:
            runs = results.of(config, mode)
            idle, one, many = (median_memory(runs, phase, "daemon") for phase in PHASES)
            cells = f"{memory_cells(idle)}{memory_cells(one)}{memory_cells(many)}{many.hwm_mb:>8.1f}"
            yield f"{mode:<11}{config:<18}{cells}"


def print_report(data: Path, results: Results) -> None:
    rounds = len(results.bare_rss)
    print(
        f"mcp-gateway resident memory in MB, median of {rounds} fresh sessions per configuration and mode, each in a "
        f"runtime of its own (a shared daemon starts cold for it); data: {data}"
    )
    print(f"{BARE_LABEL}: {bare(results):.1f} MB (the scale: x columns are total / this)")
    print()
    print("what the machine holds for one idle session (RSS): its front and its daemon")
    heads = "".join(f"  |{mode:^31}" for mode in results.modes)
    parts = "".join(f"  |{'front':>7}{'daemon':>8}{'total':>8}{'x mcp':>7}" for _ in results.modes)
    print(f"{'':<32}{heads}")
    print(f"{'configuration':<18}{'tools':>7}{'cache':>7}{parts}")
    for row in holding_rows(results):
        print(row)
    if SHARED in results.modes:
        front = median_memory(results.of(TARGET_CONFIG, SHARED), "idle", "front").rss_mb
        print(f"(each further session of a workspace adds one front, {front:.1f} MB; standalone, a front and a daemon)")
    print()
    print("the daemon by phase (RSS = VmRSS, anon = RssAnon, the private heap; peak = VmHWM at the end)")
    print(f"{'':<29}{'idle':>16}{'1 search':>16}{f'{SEARCHES} searches':>16}")
    phase_columns = f"{'RSS':>9}{'anon':>7}" * len(PHASES)
    print(f"{'mode':<11}{'configuration':<18}{phase_columns}{'peak':>8}")
    for row in daemon_rows(results):
        print(row)
    print(
        f"(idle: read after tools/list once front and daemon are quiet, <= {QUIET_CPU_SECONDS:g} s of CPU in "
        f"{QUIET_WINDOW_SECONDS:g} s, and at least {IDLE_WAIT_SECONDS:g} s later)"
    )
    print()
    for mode in results.modes:
        for name in CATALOG_FILES:
            cost = catalog_cost_mb(results, name, mode)
            per_tool = cost * KIB_PER_MB / results.tools[name]
            print(f"catalog cost at idle over the empty config, {mode}: {name} {cost:+.1f} MB ({per_tool:.1f} KB/tool)")
    for mode in results.modes:
        for config in CONFIGS:
            runs = results.of(config, mode)
            rss = " ".join(f"{run.readings.idle.total.rss_mb:.1f}" for run in runs)
            settled = " ".join(settled_text(run.readings.settled_after) for run in runs)
            print(f"idle, each run, {mode}, {config}: total RSS {rss}; read after {settled} s")
    late = sum(run.readings.loading_after_idle for run in results.runs)
    print(f"runs whose first search still saw a catalog loading (idle read too early): {late}")
    print_processes(results)
    print()
    print("targets")
    for mode in results.modes:
        rss = target_rss(results, mode)
        label = f"{mode}: front + daemon idle with {TARGET_CONFIG} ({results.tools[TARGET_CONFIG]:,} tools)"
        label += f" <= {RSS_TARGET_MB:g} MB"
        print(f"  {label:<78}{rss:>8.1f}  {'PASS' if rss <= RSS_TARGET_MB else 'MISS'}")
    started = processes_started(results)
    label = "processes started or left behind by search-only sessions = 0"
    print(f"  {label:<78}{started:>8}  {'PASS' if started == 0 else 'MISS'}")


def print_processes(results: Results) -> None:
    spawns = sum(run.spawn_log_entries for run in results.runs)
    seen = sum(len(run.descendants) for run in results.runs)
    left = sum(len(run.left_after) for run in results.runs)
    print(
        f"processes started over {len(results.runs)} sessions (besides each session's front and daemon): "
        f"spawn-log entries {spawns}, started by a front or a daemon {seen}; processes naming the workspace "
        f"after the session (the shared daemon's grace, {DAEMON_GRACE_SECONDS:g} s, passed) {left}"
    )
    for run in results.runs:
        for pid, cmd in run.descendants.items():
            print(f"  {run.mode}, {run.config}: started pid {pid}: {cmd}")
        for line in run.left_after:
            print(f"  {run.mode}, {run.config}: left after the session: {line}")
