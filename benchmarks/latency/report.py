"""The latency report, as text (aligned tables, one section per pair, then the verdict) or as one JSON
object: both print the same numbers, and neither measures anything.
"""

from __future__ import annotations

import os
from typing import Any

from benchmarks.latency.imports import HEAVIEST_SHOWN, IMPORT_RUNS, needed_at_start
from benchmarks.latency.run import Report
from benchmarks.latency.sampling import Sample
from benchmarks.latency.startup import DIRECT, MINIMAL, GatewayStart, StartupResult
from benchmarks.latency.warm import ADDED_GOAL_MS, BLOCK_CALLS, WARM_TARGET_RATIO, WARMUP_CALLS, Measured, WarmResult

LABEL_WIDTH = 30
MIN_PHASE_MS_SHOWN = 1.0


def report_json(report: Report) -> dict[str, Any]:
    """Everything measured, as the --json object; the text report prints the same numbers."""
    data: dict[str, Any] = {"options": vars(report.options), "seconds": round(report.seconds, 1)}
    data["warm_execute"] = [
        {
            "target": r.target,
            "gateway_shared_daemon": r.gateway.as_json(),
            "gateway_standalone": r.standalone.as_json(),
            "direct": r.direct.as_json(),
            "gateway_tools_list": r.hop.as_json(),
            "plain_sdk_server_tools_list": r.sdk_hop.as_json(),
            "ratio": round(r.ratio, 3),
            "target_ratio": WARM_TARGET_RATIO,
            "added_ms": round(r.added_ms, 3),
            "standalone_added_ms": round(r.standalone_added_ms, 3),
            "added_goal_ms": ADDED_GOAL_MS if r.trivial else None,
            "added_passed": r.added_passed,
            "passed": r.passed,
        }
        for r in report.warm
    ]
    data["cold_execute"] = [
        {"target": r.target, "gateway": r.gateway.as_json(), "direct": r.direct.as_json(), "ratio": round(r.ratio, 3)}
        for r in report.cold
    ]
    if report.startup is not None:
        s = report.startup
        data["startup_to_tools_list"] = {
            "minimal_sdk_server": s.minimal.as_json(),
            "direct_both_demo_servers": s.direct.as_json(),
            "gateways": [
                {
                    "workspace": start.workspace,
                    "start": start.kind,
                    "other_gateway": start.other,
                    "tools_list": start.listed.as_json(),
                    "initialize": start.initialized.as_json(),
                    "first_search_tools": start.searched.as_json(),
                    "ratio_to_minimal": round(s.ratio_to_minimal(start), 3),
                    "goal_ratio_to_minimal": start.goal,
                    "passed": s.met(start),
                }
                for start in s.gateways
            ],
            "ratio_demo_daemon_running_to_direct": round(s.ratio_to_direct, 3),
            "passed": s.passed,
        }
    data["search"] = [
        {
            "catalog": r.catalog,
            "servers": r.servers,
            "tools": r.tools,
            "initialize_ms": round(r.initialized_ms, 1),
            "first_search_ms": round(r.first_search_ms, 2),
            "search_tools": r.search.as_json(),
            "tools_list": r.tools_list.as_json(),
            "list_tools": r.list_tools.as_json() | {"server": r.list_tools_server, "tools": r.list_tools_count},
            "servers_started": r.servers_started,
        }
        for r in report.search
    ]
    if report.imports is not None:
        i = report.imports
        data["imports"] = {
            "cli_entry_ms": round(i.cli_entry_ms, 1),
            "sdk_alone_ms": round(i.sdk_alone_ms, 1),
            "serve_phases_ms": {
                name: {"front": round(front, 1), "daemon": round(daemon, 1)}
                for name, (front, daemon) in i.phases_ms.items()
            },
            "front_packages_at_start_ms": {package: round(value, 1) for package, value in i.front_packages},
            "later_phase_packages_ms": {
                phase: {package: round(value, 1) for package, value in packages}
                for phase, packages in i.phase_packages.items()
            },
            "start_by_cause_ms": {name: round(value, 1) for name, value in i.buckets_ms.items()},
            "avoidable_at_start_ms": {package: round(value, 1) for package, value in i.avoidable},
            "heaviest": [
                {
                    "package": package,
                    "own_ms": round(own, 1),
                    "inclusive_ms": round(inclusive, 1),
                    "pulled_in_by": by,
                    "needed_to_answer_the_first_search": needed_at_start(package, i.sdk_packages),
                }
                for package, own, inclusive, by in i.heaviest
            ],
        }
    return data


