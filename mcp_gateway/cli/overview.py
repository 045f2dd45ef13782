"""The servers at a glance, for a person: what `list` with no server prints, in the words `status` shares.

Everything comes from `StatusReport` (cache.json, the process records of running gateways, errors.json), so it
starts nothing and costs no server a start. A server is told in the states a person thinks in: its tools
cached (with how long ago they were listed), never listed (and what to run), failing (its last error said
when the gateway has no tools of it to show), disabled; and whether a gateway runs it. Before anything has
been listed at all, one line says so and what to run, instead of a table of zeros.
"""

from __future__ import annotations

import time
from typing import Any

from mcp_gateway.cli.people import SERVER_PLACEHOLDER
from mcp_gateway.service.reports import ServerState, StatusReport
from mcp_gateway.wording import counted

UNKNOWN_COUNT = "-"
FAILING_PHASES = ("startup", "list_tools")
"""A last error in these phases, with no tools cached, means the server's tools cannot be listed."""


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
    if server.connected:
        return "connected"
    return "not running"


def tools_words(server: ServerState) -> str:
    """Its tool count, or "-" when none is known (never listed, failing, disabled): not a count of zero."""
    if server.cache in ("fresh", "stale"):
        return counted(server.tool_count, "tool")
    return UNKNOWN_COUNT


def overview_lines(report: StatusReport, program: str) -> list[str]:
    """One line per server (its tools, state, whether it runs), then what to run next."""
    if not report.servers and not report.rejected:
        return [report.no_servers_hint] if report.no_servers_hint else []
    width = max((len(name) for name in (*(server.name for server in report.servers), *report.rejected)), default=0)
    nothing_listed = never_listed(report)
    lines = [nothing_listed_line(program)] if nothing_listed else []
    for server in report.servers:
        state = state_words(server, None if nothing_listed else program)
        running = "" if server.cache == "disabled" else f"; {running_words(server)}"
        lines.append(f"{server.name:<{width}}  {tools_words(server):<10} {state}{running}")
        if server.last_error is not None and state.startswith("failing"):
            lines.append(f"{'':<{width}}  last error ({ago(server.last_error.at)}): {server.last_error.message}")
    for name, reason in report.rejected.items():
        lines.append(f"{name:<{width}}  {UNKNOWN_COUNT:<10} invalid config entry: {reason}")
    if report.servers and not nothing_listed:
        lines.append(f"{program} list {SERVER_PLACEHOLDER} shows a server's tools.")
    return lines


def overview_json(report: StatusReport) -> dict[str, Any]:
    """The servers at a glance, for a program: each with its cache state, tool count and whether it runs."""
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


def ago(epoch: float) -> str:
    seconds = max(0.0, time.time() - epoch)
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f}{unit} ago"
    return f"{seconds:.0f}s ago"
