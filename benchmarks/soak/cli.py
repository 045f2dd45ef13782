"""The command line: `python -m benchmarks.soak --seconds 60 [--servers 4] [--concurrency 16] [--seed 1]
[--sessions N | --standalone] [--json] [--keep]`.

Exit codes: 0 when nothing was lost, leaked or unexpected, 1 when something was, 2 when the soak could not
run (argparse's own 2 for a bad option).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import anyio

import benchmarks.soak as package
from benchmarks.gateway_session import could_not_run
from benchmarks.soak.driver import SoakError
from benchmarks.soak.plan import Options
from benchmarks.soak.report import print_report, report_json
from benchmarks.soak.run import soak
from benchmarks.soak.workspace import fake_servers, workspace_directory, write_config

DEFAULT_SECONDS = 30.0
DEFAULT_SERVERS = 4
DEFAULT_CONCURRENCY = 16
DEFAULT_SEED = 1
SUMMARY = (package.__doc__ or "").split("\n\n")[0]
"""The first paragraph of the package's docstring: what `--help` says the soak does."""


def parse_options(argv: Sequence[str] | None) -> tuple[Options, bool, bool]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=SUMMARY)
    parser.add_argument(
        "--seconds", type=float, default=DEFAULT_SECONDS, help=f"how long to keep calling (default {DEFAULT_SECONDS:g})"
    )
    parser.add_argument(
        "--servers",
        type=int,
        default=DEFAULT_SERVERS,
        help=f"number of fake downstream servers (default {DEFAULT_SERVERS})",
    )
    parser.add_argument(
        "--concurrency", type=int, default=DEFAULT_CONCURRENCY, help=f"concurrent calls (default {DEFAULT_CONCURRENCY})"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"seed of the call mix (default {DEFAULT_SEED})")
    parser.add_argument(
        "--sessions",
        type=int,
        default=1,
        help="run the load through N sessions (fronts) of the workspace's one shared daemon (default 1)",
    )
    parser.add_argument(
        "--standalone", action="store_true", help="run it through one session served by its private daemon instead"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    parser.add_argument("--keep", action="store_true", help="keep the workspace (config, logs) and say where")
    args = parser.parse_args(argv)
    if args.servers < 1 or args.concurrency < 1 or args.seconds <= 0:
        parser.error("--servers, --concurrency and --seconds must be positive")
    if args.sessions < 1 or args.sessions > args.concurrency:
        parser.error("--sessions must be from 1 to --concurrency (each session needs a worker)")
    if args.standalone and args.sessions != 1:
        parser.error("--standalone serves one session (a private daemon each): leave --sessions at 1")
    options = Options(args.seconds, args.servers, args.concurrency, args.seed, args.sessions, args.standalone)
    return options, args.json, args.keep


def main(argv: Sequence[str] | None = None) -> int:
    options, as_json, keep = parse_options(argv)
    with workspace_directory(keep) as home:
        servers = fake_servers(home, options.servers)
        write_config(home, servers)
        try:
            report = anyio.run(soak, home, servers, options)
        except Exception as error:
            if (reason := could_not_run(error, SoakError)) is None:
                raise
            print(f"soak could not run: {reason}", file=sys.stderr)
            return 2
        finally:
            if keep:
                print(f"workspace kept in {home}", file=sys.stderr)
    if as_json:
        print(json.dumps(report_json(report), indent=2))
    else:
        print_report(report)
    return 1 if report.failed else 0
