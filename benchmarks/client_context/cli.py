"""The command line: `python -m benchmarks.client_context [--json] [--clients a,b]`.

Exit codes: 0 when every client was measured, 2 when one could not be (a peer missing, a session that gave
no request); argparse's own 2 for a bad option.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import anyio
from clients.clis import CLIENTS

import benchmarks.client_context as package
from benchmarks.client_context.measure import Measured, MeasureError, measure_client
from benchmarks.client_context.report import print_report, report_json

SUMMARY = (package.__doc__ or "").split("\n\n")[0]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.client_context", description=SUMMARY)
    parser.add_argument("--clients", default=",".join(CLIENTS), help=f"comma-separated, of: {', '.join(CLIENTS)}")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--save", type=Path, help="also write each first request there (<client>-<configuration>.json)")
    args = parser.parse_args(argv)
    unknown = [name for name in args.clients.split(",") if name not in CLIENTS]
    if unknown:
        parser.error(f"unknown client(s): {', '.join(unknown)}; choose among {', '.join(CLIENTS)}")
    return args


async def measure_all(names: Sequence[str], scratch: Path) -> list[Measured]:
    results: list[Measured] = []
    for name in names:
        results += await measure_client(CLIENTS[name], scratch / name)
    return results


def save_requests(results: Sequence[Measured], directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for m in results:
        name = f"{m.client}-{m.configuration}".replace(" ", "-").replace(",", "").replace("'", "")
        (directory / f"{name}.json").write_text(json.dumps(m.request, indent=2, ensure_ascii=False))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    names = [name for name in args.clients.split(",") if name]
    with tempfile.TemporaryDirectory(prefix="mcp-gateway-client-context-", ignore_cleanup_errors=True) as scratch:
        try:
            results = anyio.run(measure_all, names, Path(scratch))
        except MeasureError as error:
            print(f"client context benchmark could not run: {error}", file=sys.stderr)
            return 2
    if args.save is not None:
        save_requests(results, args.save)
    if args.json:
        print(json.dumps(report_json(results), indent=2))
    else:
        print_report(results)
    return 0
