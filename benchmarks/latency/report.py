"""The latency report, as text (aligned tables, one section per pair, then the verdict) or as one JSON
object: both print the same numbers, and neither measures anything.
"""

from __future__ import annotations

import os
from typing import Any

from benchmarks.latency.imports import HEAVIEST_SHOWN, IMPORT_RUNS, needed_to_list
from benchmarks.latency.run import Report
from benchmarks.latency.sampling import Sample
from benchmarks.latency.startup import DIRECT, MINIMAL, OTHER_SUFFIX, TARGET_RATIO, WORKSPACES
from benchmarks.latency.warm import BLOCK_CALLS, WARM_TARGET_RATIO, WARMUP_CALLS, Measured

LABEL_WIDTH = 30
MIN_PHASE_MS_SHOWN = 1.0


def report_json(report: Report) -> dict[str, Any]:
    """Everything measured, as the --json object; the text report prints the same numbers."""
    data: dict[str, Any] = {"options": vars(report.options), "seconds": round(report.seconds, 1)}
    data["warm_execute"] = [
        {
            "target": r.target,
            "gateway": r.gateway.as_json(),
            "direct": r.direct.as_json(),
            "gateway_tools_list": r.hop.as_json(),
            "plain_sdk_server_tools_list": r.sdk_hop.as_json(),
            "ratio": round(r.ratio, 3),
            "target_ratio": WARM_TARGET_RATIO,
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
                    "workspace": start.label,
                    "tools_list": start.listed.as_json(),
                    "initialize": start.initialized.as_json(),
                    "first_search_tools": start.searched.as_json(),
                    "ratio_to_minimal": round(s.ratio_to_minimal(start), 3),
                }
                for start in s.gateways
            ],
            "target_ratio_to_minimal": TARGET_RATIO,
            "ratio_demo_to_direct": round(s.ratio_to_direct, 3),
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
            "serve_phases_ms": {name: round(value, 1) for name, value in i.phases_ms.items()},
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
                    "needed_for_initialize_and_tools_list": needed_to_list(package, i.sdk_packages),
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
    return row(label, measured.latency) + cpu


def print_warm(report: Report) -> None:
    if not report.warm:
        return
    options = report.options
    print(
        f"1. Warm execute_tool vs the same tools/call made directly ({options.calls} calls each, "
        f"rotating blocks of {BLOCK_CALLS}, after {WARMUP_CALLS} warm-up calls)"
    )
    print("  (CPU/req: CPU time of the answering process, the gateway on its rows, the server on the others)")
    print(header(extra=f"{'CPU/req':>12}"))
    for r in report.warm:
        print(f"  {r.target}")
        print(cpu_row("through the gateway", r.gateway))
        print(cpu_row("direct", r.direct))
        print(cpu_row("gateway tools/list (hop)", r.hop))
        print(cpu_row("plain SDK server tools/list", r.sdk_hop))
        added = r.gateway.latency.median - r.direct.latency.median
        verdict = "PASS" if r.passed else "MISS"
        print(figure("added by the gateway", ms(added), "(median difference)"))
        print(figure("ratio gateway/direct", f"{r.ratio:.2f}x", f"target <= {WARM_TARGET_RATIO}x: {verdict}"))
    print()


def print_cold(report: Report) -> None:
    if not report.cold:
        return
    print(
        f"2. Cold execute_tool (fresh gateway, valid cache, server not running) vs spawn + initialize + call "
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
    for start in s.gateways:
        print(f"  gateway, {start.label}: {s.workspaces.get(start.label.removesuffix(OTHER_SUFFIX), '')}")
        ratio = s.ratio_to_minimal(start)
        verdict = (
            ""
            if start.label not in WORKSPACES
            else f"   target <= {TARGET_RATIO}x: " + ("PASS" if ratio <= TARGET_RATIO else "MISS")
        )
        print(row("tools/list answered", start.listed) + f"{ratio:>11.2f}x" + verdict)
        print(row("  of which to initialize", start.initialized))
        print(row("first search_tools answered", start.searched))
    print(row(DIRECT, s.direct))
    print(figure("ratio gateway/direct (demo)", f"{s.ratio_to_direct:.2f}x"))
    print()


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
    print("  serving the demo workspace (python -m mcp_gateway), imports per phase:")
    for name, value in i.phases_ms.items():
        packages = ", ".join(f"{p} {ms(v)}" for p, v in i.phase_packages.get(name, []) if v >= MIN_PHASE_MS_SHOWN)
        print(f"    {name:<50}  {ms(value):>10}" + (f"  ({packages})" if packages else ""))
    print("  start to tools/list answered, by who caused each import:")
    for name, value in sorted(i.buckets_ms.items(), key=lambda item: -item[1]):
        print(f"    {name:<50}  {ms(value):>10}")
    print(f"  the {HEAVIEST_SHOWN} heaviest packages before tools/list was answered")
    print("  (own: its modules plus the stdlib modules it was first to import; incl.: with all it imported)")
    print(f"    {'package':<26}{'own':>10}{'incl.':>10}  {'first imported by':<36}needed to answer tools/list?")
    for package, own, inclusive, by in i.heaviest:
        print(
            f"    {package:<26}{ms(own):>10}{ms(inclusive):>10}  {by[:35]:<36}{needed_to_list(package, i.sdk_packages)}"
        )
    total = sum(value for _, value in i.avoidable)
    names = ", ".join(f"{package} {ms(value)}" for package, value in i.avoidable)
    print(f"  avoidable on the start-up path (not needed for tools/list, not imported by the SDK): {ms(total)}")
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
        print(f"verdict: start-up no later than the minimal SDK server {'PASS' if report.startup.passed else 'MISS'}")