def ms(value: float) -> str:
    return f"{value:,.1f} ms" if value < 100 else f"{value:,.0f} ms"


def row(label: str, series: Sample) -> str:
    return f"    {label:<{LABEL_WIDTH}}{ms(series.median):>11}{ms(series.p90):>11}{len(series.values):>6}"


def header(extra: str = "") -> str:
    return f"    {'':<{LABEL_WIDTH}}{'median':>11}{'p90':>11}{'n':>6}{extra}"


def figure(label: str, value: str, note: str = "") -> str:
    """One derived figure, aligned with the median column of `row`."""
    return f"    {label:<{LABEL_WIDTH}}{value:>11}" + (f"   {note}" if note else "")


def cpu_row(label: str, measured: Measured) -> str:
    cpu = "" if measured.cpu_ms is None else f"{ms(measured.cpu_ms):>12}"
    parts = measured.cpu_parts_ms
    if len(parts) > 1 and measured.cpu_ms is not None:
        cpu += " (" + " + ".join(ms(part or 0.0) for part in parts) + ")"
    return row(label, measured.latency) + cpu


def verdict(met: bool) -> str:
    return "PASS" if met else "MISS"


def print_warm(report: Report) -> None:
    if not report.warm:
        return
    options = report.options
    print(
        f"1. Warm execute_tool vs the same tools/call made directly ({options.calls} calls each, "
        f"rotating blocks of {BLOCK_CALLS}, after {WARMUP_CALLS} warm-up calls)"
    )
    print("  (CPU/req: CPU time of the answering processes; on the gateway's rows, the front + its daemon)")
    print(header(extra=f"{'CPU/req':>12}"))
    for r in report.warm:
        print_warm_target(r)
    print()


def print_warm_target(r: WarmResult) -> None:
    print(f"  {r.target}")
    print(cpu_row("gateway, shared daemon", r.gateway))
    print(cpu_row("gateway, standalone", r.standalone))
    print(cpu_row("direct", r.direct))
    print(cpu_row("gateway tools/list (hop)", r.hop))
    print(cpu_row("plain SDK server tools/list", r.sdk_hop))
    goal = (
        f"goal <= {ADDED_GOAL_MS:g} ms: {verdict(r.added_ms <= ADDED_GOAL_MS)}" if r.trivial else "(median difference)"
    )
    print(figure("added by the shared daemon", f"{r.added_ms:+.2f} ms", goal))
    print(figure("added standalone", f"{r.standalone_added_ms:+.2f} ms", "(median difference)"))
    print(
        figure(
            "ratio shared/direct",
            f"{r.ratio:.2f}x",
            f"target <= {WARM_TARGET_RATIO}x: {verdict(r.ratio <= WARM_TARGET_RATIO)}",
        )
    )


def print_cold(report: Report) -> None:
    if not report.cold:
        return
    print(
        f"2. Cold execute_tool (fresh session, no daemon running, valid cache) vs spawn + initialize + call "
        f"directly ({report.options.repeat} each)"
    )
    print(header())
    for r in report.cold:
        print(f"  {r.target}")
        print(row("through the gateway", r.gateway))
        print(row("direct", r.direct))
        print(figure("ratio gateway/direct", f"{r.ratio:.2f}x"))
    print()


def print_startup(report: Report) -> None:
    s = report.startup
    if s is None:
        return
    print(f"3. Start to an answered tools/list, every subject interleaved, {report.options.repeat} each")
    print(header(extra=f"{'vs minimal':>12}"))
    print(row(MINIMAL, s.minimal))
    for workspace in dict.fromkeys(start.workspace for start in s.gateways):
        print(f"  gateway, {workspace}: {s.workspaces.get(workspace, '')}")
        for start in s.gateways:
            if start.workspace == workspace:
                print_start(s, start)
    print(row(DIRECT, s.direct))
    print(figure("ratio gateway/direct (demo)", f"{s.ratio_to_direct:.2f}x", "(daemon running)"))
    print()


