"""The soak's report, as text (the outcome table per kind, then every finding and the verdict) or as one
JSON object: both print the same numbers, and neither measures anything.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

from benchmarks.soak.driver import RSS_READINGS
from benchmarks.soak.outcomes import OUTCOMES, CallRecord, Outcome
from benchmarks.soak.plan import KIND_WEIGHTS, Kind
from benchmarks.soak.run import Report

EXAMPLES_SHOWN = 5
STDERR_LINES_SHOWN = 5


def latency_ms(records: Sequence[CallRecord]) -> dict[str, float]:
    values = [record.milliseconds for record in records]
    if not values:
        return {}
    return {"p50": statistics.median(values), "max": max(values)}


def by_kind(records: Sequence[CallRecord]) -> dict[Kind, list[CallRecord]]:
    grouped: dict[Kind, list[CallRecord]] = {kind: [] for kind in KIND_WEIGHTS}
    for record in records:
        grouped[record.plan.kind].append(record)
    return grouped


def example(record: CallRecord) -> str:
    plan = record.plan
    return f"#{plan.index} {plan.kind} {plan.server}.{plan.tool} after {record.milliseconds:.0f} ms: {record.detail}"


def report_json(report: Report) -> dict[str, Any]:
    """Everything the soak found, as the --json object; the text report prints the same numbers."""
    options, session = report.options, report.session
    records = session.records
    problems = [record for record in records if record.outcome in ("unexpected", "lost")]
    return {
        "servers": options.servers,
        "concurrency": options.concurrency,
        "seed": options.seed,
        "sessions": options.sessions,
        "standalone": options.standalone,
        "seconds": round(session.elapsed, 2),
        "calls": len(records),
        "calls_per_second": round(len(records) / session.elapsed, 1) if session.elapsed else 0.0,
        "outcomes": {outcome: report.outcomes[outcome] for outcome in OUTCOMES},
        "by_kind": {
            kind: {
                "calls": len(group),
                "outcomes": dict(Counter(record.outcome for record in group)),
                "latency_ms": {key: round(value, 1) for key, value in latency_ms(group).items()},
            }
            for kind, group in by_kind(records).items()
        },
        "lost": report.outcomes["lost"],
        "unexpected": report.outcomes["unexpected"],
        "unexpected_examples": [example(record) for record in problems[:EXAMPLES_SHOWN]],
        "leaked_processes": len(report.leaked),
        "leaked": report.leaked,
        "daemon_rss_mb": {
            "warm": _round(session.rss_warm_mb),
            "during": [round(value, 1) for value in session.rss_during_mb],
            "end": _round(session.rss_end_mb),
        },
        "fronts_rss_end_mb": [round(value, 1) for value in session.fronts_rss_end_mb],
        "daemon_and_fronts_cpu_seconds": _round(session.cpu_seconds),
        "downstream_spawns": sum(report.spawns_by_server.values()),
        "downstream_spawns_by_server": report.spawns_by_server,
        "refresh_spawns": report.refresh_spawns,
        "idle_stops": report.idle_stops,
        "downstream_cancellations": report.downstream_cancellations,
        "gateway_stderr_lines": len(report.gateway_stderr),
        "aborted": session.aborted,
        "passed": not report.failed,
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def megabytes(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f} MB"


def print_outcome_table(records: Sequence[CallRecord], outcomes: Counter[Outcome]) -> None:
    columns: list[Outcome] = [outcome for outcome in OUTCOMES if outcomes[outcome]] or ["ok"]
    widths = [max(len(column), 5) + 2 for column in columns]

    def cells(counts: Counter[Outcome]) -> str:
        return "".join(f"{counts[column]:>{width}}" for column, width in zip(columns, widths, strict=True))

    header = "".join(f"{column:>{width}}" for column, width in zip(columns, widths, strict=True))
    print(f"{'kind':<11}{'calls':>7}{header}{'p50 ms':>9}{'max ms':>9}")
    for kind, group in by_kind(records).items():
        latency = latency_ms(group)
        counts: Counter[Outcome] = Counter(record.outcome for record in group)
        print(f"{kind:<11}{len(group):>7}{cells(counts)}{latency.get('p50', 0):>9.0f}{latency.get('max', 0):>9.0f}")
    print(f"{'all':<11}{len(records):>7}{cells(outcomes)}")


def print_report(report: Report) -> None:
    data = report_json(report)
    session = report.session
    print(
        f"mcp-gateway soak: {data['servers']} servers, {data['concurrency']} workers, "
        f"{data['seconds']} s, seed {data['seed']}, "
        + (
            "one standalone session (a front and its private daemon)"
            if report.options.standalone
            else f"{data['sessions']} sessions (fronts) of one shared daemon"
        )
    )
    print(f"calls made          {data['calls']} ({data['calls_per_second']}/s)")
    print()
    print_outcome_table(session.records, report.outcomes)
    print()
    print(f"lost results        {data['lost']}")
    print(f"unexpected          {data['unexpected']}")
    for line in data["unexpected_examples"]:
        print(f"  {line}")
    print(f"leaked processes    {data['leaked_processes']}")
    for line in report.leaked:
        print(f"  {line}")
    growth = ""
    if session.rss_warm_mb is not None and session.rss_end_mb is not None:
        growth = f" ({session.rss_end_mb - session.rss_warm_mb:+.1f} MB)"
    print(
        f"daemon RSS          {megabytes(session.rss_warm_mb)} after warm-up, "
        f"{megabytes(session.rss_end_mb)} at the end{growth}"
    )
    if session.rss_during_mb:
        readings = " ".join(f"{value:.1f}" for value in session.rss_during_mb)
        print(f"  at each tenth     {readings} MB")
        if len(session.rss_during_mb) == RSS_READINGS:
            half = RSS_READINGS // 2 - 1
            second_half = session.rss_during_mb[-1] - session.rss_during_mb[half]
            print(f"  second half       {second_half:+.1f} MB")
    if session.fronts_rss_end_mb:
        print(f"front RSS           {' '.join(f'{value:.1f}' for value in session.fronts_rss_end_mb)} MB at the end")
    if session.cpu_seconds is not None and session.elapsed:
        share = session.cpu_seconds / session.elapsed
        print(f"daemon + fronts CPU {session.cpu_seconds:.1f} s during the run ({share:.0%} of one core)")
    spawns = ", ".join(f"{name} {count}" for name, count in report.spawns_by_server.items())
    print(f"downstream spawns   {data['downstream_spawns']} ({spawns}); {report.refresh_spawns} more by refresh")
    print(f"idle stops          {report.idle_stops}")
    print(f"cancels downstream  {report.downstream_cancellations} (of cancelled and timed-out calls)")
    print(f"gateway stderr      {len(report.gateway_stderr)} lines")
    for line in report.gateway_stderr[-STDERR_LINES_SHOWN:]:
        print(f"  {line}")
    if session.aborted:
        print(f"aborted             {session.aborted}")
    print(f"verdict             {'FAIL' if report.failed else 'PASS'}")
