"""Pair 5: start-up imports, each figure the median of IMPORT_RUNS runs of `python -X importtime`: the
console script's entry module, the SDK alone, and the real serve path cut where tools/list, a first search
and a first call are answered; its start split by who caused each import, and the heaviest packages, each
marked whether answering initialize/tools/list needs it and whether `import mcp` would import it anyway.

A package the start-up path imports although tools/list does not need it, and the SDK does not import it
on its own, is avoidable: that is the figure to watch when the gateway's start-up grows.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.latency.importtime_tree import (
    INTERPRETER,
    Imported,
    buckets,
    import_tree,
    package_costs,
    package_of,
    parse_importtime,
)
from benchmarks.latency.traced_gateway import SERVE_PHASES, importtime, trace_serve_path

IMPORT_RUNS = 3
HEAVIEST_SHOWN = 15
LATER_PACKAGES_SHOWN = 3
MS_PER_US = 1e-3

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
        runs.add_cli_and_sdk(importtime(["-c", "import mcp_gateway.program"]), importtime(["-c", "import mcp"]))
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
