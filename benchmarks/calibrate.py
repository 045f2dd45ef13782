"""Fit the confidence model (`mcp_gateway/search/calibration.py`) on development requests of several catalogs.

    python -m benchmarks.calibrate --set NAME CATALOG.json QUERIES.jsonl[,QUERIES.jsonl] [UNANSWERABLE.jsonl] ...
        [--ridge 1.0]

Each `--set` is a catalog with its development requests (and, optionally, requests no tool of it can serve). Every
request is searched as `search_tools` searches it; its first hit's signals (`SearchHit.signals`) and whether that
hit is right (any gold or alternative; never, for an unanswerable request) are one example. The model is a logistic
regression with a ridge penalty, fitted by Newton's method, each set weighing the same whatever its size (so a
catalog with many requests does not decide the weights for the others). It prints the weights to put in
`calibration.py`, then, per set and language, what the levels would be with `calibration.HIGH_PROBABILITY` and
`LOW_PROBABILITY`: the share of requests at each level and how often the first hit is right there.

Only development requests: a held-out file is never fitted on.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

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
    """Bias and weights on the signals as they are (not standardized), so `calibration.py` takes them as printed."""
    x = np.array([example.signals.vector() for example in data], dtype=float)
    y = np.array([1.0 if example.right else 0.0 for example in data])
    sizes = {name: sum(1 for example in data if example.set == name) for name in {e.set for e in data}}
    weight = np.array([1.0 / sizes[example.set] for example in data])
    weight *= len(data) / weight.sum()
    mean, spread = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / spread])
    beta = np.zeros(z.shape[1])
    penalty = ridge * np.diag([0.0, *([1.0] * (z.shape[1] - 1))])
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-(z @ beta)))
        gradient = z.T @ (weight * (p - y)) + penalty @ beta
        hessian = (z * (weight * p * (1 - p))[:, None]).T @ z + penalty
        beta -= np.linalg.solve(hessian, gradient)
    weights = beta[1:] / spread
    bias = float(beta[0] - (weights * mean).sum())
    return bias, [float(value) for value in weights]


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
        for label, keep in (
            ("high", lambda p: p >= high),
            ("medium", lambda p: low <= p < high),
            ("low", lambda p: p < low),
        ):
            picked = [example for example, p in zip(group, chances, strict=True) if keep(p)]
            right = sum(example.right for example in picked)
            precision = f"{right / len(picked):.2f}" if picked else "  - "
            cells.append(f"{label} {len(picked) / len(group):4.0%} ({precision})")
        kind = "" if answerable else " unanswerable"
        print(f"  {name + kind:<28} {lang:<6} n={len(group):<5} " + "  ".join(cells))


def _chance(bias: float, weights: Sequence[float], signals: Signals) -> float:
    logit = bias + sum(w * v for w, v in zip(weights, signals.vector(), strict=True))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, logit))))


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
