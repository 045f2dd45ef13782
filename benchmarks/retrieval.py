"""Retrieval quality and speed of `search_tools`, side by side with plain BM25 in the same run.

    python -m benchmarks.retrieval --catalog CATALOG.json --queries QUERIES.jsonl [--limit 10] [--out RANKED.jsonl]

The gateway side goes through the same code path as `search_tools`: catalog tools become `ToolRecord`s,
then search entries (`catalog.search_entry`), indexed by `SearchEngine` and queried with `search()`.
Reported per (source, kind), macro-averaged and overall: R@1, R@5, R@10 and MRR (any gold, alternatives
count) and coverage@5 for multi-tool tasks; index build time and query latency p50/p99 for both sides.
Speed is reported as measured on this machine; compare the two columns, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.baseline_bm25 import PlainBM25
from benchmarks.bench_data import DEFAULT_DATA_DIR, QUERIES_FILE, BenchServer, Query, load_catalog, load_queries
from mcp_gateway.catalog.catalog import search_entry
from mcp_gateway.search import SearchEngine, ServerEntry

Ranker = Callable[[str, int], list[tuple[str, str]]]
TARGETS = {"R@1": 0.45, "R@5": 0.75, "MRR": 0.57, "task R@5": 0.55}


@dataclass(frozen=True)
class Scores:
    r1: float
    r5: float
    r10: float
    mrr: float
    coverage5: float
    count: int


def build_engine(servers: Sequence[BenchServer]) -> SearchEngine:
    engine = SearchEngine()
    with engine.batch():  # as the gateway loads a catalog from cache.json
        for server in servers:
            entries = [search_entry(server.name, tool) for tool in server.tools]
            engine.replace_server(ServerEntry(server.name, server.aliases), entries)
    return engine


def gateway_ranker(engine: SearchEngine) -> Ranker:
    def rank(query: str, limit: int) -> list[tuple[str, str]]:
        return [(hit.server, hit.tool) for hit in engine.search(query, limit=limit).hits]

    return rank


def score(queries: Sequence[Query], ranked: dict[str, list[tuple[str, str]]]) -> Scores:
    r1 = r5 = r10 = mrr = coverage = 0.0
    for query in queries:
        results = ranked[query.id]
        first = next((i for i, pair in enumerate(results, 1) if any(g.accepts(pair) for g in query.gold)), None)
        r1 += first is not None and first <= 1
        r5 += first is not None and first <= 5
        r10 += first is not None and first <= 10
        mrr += 1.0 / first if first else 0.0
        top5 = results[:5]
        coverage += sum(any(gold.accepts(pair) for pair in top5) for gold in query.gold) / len(query.gold)
    n = max(len(queries), 1)
    return Scores(r1 / n, r5 / n, r10 / n, mrr / n, coverage / n, len(queries))


def run(
    rankers: dict[str, Ranker], queries: Sequence[Query], limit: int
) -> tuple[dict[str, dict[str, list[tuple[str, str]]]], dict[str, list[float]]]:
    ranked: dict[str, dict[str, list[tuple[str, str]]]] = {name: {} for name in rankers}
    latencies: dict[str, list[float]] = {name: [] for name in rankers}
    for query in queries:
        for name, ranker in rankers.items():
            started = time.perf_counter()
            ranked[name][query.id] = ranker(query.text, limit)
            latencies[name].append((time.perf_counter() - started) * 1000)
    return ranked, latencies


def report(
    queries: Sequence[Query], ranked: dict[str, dict[str, list[tuple[str, str]]]], names: tuple[str, str]
) -> None:
    ours, base = names
    groups: dict[tuple[str, str], list[Query]] = defaultdict(list)
    for query in queries:
        groups[(query.source, query.kind)].append(query)
    header = f"{'group':<28}{'n':>5}  " + "  ".join(f"{m:>17}" for m in ("R@1", "R@5", "R@10", "MRR", "cov@5"))
    print(header)
    print(f"{'':<35}" + "  ".join(f"{'ours  base   diff':>17}" for _ in range(5)))
    rows: list[tuple[str, list[Query]]] = [(f"{s} {k}", qs) for (s, k), qs in sorted(groups.items())]
    single = [q for q in queries if q.kind != "task"]
    tasks = [q for q in queries if q.kind == "task"]
    rows += [("ALL single+step", single), ("ALL task (any gold)", tasks)]
    for label, group in rows:
        if not group:
            continue
        a, b = score(group, ranked[ours]), score(group, ranked[base])
        pairs = [(a.r1, b.r1), (a.r5, b.r5), (a.r10, b.r10), (a.mrr, b.mrr), (a.coverage5, b.coverage5)]
        print(f"{label:<28}{len(group):>5}  " + "  ".join(f"{x:.3f} {y:.3f} {x - y:+.3f}" for x, y in pairs))
    macro = [score(group, ranked[ours]) for group in groups.values()]
    macro_base = [score(group, ranked[base]) for group in groups.values()]
    cells: list[str] = []
    for metric in ("r1", "r5", "r10", "mrr", "coverage5"):
        x = statistics.mean(getattr(s, metric) for s in macro)
        y = statistics.mean(getattr(s, metric) for s in macro_base)
        cells.append(f"{x:.3f} {y:.3f} {x - y:+.3f}")
    print(f"{'macro average of groups':<28}{'':>5}  " + "  ".join(cells))
    if single and tasks:
        a, t = score(single, ranked[ours]), score(tasks, ranked[ours])
        print(
            f"targets: single+step R@1 {a.r1:.3f} (≥{TARGETS['R@1']}), R@5 {a.r5:.3f} (≥{TARGETS['R@5']}), "
            f"MRR {a.mrr:.3f} (≥{TARGETS['MRR']}); task R@5 {t.r5:.3f} (≥{TARGETS['task R@5']})"
        )
        below: list[str] = []
        for (source, kind), group in sorted(groups.items()):
            a, b = score(group, ranked[ours]), score(group, ranked[base])
            for metric, label in (("r1", "R@1"), ("r5", "R@5"), ("r10", "R@10"), ("mrr", "MRR")):
                if getattr(a, metric) < getattr(b, metric):
                    below.append(f"{source} {kind} {label}")
        print(f"group metrics below plain BM25: {', '.join(below) or 'none'}")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.retrieval", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--catalog", type=Path, default=DEFAULT_DATA_DIR / "catalog.json")
    parser.add_argument("--queries", type=Path, default=DEFAULT_DATA_DIR / QUERIES_FILE)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--out", type=Path, help="write one line per query: {id, ranked: [[server, tool], ...]}")
    args = parser.parse_args(argv)

    servers = load_catalog(args.catalog)
    queries = load_queries(args.queries)
    tools = sum(len(server.tools) for server in servers)
    started = time.perf_counter()
    engine = build_engine(servers)
    ours_build = time.perf_counter() - started
    started = time.perf_counter()
    baseline = PlainBM25(servers)
    base_build = time.perf_counter() - started

    rankers = {"gateway": gateway_ranker(engine), "plain BM25": baseline.search}
    cold: dict[str, float] = {}
    for name, ranker in rankers.items():
        # The first query also builds what is built once per index (the typo vocabulary): reported on its own.
        started = time.perf_counter()
        ranker("warm up the index", args.limit)
        cold[name] = (time.perf_counter() - started) * 1000
    ranked, latencies = run(rankers, queries, args.limit)
    print(f"catalog {args.catalog.name}: {len(servers)} servers, {tools} tools; {len(queries)} queries")
    print(f"index build: gateway {ours_build * 1000:.0f} ms, plain BM25 {base_build * 1000:.0f} ms")
    for name in rankers:
        p50, p99 = percentile(latencies[name], 0.5), percentile(latencies[name], 0.99)
        print(f"query latency {name}: p50 {p50:.2f} ms, p99 {p99:.2f} ms (first query {cold[name]:.1f} ms)")
    print()
    report(queries, ranked, ("gateway", "plain BM25"))
    if args.out:
        with args.out.open("w") as out:
            for query in queries:
                out.write(
                    json.dumps({"id": query.id, "ranked": [list(pair) for pair in ranked["gateway"][query.id]]}) + "\n"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
