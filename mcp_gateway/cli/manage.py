"""`refresh`, `status` and `config`: looking after the workspace.

`refresh` lists servers now: a line on stderr as each one starts and as it ends (`cli/progress.py`, as
`doctor` shows them), its report on stdout (a line per server, then the totals), exit 1 when one failed.
`config path` prints only the path, having created the file from the template (with its folder) when
nothing was there, and says so on stderr; `config check` prints every diagnostic on stderr and the counts.

`status` reports what this workspace knows without starting anything: each server's cache state and tool
count from cache.json, whether a running gateway has it started (from the process records gateways keep),
and its last error (from errors.json, written by whichever gateway saw it). A server never listed says so and
what to run, and so does a workspace where nothing has been listed yet, rather than a table of zeros. Then
what failed in the background of the running gateways (the gateway served on; the traceback is in its log).
What keeps the workspace from working fully (a `logs` that is a file, a cache.json that cannot be read or a
newer gateway wrote) is said too, and is not a failure: a serving gateway carries on through it, so `status`
exits 0.
Every message it prints passes through the config's `SecretMask`: errors.json may have been written by a
gateway that did not mask.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from mcp_gateway.cli.context import load, read_status, with_gateway
from mcp_gateway.cli.daemon_words import daemon_lines, daemons_json, process_lines
from mcp_gateway.cli.doctor import awaiting_line
from mcp_gateway.cli.overview import ago, failing, never_listed, nothing_listed_line, running_words
from mcp_gateway.cli.people import PersonWords
from mcp_gateway.cli.progress import ProgressLines
from mcp_gateway.cli.signing_in import sign_in_json, sign_in_words
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.home import ensure_config_file
from mcp_gateway.service.reports import RefreshReport, ServerState, StatusReport
from mcp_gateway.wording import counted

REFRESH_FAILED = 1
CONFIG_INVALID = 1
NO_SERVERS = "no enabled servers; run `mcp-gateway import --client NAME`, or add servers under 'mcpServers'"


def run_refresh(args: argparse.Namespace) -> int:
    config = load(args)
    progress = ProgressLines()

    async def work(gateway: Gateway) -> RefreshReport:
        names = [gateway.resolve_server(args.server)] if args.server else None
        # Named servers are listed as named; without names, the enabled ones are (see `Gateway.refresh`).
        progress.total = len(names) if names is not None else len(config.enabled_servers)
        return await gateway.refresh(names, on_progress=progress.show)

    report = with_gateway(args, work, config=config)
    return REFRESH_FAILED if print_refreshed(report) else 0


def print_refreshed(report: RefreshReport) -> int:
    """One line per server listed, then the totals; how many failed (or could not be saved)."""
    failed = len(report.failed)
    if report.cache_notice is not None:  # listed, but not saved for the next start
        failed += 1
        print(f"mcp-gateway: {report.cache_notice}", file=sys.stderr)
    if not report.outcomes:
        print(f"Nothing to refresh: {NO_SERVERS}.")
        return failed
    for outcome in report.outcomes:
        if outcome.failure is not None:
            print(f"{outcome.server}: failed: {outcome.failure}")
        else:
            print(f"{outcome.server}: {counted(outcome.tool_count or 0, 'tool')}")
    total = counted(len(report.outcomes), "server")
    tools = counted(sum(outcome.tool_count or 0 for outcome in report.outcomes), "tool")
    if report.failed:
        listed = len(report.outcomes) - len(report.failed)
        print(f"Refreshed {listed} of {total}: {tools}; {len(report.failed)} failed.")
    else:
        print(f"Refreshed {total}: {tools}.")
    return failed


def run_status(args: argparse.Namespace) -> int:
    config = load(args, quiet=args.json)
    report = read_status(args, config)
    if args.json:
        print(json.dumps(status_json(report), indent=2))
    else:
        print("\n".join(status_lines(report, PersonWords.of(args).program)))
    return 0


def status_json(report: StatusReport) -> dict[str, Any]:
    return {
        "config": str(report.config_path),
        "servers": [_server_json(server) for server in report.servers],
        "rejected": dict(report.rejected),
        "backgroundProblems": [
            {"gatewayPid": failure.gateway_pid, "task": failure.task, "error": failure.error, "at": failure.at}
            for failure in report.background_failures
        ],
        "workspaceProblems": list(report.workspace_problems),
        "cacheNotice": report.cache_notice,
        "configProblem": report.config_problem,
        "awaitingReview": report.awaiting_review,
        **daemons_json(report),
    }


def _server_json(server: ServerState) -> dict[str, Any]:
    return {
        "server": server.name,
        "transport": server.transport,
        "lifecycle": server.lifecycle,
        "cache": server.cache,
        "tools": server.tool_count,
        "fetchedAt": server.fetched_at,
        "protocol": server.protocol_version,
        "running": [{"gatewayPid": running.gateway_pid, "pid": running.pid} for running in server.running],
        "lastError": asdict(server.last_error) if server.last_error else None,
        "skippedTools": list(server.skipped_tools),
        "prompts": server.offered[0],
        "resources": server.offered[1],
        "resourceTemplates": server.offered[2],
        "skippedPromptsAndResources": list(server.skipped_offered),
        "signIn": None if server.sign_in is None else sign_in_json(server.sign_in),
    }


def status_lines(report: StatusReport, program: str) -> list[str]:
    """`program` is the `mcp-gateway` a person ran (with their `--home`), for the commands the lines suggest."""
    lines = [f"config: {report.config_path}"]
    lines += [f"workspace problem: {problem}" for problem in report.workspace_problems]
    if report.config_problem:
        lines.append(f"config problem: {report.config_problem}")
    if report.cache_notice:
        lines.append(f"cache: {report.cache_notice}")
    lines += daemon_lines(report)
    if report.no_servers_hint is not None and not report.rejected:
        lines.append(report.no_servers_hint)
    nothing_listed = never_listed(report)
    if nothing_listed:
        lines.append(nothing_listed_line(program))
    for server in report.servers:
        lines += _server_lines(server, program, nothing_listed=bool(nothing_listed))
        lines += process_lines(report, server.name)
    lines += [f"{name}: invalid config entry: {reason}" for name, reason in report.rejected.items()]
    if report.awaiting_review:
        lines.append(awaiting_line(report.awaiting_review, program))
    if report.background_failures:
        lines.append("background problems (the gateway served on; details in its log):")
    lines += [
        f"    gateway pid {failure.gateway_pid}, {ago(failure.at)}: {failure.task}: {failure.error}"
        for failure in report.background_failures
    ]
    return lines


def _server_lines(server: ServerState, program: str, *, nothing_listed: bool) -> list[str]:
    """One server's line of `status`, and the lines under it (what was left out, its last error)."""
    lines: list[str] = []
    if failing(server):  # its count would be a confusing "0 tools"; the error is on the next line
        known = "its tools could not be listed"
    elif server.cache == "missing":
        known = "never listed" if nothing_listed else f"never listed (run {program} refresh {server.name})"
    elif server.cache == "disabled":
        known = "in config.json"
    else:
        age = f", fetched {ago(server.fetched_at)}" if server.fetched_at else ""
        offered = zip(server.offered, ("prompt", "resource", "resource template"), strict=True)
        also = "".join(f", {counted(count, noun)}" for count, noun in offered if count)
        known = f"{counted(server.tool_count, 'tool')}{also}{age}"
    lines.append(f"{server.name}: {server.cache}, {known}; {running_words(server)} ({server.lifecycle})")
    if server.skipped_tools:
        lines.append(f"    left out of its tool list as unusable: {'; '.join(server.skipped_tools)}")
    if server.skipped_offered:
        lines.append(f"    left out of its prompts and resources: {'; '.join(server.skipped_offered)}")
    if server.sign_in is not None and server.sign_in.state != "not needed":
        lines.append(f"    sign-in: {sign_in_words(server.name, server.sign_in, program)}")
    if server.last_error is not None:
        error = server.last_error
        retry = "a retry may help" if error.retryable else "a retry will not help"
        lines.append(f"    last error ({error.phase}, {ago(error.at)}; {retry}): {error.message}")
    return lines


def run_config(args: argparse.Namespace) -> int:
    if args.config_command == "path":
        path, created = ensure_config_file(args.home)
        if created:
            print(f"mcp-gateway: created {path} from the template (no servers yet)", file=sys.stderr)
        print(path)
        return 0
    config = load(args)
    counts = (
        f"{counted(len(config.enabled_servers), 'enabled server')}, {len(config.rejected)} invalid, "
        f"{counted(len(config.diagnostics), 'diagnostic')}"
    )
    print(f"{config.path}: {counts}")
    return CONFIG_INVALID if config.errors else 0
