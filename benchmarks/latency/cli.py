"""The command line: `python -m benchmarks.latency [--repeat N] [--calls N] [--queries N] [--pairs P ...]
[--other-gateway PROGRAM] [--json]`.

Exit codes: 0 when every measured target is met (warm execute_tool, start-up against the minimal SDK
server), 1 when one is missed, 2 when the benchmark could not run (argparse's own 2 for a bad option).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence

import benchmarks.latency as package
from benchmarks.latency.failure import BenchError
from benchmarks.latency.report import print_report, report_json
from benchmarks.latency.run import PAIRS, Options, run

DEFAULT_CALLS = 200
DEFAULT_REPEAT = 10
DEFAULT_QUERIES = 200
SUMMARY = (package.__doc__ or "").split("\n")[0]
"""The first line of the package's docstring: what `--help` says the benchmark does."""


def parse_options(argv: Sequence[str] | None) -> tuple[Options, bool]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.latency", description=SUMMARY)
    parser.add_argument(
        "--calls", type=int, default=DEFAULT_CALLS, help=f"warm calls per side (default {DEFAULT_CALLS})"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=DEFAULT_REPEAT,
        help=f"cold and start-up repeats per side (default {DEFAULT_REPEAT})",
    )
    parser.add_argument(
        "--queries", type=int, default=DEFAULT_QUERIES, help=f"search queries (default {DEFAULT_QUERIES})"
    )
    parser.add_argument(
        "--pairs", nargs="+", choices=PAIRS, default=list(PAIRS), help="measure only these pairs (default: all)"
    )
    parser.add_argument(
        "--other-gateway",
        metavar="PROGRAM",
        help="also time this gateway command's start-up in pair 3's rotation, e.g. "
        "/tmp/main-checkout/.venv/bin/mcp-gateway (split like a shell would)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    args = parser.parse_args(argv)
    if min(args.calls, args.repeat, args.queries) < 1:
        parser.error("--calls, --repeat and --queries must be positive")
    other = tuple(shlex.split(args.other_gateway)) if args.other_gateway else None
    pairs = tuple(pair for pair in PAIRS if pair in args.pairs)
    return Options(args.calls, args.repeat, args.queries, pairs, other), args.json


def main(argv: Sequence[str] | None = None) -> int:
    options, as_json = parse_options(argv)
    try:
        report = run(options)
    except BenchError as error:
        print(f"latency benchmark could not run: {error}", file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(report_json(report), indent=2, ensure_ascii=False))
    else:
        print_report(report)
    return 0 if report.passed else 1
