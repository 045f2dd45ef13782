"""Pair 5: start-up imports, each figure the median of IMPORT_RUNS runs of `python -X importtime`: the
console script's entry module, the SDK alone, and the real serve path (a front and the workspace's shared
daemon, started cold) cut where tools/list, a first search and a first call are answered, per process; its
start (up to the first search answered: the front answers initialize and tools/list itself, the daemon's first
answer is the search) split by who caused each import, and the heaviest packages, each marked whether the start
needs it and whether `import mcp` would import it anyway.

A package the start-up path imports although the first search does not need it, and the SDK does not import
it on its own, is avoidable: that is the figure to watch when the gateway's start-up grows. The front must
import the standard library only (it never holds pydantic): its own figures show that it does.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.gateway_runtime import Runtime
from benchmarks.latency.importtime_tree import (
    INTERPRETER,
    Imported,
    buckets,
    import_tree,
    package_costs,
    package_of,
    parse_importtime,
)
from benchmarks.latency.traced_gateway import SERVE_PHASES, START_PHASES, PhaseImports, importtime, trace_serve_path

IMPORT_RUNS = 3
HEAVIEST_SHOWN = 15
LATER_PACKAGES_SHOWN = 3
MS_PER_US = 1e-3

NOT_NEEDED_AT_START = {
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
    "mcp_gateway.importing": "the import command only",
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
"""Packages that answering `initialize`, `tools/list` and a first `search_tools` does not use, with what does."""


@dataclass(frozen=True)
class ImportReport:
    cli_entry_ms: float
    sdk_alone_ms: float
    sdk_packages: frozenset[str]
    """Every package `import mcp` imports on its own: the gateway cannot keep these off its start-up path."""
    avoidable: list[tuple[str, float]]
    """Packages on the start-up path that the first search does not need and the SDK does not import (own ms)."""
    phases_ms: dict[str, tuple[float, float]]
    """Per phase, (the front's, the daemon's) import time."""
    front_packages: list[tuple[str, float]]
    """What the front imported before its first search was answered, by package (own ms): the stdlib only."""
    phase_packages: dict[str, list[tuple[str, float]]]
    """Per phase after the start, its heaviest packages (own ms, both processes)."""
    buckets_ms: dict[str, float]
    heaviest: list[tuple[str, float, float, str]]
    """(package, own ms, inclusive ms, pulled in by), median over the runs, heaviest own time first."""


def median_of(runs: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Per key, the median over runs (a key missing from a run counts as 0 there)."""
    keys = dict.fromkeys(key for run in runs for key in run)
    return {key: statistics.median(run.get(key, 0.0) for run in runs) for key in keys}


def heaviest_first(costs: Mapping[str, float], count: int) -> list[tuple[str, float]]:
    return sorted(costs.items(), key=lambda item: item[1], reverse=True)[:count]


def added(*costs: Mapping[str, float]) -> dict[str, float]:
    """Per key, the sum over `costs` (one mapping per process)."""
    total: dict[str, float] = {}
    for cost in costs:
        for key, value in cost.items():
            total[key] = total.get(key, 0.0) + value
    return total


def total_ms(lines: Sequence[str]) -> float:
    return sum(node.self_us for node in parse_importtime(lines)) * MS_PER_US


def own_ms(lines: Sequence[str]) -> dict[str, float]:
    return {
        package: cost.own_us * MS_PER_US
        for package, cost in package_costs(import_tree(parse_importtime(lines))).items()
    }


@dataclass
class ImportRuns:
    """Each run's figures, keyed as reported; medians are taken over these."""

    cli: list[float] = field(default_factory=list[float])
    sdk: list[float] = field(default_factory=list[float])
    front_phases: list[dict[str, float]] = field(default_factory=list[dict[str, float]])
    daemon_phases: list[dict[str, float]] = field(default_factory=list[dict[str, float]])
    front_own: list[dict[str, float]] = field(default_factory=list[dict[str, float]])
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

    def add_serve_path(self, traced: Sequence[PhaseImports]) -> None:
        self.front_phases.append({name: total_ms(p.front) for name, p in zip(SERVE_PHASES, traced, strict=True)})
        self.daemon_phases.append({name: total_ms(p.daemon) for name, p in zip(SERVE_PHASES, traced, strict=True)})
        for name, phase in zip(SERVE_PHASES[START_PHASES:], traced[START_PHASES:], strict=True):
            self.phase_own.setdefault(name, []).append(added(own_ms(phase.front), own_ms(phase.daemon)))
        # The start of each process as one tree of its own: one process's lines, in the order it printed them.
        front = import_tree(parse_importtime([line for p in traced[:START_PHASES] for line in p.front]))
        daemon = import_tree(parse_importtime([line for p in traced[:START_PHASES] for line in p.daemon]))
        self.buckets.append(
            added(*({n: us * MS_PER_US for n, us in buckets(tree).items()} for tree in (front, daemon)))
        )
        costs = [package_costs(tree) for tree in (front, daemon)]
        self.front_own.append({package: cost.own_us * MS_PER_US for package, cost in costs[0].items()})
        self.own.append(added(*({p: c.own_us * MS_PER_US for p, c in each.items()} for each in costs)))
        self.inclusive.append(added(*({p: c.inclusive_us * MS_PER_US for p, c in each.items()} for each in costs)))
        for each in costs:
            self.pulled_in_by |= {package: cost.pulled_in_by for package, cost in each.items()}


def measure_imports(demo_home: Path, runtime: Runtime) -> ImportReport:
    runs = ImportRuns()
    for _ in range(IMPORT_RUNS):
        runs.add_cli_and_sdk(importtime(["-c", "import mcp_gateway.program"]), importtime(["-c", "import mcp"]))
        runs.add_serve_path(trace_serve_path(demo_home, runtime))
    own, inclusive = median_of(runs.own), median_of(runs.inclusive)
    own.pop(INTERPRETER, None)  # reported among the causes, not a package anyone could defer
    avoidable = {p: value for p, value in own.items() if p in NOT_NEEDED_AT_START and p not in runs.sdk_packages}
    front_phases, daemon_phases = median_of(runs.front_phases), median_of(runs.daemon_phases)
    front_own = median_of(runs.front_own)
    front_own.pop(INTERPRETER, None)
    return ImportReport(
        cli_entry_ms=statistics.median(runs.cli),
        sdk_alone_ms=statistics.median(runs.sdk),
        sdk_packages=frozenset(runs.sdk_packages),
        avoidable=heaviest_first(avoidable, len(avoidable)),
        phases_ms={name: (front_phases.get(name, 0.0), daemon_phases.get(name, 0.0)) for name in SERVE_PHASES},
        front_packages=heaviest_first(front_own, len(front_own)),
        phase_packages={
            phase: heaviest_first(median_of(per_run), LATER_PACKAGES_SHOWN) for phase, per_run in runs.phase_own.items()
        },
        buckets_ms=median_of(runs.buckets),
        heaviest=[
            (package, value, inclusive.get(package, 0.0), runs.pulled_in_by.get(package, ""))
            for package, value in heaviest_first(own, HEAVIEST_SHOWN)
        ],
    )


def needed_at_start(package: str, sdk_packages: frozenset[str]) -> str:
    reason = NOT_NEEDED_AT_START.get(package)
    if reason is None:
        return "yes"
    if package in sdk_packages:
        return f"no, but `import mcp` imports it anyway ({reason})"
    return f"NO, avoidable ({reason})"
