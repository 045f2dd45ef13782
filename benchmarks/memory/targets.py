"""The figures the memory benchmark is judged by: medians over the runs of each configuration and mode, what a
catalog costs over the empty gateway, and the targets (what a session holds idle with catalog-xl.json, front and
daemon together, in each mode; no process started or left behind).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Literal

from benchmarks.gateway_runtime import Mode
from benchmarks.memory.readings import Memory
from benchmarks.memory.run import EMPTY, Results
from benchmarks.memory.session import Reading, Run

RSS_TARGET_MB = 120.0
TARGET_CONFIG = "catalog-xl.json"
PHASES = ("idle", "one_search", "searches")
Part = Literal["front", "daemon", "total"]


def part_of(reading: Reading, part: Part) -> Memory:
    return reading.total if part == "total" else getattr(reading, part)


def median_memory(runs: Sequence[Run], phase: str, part: Part = "total") -> Memory:
    readings: list[Memory] = [part_of(getattr(run.readings, phase), part) for run in runs]
    return Memory(
        statistics.median(m.rss_mb for m in readings),
        statistics.median(m.anon_mb for m in readings),
        statistics.median(m.hwm_mb for m in readings),
    )


def catalog_cost_mb(results: Results, config: str, mode: Mode) -> float:
    """What the catalog adds to the session at idle, over the empty config (it is all the daemon's)."""
    idle = median_memory(results.of(config, mode), "idle").rss_mb
    return idle - median_memory(results.of(EMPTY, mode), "idle").rss_mb


def target_rss(results: Results, mode: Mode) -> float:
    return median_memory(results.of(TARGET_CONFIG, mode), "idle").rss_mb


def processes_started(results: Results) -> int:
    return sum(run.processes for run in results.runs)


def passed(results: Results) -> bool:
    within = all(target_rss(results, mode) <= RSS_TARGET_MB for mode in results.modes)
    return within and processes_started(results) == 0
