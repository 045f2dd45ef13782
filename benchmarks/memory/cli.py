"""The command line: `python -m benchmarks.memory [--json] [--data DIR] [--rounds 3] [--modes shared standalone]`.

Exit codes: 0 when every target is met, 1 when one is missed, 2 when the benchmark could not run
(argparse's own 2 for a bad option).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import anyio

import benchmarks.memory as package
from benchmarks.bench_data import DEFAULT_DATA_DIR
from benchmarks.gateway_runtime import MODES, chosen_modes
from benchmarks.gateway_session import could_not_run
from benchmarks.memory.report import print_report, report_json
from benchmarks.memory.run import measure_all
from benchmarks.memory.targets import passed

ROUNDS = 3
SUMMARY = (package.__doc__ or "").split("\n\n")[0]
"""The first paragraph of the package's docstring: what `--help` says the benchmark does."""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.memory", description=SUMMARY)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR, help="the bench-data folder")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"runs per configuration (default {ROUNDS})")
    parser.add_argument(
        "--modes", nargs="+", choices=MODES, default=list(MODES), help="how sessions are served (default: both)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be positive")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    data: Path = args.data
    modes = chosen_modes(args.modes)
    with tempfile.TemporaryDirectory(prefix="mcp-gateway-memory-", ignore_cleanup_errors=True) as scratch:
        try:
            results = anyio.run(measure_all, data, Path(scratch), args.rounds, modes)
        except Exception as error:
            if (reason := could_not_run(error)) is None:
                raise
            print(f"memory benchmark could not run: {reason}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(report_json(data, results), indent=2))
    else:
        print_report(data, results)
    return 0 if passed(results) else 1
