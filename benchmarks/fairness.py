"""Fairness: whether one session's heavy traffic stalls or bloats the daemon every other session of the workspace
shares.

    python -m benchmarks.fairness [--rounds 3] [--line-mb 50] [--result-mb 10] [--modes shared standalone] [--json]

Three sessions, each a real front (`mcp-gateway --home HOME`, what a client starts), driven by hand-written
JSON-RPC lines (`raw_session`, each on a thread of its own, so that the load's bytes never hold up the measuring
session's timings), on a workspace of two fake servers: `loader`, which A and B call, and `echoer`, which C
calls, so that no server's own queue links them. After every session has warmed up:
- C calls `echoer.echo` back to back the whole time: BEFORE_SECONDS before the load, through it, AFTER_SECONDS
  after it;
- the load, `--rounds` times, A and B at once: A sends one `tools/call` line whose arguments hold `--line-mb`
  MB (`loader.length`, which answers with a number), B calls `loader.big` for a `--result-mb` MB result;
- the daemon's VmRSS is sampled from /proc every SAMPLE_SECONDS, its VmHWM read at the end.
Reported: C's echo p50/p99 before, during (calls overlapping a load) and after the load, their ratios, what A and
B got back and how long it took, and the daemon's RSS before the load, at its peak and AFTER_SECONDS after it.

Modes: shared, what users get (the three fronts share the workspace's daemon: the goals are judged here), and
standalone beside it for comparison (each front has a private daemon: C's daemon carries no load, so C's figures
show what the machine alone costs it, and A's and B's daemons what the load costs a daemon). Goals (issue 25):
C's p99 during the load <= 50 ms; the daemon's RSS back within 30 MB of before. Every daemon runs in a runtime
directory of the benchmark's own and is stopped at its end; every front is closed (or killed). Exits 1 when a
goal is missed in shared mode, 2 when the benchmark could not run. To tell the two loads' shares apart, make one
of them negligible: `--line-mb 0.001` (B's result alone) or `--result-mb 0.001` (A's line alone).

One module per part: `raw_session` (a front driven by raw lines), `fairness_run` (the sessions, the load, the
probe and the sampler, in each mode), `fairness_figures` (phases, percentiles, memory) and this one (the report
and the command line).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import anyio

from benchmarks.fairness_run import (
    AFTER_SECONDS,
    LINE_MB,
    MB,
    RESULT_MB,
    ROUNDS,
    SAMPLE_SECONDS,
    ModeResult,
    Options,
    run,
)
from benchmarks.gateway_runtime import MODES, SHARED, chosen_modes
from benchmarks.gateway_session import could_not_run
from benchmarks.raw_session import RawSessionError


def ms(value: float) -> str:
    return f"{value:,.1f} ms"


def report_lines(results: Sequence[ModeResult], options: Options) -> list[str]:
    lines = [
        f"mcp-gateway fairness: A sends a {options.line_bytes / MB:g} MB line, B gets a "
        f"{options.result_bytes / MB:g} MB result, {options.rounds} times at once; C echoes the whole time",
        "",
    ]
    for result in results:
        lines += mode_lines(result)
    shared = next((r for r in results if r.mode == SHARED), None)
    if shared is not None:
        lines.append("goals (shared daemon, issue 25):")
        lines += [f"  {'PASS' if met else 'MISS'}  {what}" for what, met in shared.judged().items()]
    for other in (r for r in results if r.mode != SHARED):
        lines.append(f"the same goals, {other.mode} (for comparison):")
        lines += [f"  {'PASS' if met else 'MISS'}  {what}" for what, met in other.judged().items()]
    return lines


def mode_lines(result: ModeResult) -> list[str]:
    where = "one shared daemon" if result.mode == SHARED else "a private daemon each"
    figures = result.latency()
    before = figures["before"]
    lines = [f"{result.mode} ({where}):", f"  C's warm echo   {'n':>6}{'failed':>8}{'p50':>12}{'p99':>12}{'max':>12}"]
    for phase, figure in figures.items():
        lines.append(
            f"    {phase:<13}{figure.count:>6}{figure.failed:>8}{ms(figure.p50_ms):>12}{ms(figure.p99_ms):>12}"
            f"{ms(figure.max_ms):>12}"
        )
    during = figures["during"]
    lines.append(
        f"    during / before: p50 {during.p50_ms / before.p50_ms:.1f}x, p99 {during.p99_ms / before.p99_ms:.1f}x"
    )
    for number, load in enumerate(result.loads, 1):
        lines.append(f"  load {number}: {load.span.seconds:.2f} s")
        lines.append(f"    A ({load.a_seconds:.2f} s): {load.a}")
        lines.append(f"    B ({load.b_seconds:.2f} s): {load.b}")
    lines.append(f"  RSS {'':<18}{'before':>10}{'peak':>10}{'VmHWM':>10}{'after':>10}{'kept':>10}")
    for label, kept in result.memory().items():
        lines.append(
            f"    {label:<20}{kept.before_mb:>10.1f}{kept.peak_mb:>10.1f}{kept.hwm_mb:>10.1f}{kept.after_mb:>10.1f}"
            f"{kept.kept_mb:>+10.1f}"
        )
    lines.append(
        f"    (MB; peak sampled every {SAMPLE_SECONDS * 1000:g} ms; after: {AFTER_SECONDS:g} s after the last load)"
    )
    return [*lines, ""]


def report_json(results: Sequence[ModeResult], options: Options) -> dict[str, Any]:
    return {
        "options": asdict(options),
        "modes": {
            r.mode: {
                "daemons": r.daemons,
                "echo": {phase: asdict(figure) for phase, figure in r.latency().items()},
                "loads": [asdict(load) for load in r.loads],
                "rss_mb": {label: asdict(kept) | {"kept_mb": kept.kept_mb} for label, kept in r.memory().items()},
                "goals": r.judged(),
            }
            for r in results
        },
        "passed": all(all(r.judged().values()) for r in results if r.mode == SHARED),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fairness", description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"loads, one after another (default {ROUNDS})")
    parser.add_argument("--line-mb", type=float, default=LINE_MB, help=f"A's line (default {LINE_MB})")
    parser.add_argument("--result-mb", type=float, default=RESULT_MB, help=f"B's result (default {RESULT_MB})")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES), help="(default: both)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.line_mb <= 0 or args.result_mb <= 0:
        parser.error("--rounds, --line-mb and --result-mb must be positive")
    options = Options(args.rounds, int(args.line_mb * MB), int(args.result_mb * MB), chosen_modes(args.modes))
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            results = anyio.run(run, options, errlog)
        except Exception as error:
            if (reason := could_not_run(error, RawSessionError)) is None:
                raise
            errlog.seek(0)
            print(f"fairness benchmark could not run: {reason}\n{errlog.read()[-2000:]}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(report_json(results, options), indent=2))
    else:
        print("\n".join(report_lines(results, options)))
    return 0 if report_json(results, options)["passed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
