"""The figures the memory benchmark is judged by: medians over the runs of each configuration, what a
catalog costs over the empty gateway, and the targets (idle RSS with catalog-xl.json, no process started).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from benchmarks.memory.readings import Memory
from benchmarks.memory.run import EMPTY, Results
from benchmarks.memory.session import Run

RSS_TARGET_MB = 120.0
TARGET_CONFIG = "catalog-xl.json"
PHASES = ("idle", "one_search", "searches")


def median_memory(runs: Sequence[Run], phase: str) -> Memory:
    readings: list[Memory] = [getattr(run.readings, phase) for run in runs]
    return Memory(
        statistics.median(m.rss_mb for m in readings),
        statistics.median(m.anon_mb for m in readings),
        statistics.median(m.hwm_mb for m in readings),
    )


def catalog_cost_mb(results: Results, config: str) -> float:
    return median_memory(results.of(config), "idle").rss_mb - median_memory(results.of(EMPTY), "idle").rss_mb


def target_rss(results: Results) -> float:
    return median_memory(results.of(TARGET_CONFIG), "idle").rss_mb


def processes_started(results: Results) -> int:
    return sum(run.processes for run in results.runs)


def passed(results: Results) -> bool:
    return target_rss(results) <= RSS_TARGET_MB and processes_started(results) == 0
