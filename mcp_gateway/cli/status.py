"""What this workspace knows, read without starting anything: `status`, and `list` with no server (the servers
at a glance).

Everything comes from `StatusReport` (cache.json, the process records running gateways keep, errors.json, the
daemons' state files), so no server costs a start. A workspace where nothing has been listed yet says so and
what to run, rather than showing a table of zeros. What keeps the workspace from working fully is said but is
not a failure (a serving gateway carries on through it), so `status` exits 0. A daemon SIGKILLed left its state
file behind: it is told as not running, with when it was last heard of.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict
from typing import Any

from mcp_gateway.cli.context import load, with_gateway
from mcp_gateway.cli.people import SERVER_PLACEHOLDER, PersonWords, ago, span
from mcp_gateway.cli.signing_in import sign_in_json, sign_in_lines
from mcp_gateway.daemon import DaemonState, ProcessEntry, SessionEntry
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.reports import ServerState, StatusReport
from mcp_gateway.tokens import compact_json
from mcp_gateway.wording import counted

UNKNOWN_COUNT = "-"
FAILING_PHASES = ("startup", "list_tools")
"""A last error in these phases, with no tools cached, means the server's tools cannot be listed."""
NO_DAEMON = "daemon: not running (the next client session starts one, unless sharing is off)"
INDENT = "    "


def run(args: argparse.Namespace) -> int:
    report = with_gateway(args, Gateway.status, config=load(args, quiet=args.json))
    program = PersonWords.of(args).program
    if args.command == "status":
        print(json.dumps(status_json(report), indent=2) if args.json else "\n".join(status_lines(report, program)))
    else:
        print(compact_json(overview_json(report)) if args.json else "\n".join(overview_lines(report, program)))
    return 0


def awaiting_line(awaiting: int, program: str) -> str:
    """What is held back from the model until a person reviews it (`doctor` says it too)."""
    return f"{counted(awaiting, 'definition')} await your review, held back from the model: run {program} review"


def never_listed(report: StatusReport) -> bool:
    """Nothing has been listed in this workspace yet: no enabled server has tools cached or a failure known."""
    enabled = [server for server in report.servers if server.cache != "disabled"]
    return bool(enabled) and all(server.cache in ("missing", "loading") and not failing(server) for server in enabled)


def failing(server: ServerState) -> bool:
    """Its tools could not be listed: none are cached, and its last error came from a start or a listing."""
    if server.cache == "failed":
        return True
    error = server.last_error
    return server.cache == "missing" and error is not None and error.phase in FAILING_PHASES


def nothing_listed_line(program: str) -> str:
    return (
        f"No server's tools have been listed yet: run {program} refresh to list them "
        "(a serving gateway also lists them as it starts)."
    )


def state_words(server: ServerState, program: str | None) -> str:
    """What the gateway knows of the server's tools, in a few words ("cached, listed 3m ago"); a server never
    listed says what to run, with `program` (None: said once for all of them)."""
    if failing(server):
        return "failing: its tools could not be listed"
    match server.cache:
        case "disabled":
            return "disabled in config.json"
        case "loading":
            return "being listed"
        case "fresh" | "stale" if server.fetched_at is not None:
            stale = ", due a refresh" if server.cache == "stale" else ""
            return f"cached, listed {ago(server.fetched_at)}{stale}"
        case "fresh" | "stale":
            return "cached"
        case _:
            return "never listed" if program is None else f"never listed: run {program} refresh {server.name}"


def running_words(server: ServerState) -> str:
    if server.running:
        return "running (" + ", ".join(f"pid {process.pid}" for process in server.running) + ")"
    return "connected" if server.connected else "not running"


def overview_lines(report: StatusReport, program: str) -> list[str]:
    if not report.servers and not report.rejected:
        return [report.no_servers_hint] if report.no_servers_hint else []
    width = max((len(name) for name in (*(server.name for server in report.servers), *report.rejected)), default=0)
    nothing_listed = never_listed(report)
    lines = [nothing_listed_line(program)] if nothing_listed else []
    for server in report.servers:
        state = state_words(server, None if nothing_listed else program)
        running = "" if server.cache == "disabled" else f"; {running_words(server)}"
        # No count known (never listed, failing, disabled) is "-", not a count of zero.
        tools = counted(server.tool_count, "tool") if server.cache in ("fresh", "stale") else UNKNOWN_COUNT
        lines.append(f"{server.name:<{width}}  {tools:<10} {state}{running}")
        if server.last_error is not None and state.startswith("failing"):
            lines.append(f"{'':<{width}}  last error ({ago(server.last_error.at)}): {server.last_error.message}")
    for name, reason in report.rejected.items():
        lines.append(f"{name:<{width}}  {UNKNOWN_COUNT:<10} invalid config entry: {reason}")
    if report.servers and not nothing_listed:
        lines.append(f"{program} list {SERVER_PLACEHOLDER} shows a server's tools.")
    return lines