def print_start(s: StartupResult, start: GatewayStart) -> None:
    ratio = s.ratio_to_minimal(start)
    goal = "" if start.goal is None else f"   goal <= {start.goal:g}x: " + verdict(ratio <= start.goal)
    name = start.label.removeprefix(f"{start.workspace}, ")
    print(row(f" {name}: tools/list", start.listed) + f"{ratio:>11.2f}x" + goal)
    print(row("   of which to initialize", start.initialized))
    print(row("   first search_tools answered", start.searched))


def print_search(report: Report) -> None:
    if not report.search:
        return
    print(
        f"4. search_tools round trip vs trivial requests on the same connection "
        f"({report.options.queries} queries from queries.jsonl, interleaved)"
    )
    for r in report.search:
        print(f"  {r.catalog}: {r.servers} servers, {r.tools:,} tools cached; servers started: {r.servers_started}")
        print(figure("spawn to initialize answered", ms(r.initialized_ms)))
        print(figure("first search, sent right then", ms(r.first_search_ms)))
        print(figure("spawn to first search answered", ms(r.initialized_ms + r.first_search_ms)))
        print(header())
        print(row("search_tools", r.search))
        print(row("tools/list", r.tools_list))
        print(row(f"list_tools ({r.list_tools_count}-tool server)", r.list_tools))
        print(figure("search minus list_tools", ms(r.search.median - r.list_tools.median), "(median difference)"))
    print()


def print_imports(report: Report) -> None:
    i = report.imports
    if i is None:
        return
    print(f"5. Start-up imports (python -X importtime, median of {IMPORT_RUNS} runs; importtime adds its own overhead)")
    print(f"  import mcp_gateway.program (the console script's entry){ms(i.cli_entry_ms):>10}")
    print(f"  import mcp (the SDK alone)                            {ms(i.sdk_alone_ms):>10}")
    print("  serving the demo workspace (a front and its shared daemon, started cold), imports per phase:")
    print(f"    {'':<50}  {'front':>10}  {'daemon':>10}")
    for name, (front, daemon) in i.phases_ms.items():
        packages = ", ".join(f"{p} {ms(v)}" for p, v in i.phase_packages.get(name, []) if v >= MIN_PHASE_MS_SHOWN)
        print(f"    {name:<50}  {ms(front):>10}  {ms(daemon):>10}" + (f"  ({packages})" if packages else ""))
    shown = ", ".join(f"{p} {ms(v)}" for p, v in i.front_packages if v >= MIN_PHASE_MS_SHOWN)
    print(f"  the front's start, by package: {shown or 'none over 1 ms'}")
    print("  start to the first search answered (front and daemon), by who caused each import:")
    for name, value in sorted(i.buckets_ms.items(), key=lambda item: -item[1]):
        print(f"    {name:<50}  {ms(value):>10}")
    print(f"  the {HEAVIEST_SHOWN} heaviest packages before the first search was answered (front and daemon)")
    print("  (own: its modules plus the stdlib modules it was first to import; incl.: with all it imported)")
    print(f"    {'package':<26}{'own':>10}{'incl.':>10}  {'first imported by':<36}needed to answer the first search?")
    for package, own, inclusive, by in i.heaviest:
        needed = needed_at_start(package, i.sdk_packages)
        print(f"    {package:<26}{ms(own):>10}{ms(inclusive):>10}  {by[:35]:<36}{needed}")
    total = sum(value for _, value in i.avoidable)
    names = ", ".join(f"{package} {ms(value)}" for package, value in i.avoidable)
    print(f"  avoidable on the start-up path (not needed for the first search, not imported by the SDK): {ms(total)}")
    print(f"    {names or 'none'}")
    print()


def print_report(report: Report) -> None:
    print(f"mcp-gateway latency: gateway vs direct, same run ({report.seconds:.0f} s, {os.cpu_count()} CPUs)")
    print()
    print_warm(report)
    print_cold(report)
    print_startup(report)
    print_search(report)
    print_imports(report)
    misses = [r.target for r in report.warm if not r.passed]
    if report.warm:
        print(f"verdict: warm execute_tool {'MISS (' + ', '.join(misses) + ')' if misses else 'PASS'}")
    if report.startup is not None:
        s = report.startup
        late = [start.label for start in s.gateways if s.met(start) is False]
        print(
            f"verdict: start-up against the minimal SDK server {'MISS (' + ', '.join(late) + ')' if late else 'PASS'}"
        )
