"""Fit the confidence model (`mcp_gateway/search/calibration.py`) on development requests of several catalogs.

    python -m benchmarks.calibrate --set NAME CATALOG.json QUERIES.jsonl[,QUERIES.jsonl] [UNANSWERABLE.jsonl] ...
        [--ridge 1.0]

Each `--set` is a catalog with its development requests (and, optionally, requests no tool of it can serve). Every
request is searched as `search_tools` searches it; its first hit's signals (`RankedTool.signals`) and whether that
hit is right (any gold or alternative; never, for an unanswerable request) are one example. The model is a logistic
regression with a ridge penalty, fitted by Newton's method (`fit`), each set weighing the same whatever its size (so a
catalog with many requests does not decide the weights for the others). It prints the weights to put in
`calibration.py`, then, per set and language, what the levels would be with `calibration.HIGH_PROBABILITY` and
`LOW_PROBABILITY`: the share of requests at each level and how often the first hit is right there.

Only development requests: a held-out file is never fitted on.
"""

from __future__ import annotations

import argparse
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.bench_data import load_catalog, load_queries
from benchmarks.build_time import build_engine
from benchmarks.judging import load_requests
from mcp_gateway.search import calibration
from mcp_gateway.search.calibration import SIGNAL_NAMES, Signals

NEWTON_STEPS = 30


@dataclass(frozen=True)
class Example:
    set: str
    lang: str
    signals: Signals
    right: bool
    answerable: bool


def examples(name: str, catalog: Path, queries: Sequence[Path], unanswerable: Path | None) -> list[Example]:
    engine = build_engine(load_catalog(catalog))
    found: list[Example] = []
    for query in (query for path in queries for query in load_queries(path)):
        hits = engine.search(query.text).hits
        if hits and hits[0].signals is not None:
            right = any(gold.accepts((hits[0].server, hits[0].tool)) for gold in query.gold)
            found.append(Example(name, query.lang, hits[0].signals, right, answerable=True))
    for request in load_requests(unanswerable) if unanswerable else ():
        hits = engine.search(request.text).hits
        if hits and hits[0].signals is not None:
            found.append(Example(name, request.lang, hits[0].signals, False, answerable=False))
    return found


def fit(data: Sequence[Example], ridge: float) -> tuple[float, list[float]]:
    """Bias and weights on the signals as they are (not standardized), so `calibration.py` takes them as printed.

    Newton's method on the weighted log-loss of standardized signals with a ridge penalty (the intercept free):
    a handful of signals and a few thousand examples, so plain Python does it in well under a second."""
    rows = [tuple(example.signals) for example in data]
    width = len(rows[0])
    sizes = {name: sum(1 for example in data if example.set == name) for name in {e.set for e in data}}
    weights = [1.0 / sizes[example.set] for example in data]
    scale = len(data) / sum(weights)
    weights = [weight * scale for weight in weights]
    mean = [statistics.fmean(row[k] for row in rows) for k in range(width)]
    spread = [statistics.pstdev(row[k] for row in rows) or 1.0 for k in range(width)]
    z = [[1.0, *((row[k] - mean[k]) / spread[k] for k in range(width))] for row in rows]
    y = [1.0 if example.right else 0.0 for example in data]
    beta = [0.0] * (width + 1)
    for _ in range(NEWTON_STEPS):
        gradient = [ridge * b if k else 0.0 for k, b in enumerate(beta)]
        hessian = [[ridge if i == j and i else 0.0 for j in range(width + 1)] for i in range(width + 1)]
        for features, target, weight in zip(z, y, weights, strict=True):
            p = _sigmoid(sum(b * f for b, f in zip(beta, features, strict=True)))
            for i, fi in enumerate(features):
                gradient[i] += weight * (p - target) * fi
                for j, fj in enumerate(features):
                    hessian[i][j] += weight * p * (1 - p) * fi * fj
        step = _solve(hessian, gradient)
        beta = [b - d for b, d in zip(beta, step, strict=True)]
    unscaled = [beta[k + 1] / spread[k] for k in range(width)]
    return beta[0] - sum(w * m for w, m in zip(unscaled, mean, strict=True)), unscaled


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix @ x = vector, by Gaussian elimination with partial pivoting (the matrix is small)."""
    size = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(size)]
    for column in range(size):
        pivot = max(range(column, size), key=lambda row: abs(rows[row][column]))
        rows[column], rows[pivot] = rows[pivot], rows[column]
        for row in range(column + 1, size):
            factor = rows[row][column] / rows[column][column]
            rows[row] = [a - factor * b for a, b in zip(rows[row], rows[column], strict=True)]
    solution = [0.0] * size
    for row in range(size - 1, -1, -1):
        known = sum(rows[row][k] * solution[k] for k in range(row + 1, size))
        solution[row] = (rows[row][size] - known) / rows[row][row]
    return solution


def _sigmoid(logit: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, logit))))


def report(data: Sequence[Example], bias: float, weights: Sequence[float]) -> None:
    print(f"BIAS = {bias:.3f}")
    print("WEIGHTS = (" + ", ".join(f"{w:.3f}" for w in weights) + ")")
    print("  # " + ", ".join(SIGNAL_NAMES))
    high, low = calibration.HIGH_PROBABILITY, calibration.LOW_PROBABILITY
    print(f"levels at high >= {high}, low < {low}: share of requests (top hit right)")
    groups = sorted({(example.set, example.lang, example.answerable) for example in data})
    for name, lang, answerable in groups:
        group = [
            example for example in data if (example.set, example.lang, example.answerable) == (name, lang, answerable)
        ]
        chances = [_chance(bias, weights, example.signals) for example in group]
        cells: list[str] = []
        for label in ("high", "medium", "low"):
            picked = [example for example, p in zip(group, chances, strict=True) if _level(p, high, low) == label]
            right = sum(example.right for example in picked)
            precision = f"{right / len(picked):.2f}" if picked else "  - "
            cells.append(f"{label} {len(picked) / len(group):4.0%} ({precision})")
        kind = "" if answerable else " unanswerable"
        print(f"  {name + kind:<28} {lang:<6} n={len(group):<5} " + "  ".join(cells))


def _level(chance: float, high: float, low: float) -> str:
    return "high" if chance >= high else "medium" if chance >= low else "low"


def _chance(bias: float, weights: Sequence[float], signals: Signals) -> float:
    return _sigmoid(bias + sum(w * v for w, v in zip(weights, signals, strict=True)))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.calibrate", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument(
        "--set",
        nargs="+",
        action="append",
        required=True,
        metavar="NAME CATALOG QUERIES [UNANSWERABLE]",
        help="a set: its name, its catalog, its development queries (comma-separated), optionally its unanswerable",
    )
    parser.add_argument("--ridge", type=float, default=1.0, help="ridge penalty on the standardized weights")
    parser.add_argument("--current", action="store_true", help="report the weights in calibration.py, fit nothing")
    args = parser.parse_args(argv)
    data: list[Example] = []
    for spec in args.set:
        if len(spec) not in (3, 4):
            parser.error("--set takes NAME CATALOG QUERIES [UNANSWERABLE]")
        queries = [Path(path) for path in spec[2].split(",")]
        data += examples(spec[0], Path(spec[1]), queries, Path(spec[3]) if len(spec) == 4 else None)
    if args.current:
        report(data, calibration.BIAS, calibration.WEIGHTS)
    else:
        bias, weights = fit(data, args.ridge)
        report(data, bias, weights)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