def overview_json(report: StatusReport) -> dict[str, Any]:
    return {
        "servers": [
            {
                "server": server.name,
                "cache": server.cache,
                "tools": server.tool_count,
                "fetchedAt": server.fetched_at,
                "running": [process.pid for process in server.running],
                "lastError": server.last_error.message if server.last_error is not None else None,
            }
            for server in report.servers
        ],
        "rejected": dict(report.rejected),
    }


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
        "signIn": sign_in_json(server.sign_in),
    }


def status_lines(report: StatusReport, program: str) -> list[str]:
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
    lines += sign_in_lines(server.name, server.sign_in, program)
    if server.last_error is not None:
        error = server.last_error
        retry = "a retry may help" if error.retryable else "a retry will not help"
        lines.append(f"    last error ({error.phase}, {ago(error.at)}; {retry}): {error.message}")
    return lines


def daemon_lines(report: StatusReport) -> list[str]:
    lines: list[str] = []
    for daemon in report.daemons:
        lines.append(f"daemon: {_daemon_words(daemon)}")
        lines += [f"{INDENT}session {session.id}: {_session_words(session)}" for session in daemon.sessions]
        if daemon.sessions_left_out:
            lines.append(f"{INDENT}and {counted(daemon.sessions_left_out, 'more session')}")
    if not report.daemons:
        lines.append(NO_DAEMON)
    lines += [
        f"daemon: not running (stale state from pid {stale.pid}, "
        f"{f'started {ago(stale.start)}' if stale.start is not None else 'start unknown'}, last written "
        f"{ago(stale.written_at)}; the next daemon removes it)"
        for stale in report.stale_daemons
    ]
    return lines


def process_lines(report: StatusReport, server: str) -> list[str]:
    lines: list[str] = []
    for daemon in report.daemons:
        names = {session.id: session.client_name for session in daemon.sessions}
        for process in daemon.processes:
            if process.server == server:
                lines.append(f"{INDENT}{_process_words(daemon, process, names)}")
    return lines


def daemons_json(report: StatusReport) -> dict[str, Any]:
    now = time.time()
    return {
        "daemons": [_daemon_json(daemon, running=True, now=now) for daemon in report.daemons],
        "staleDaemons": [_daemon_json(daemon, running=False, now=now) for daemon in report.stale_daemons],
    }


def _daemon_words(daemon: DaemonState) -> str:
    parts = [
        f"pid {daemon.pid}",
        f"up {span(time.time() - daemon.start)}" if daemon.start is not None else "running",
        f"mcp-gateway {daemon.version} (front protocol {daemon.front_protocol})",
        f"socket {daemon.socket}",
    ]
    if daemon.sessions:
        parts.append(counted(len(daemon.sessions) + daemon.sessions_left_out, "session"))
    elif daemon.idle_since is not None:
        left = daemon.idle_since + daemon.grace_seconds - time.time()
        parts.append(f"no session: it stops in {span(left)} unless one connects")
    return ", ".join(parts)


def _session_words(session: SessionEntry) -> str:
    if session.client_name is None:
        who = "a client that has not finished its handshake"
    else:
        who = f"{session.client_name} {session.client_version or ''}".rstrip()
    return f"{who}, connected {ago(session.connected_at)}, {_in_flight(session.calls_in_flight)}"


def _process_words(daemon: DaemonState, process: ProcessEntry, names: dict[int, str | None]) -> str:
    what = f"pid {process.pid}" if process.pid is not None else "no local process"
    users = [f"session {user} ({names.get(user) or 'unnamed'})" for user in process.sessions]
    if process.sessions_left_out:
        users.append(counted(process.sessions_left_out, "more session"))
    used = f"used by {', '.join(users)}" if users else "used by no open session"
    return f"daemon {daemon.pid}: {what}, {process.state}, {_in_flight(process.calls_in_flight)}; {used}"


def _daemon_json(daemon: DaemonState, *, running: bool, now: float) -> dict[str, Any]:
    written = daemon.document()
    return {
        "pid": daemon.pid,
        "running": running,
        "startedAt": daemon.start,
        "uptimeSeconds": max(0.0, now - daemon.start) if running and daemon.start is not None else None,
        **{
            key: written[key]
            for key in ("version", "frontProtocol", "socket", "graceSeconds", "idleSince", "writtenAt")
        },
        "sessions": [
            {
                "id": session.id,
                "client": {"name": session.client_name, "version": session.client_version},
                "connectedAt": session.connected_at,
                "callsInFlight": session.calls_in_flight,
            }
            for session in daemon.sessions
        ],
        "sessionsLeftOut": daemon.sessions_left_out,
        "processes": written["processes"],  # as the file has them
        "processesLeftOut": daemon.processes_left_out,
    }


def _in_flight(calls: int) -> str:
    return f"{counted(calls, 'call') if calls else 'no call'} in flight"
