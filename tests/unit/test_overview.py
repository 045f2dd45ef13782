"""The servers at a glance (`list` with no server) and `status`, told to a person from a `StatusReport`."""

from __future__ import annotations

import time
from pathlib import Path

from mcp_gateway.cli.status import NO_DAEMON, never_listed, overview_lines, state_words, status_lines
from mcp_gateway.service.reports import CacheState, LastError, RunningProcess, ServerState, StatusReport

PROGRAM = "mcp-gateway"


def server(
    name: str,
    cache: CacheState,
    tools: int = 0,
    *,
    error: LastError | None = None,
    running: tuple[RunningProcess, ...] = (),
) -> ServerState:
    listed = cache in ("fresh", "stale")
    return ServerState(
        name=name,
        transport="stdio",
        lifecycle="lazy",
        cache=cache,
        tool_count=tools,
        fetched_at=time.time() - 120 if listed else None,
        protocol_version=None,
        running=running,
        connected=False,
        last_error=error,
    )


def report(*servers: ServerState, rejected: dict[str, str] | None = None) -> StatusReport:
    return StatusReport(
        config_path=Path("/home/me/config.json"),
        servers=servers,
        rejected=rejected or {},
        background_failures=(),
        workspace_problems=(),
        cache_notice=None,
    )


START_FAILED = LastError("startup", "Server 'broken' exited before the MCP handshake finished.", True, time.time())


def test_a_workspace_where_nothing_was_listed_says_so_once_and_what_to_run() -> None:
    fresh_home = report(server("a", "missing"), server("b", "missing"), server("off", "disabled"))
    assert never_listed(fresh_home)
    lines = overview_lines(fresh_home, PROGRAM)
    assert lines[0].startswith("No server's tools have been listed yet: run mcp-gateway refresh")
    assert [line for line in lines if "refresh" in line] == [lines[0]]
    assert not any("0 tools" in line for line in lines)


def test_a_failure_is_not_nothing_listed_yet() -> None:
    assert not never_listed(report(server("broken", "missing", error=START_FAILED)))
    assert not never_listed(report(server("off", "disabled")))


def test_each_server_shows_its_tool_count_in_the_singular_or_plural_and_its_state() -> None:
    lines = overview_lines(
        report(
            server("one", "fresh", 1, running=(RunningProcess(10, 11),)),
            server("two", "stale", 2),
            server("new", "missing"),
            server("broken", "missing", error=START_FAILED),
            server("off", "disabled"),
            rejected={"typo": "neither 'command' nor 'url'"},
        ),
        PROGRAM,
    )
    text = "\n".join(lines)
    assert lines[0].split()[:4] == ["one", "1", "tool", "cached,"], lines[0]
    assert "running (pid 11)" in lines[0]
    assert "2 tools" in lines[1]
    assert "due a refresh" in lines[1]
    assert "never listed: run mcp-gateway refresh new" in text
    assert "failing: its tools could not be listed" in text
    assert START_FAILED.message in text
    assert "disabled in config.json" in text
    assert "typo" in text
    assert "invalid config entry" in text
    assert lines[-1] == "mcp-gateway list <server> shows a server's tools."


def test_state_words_name_the_command_only_when_asked_to() -> None:
    assert state_words(server("new", "missing"), None) == "never listed"
    assert state_words(server("new", "missing"), "mcp-gateway --home /x") == (
        "never listed: run mcp-gateway --home /x refresh new"
    )


def test_no_servers_at_all_gives_the_hint_to_add_some() -> None:
    empty = StatusReport(
        config_path=Path("/c.json"),
        servers=(),
        rejected={},
        background_failures=(),
        workspace_problems=(),
        cache_notice=None,
        no_servers_hint="No MCP servers are configured.",
    )
    assert overview_lines(empty, PROGRAM) == ["No MCP servers are configured."]


def test_status_before_the_first_refresh_says_nothing_is_listed_and_shows_no_zero_counts() -> None:
    lines = status_lines(report(server("a", "missing"), server("b", "missing")), PROGRAM)
    assert lines[1] == NO_DAEMON
    assert lines[2].startswith("No server's tools have been listed yet: run mcp-gateway refresh")
    assert lines[3:] == ["a: missing, never listed; not running (lazy)", "b: missing, never listed; not running (lazy)"]


def test_status_after_a_refresh_counts_tools_and_points_a_new_server_to_refresh() -> None:
    lines = status_lines(report(server("a", "fresh", 1), server("new", "missing")), PROGRAM)
    assert lines[2].startswith("a: fresh, 1 tool, fetched 2m ago;"), lines
    assert lines[3] == "new: missing, never listed (run mcp-gateway refresh new); not running (lazy)"
