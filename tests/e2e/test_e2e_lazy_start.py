"""Lazy start, end to end: with a valid cache, nothing runs until a tool is really called.

Starts are counted with spawn logs that the downstream processes append their pid to: the fake server's
FAKE_MCP_SPAWN_LOG knob, and for server-everything a wrapper script that logs, then execs the real binary.
A first gateway session builds cache.json; the session under test is a new gateway process.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from e2e_gateway import (
    META_TOOLS,
    SESSION_SECONDS,
    build_cache,
    gateway_session,
    payload_of,
    ranked_tools,
    read_lines,
    search,
    spawn_logging_wrapper,
    started_after,
    text_of,
)
from gateway_testing import peer
from workspaces import fake_server, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


async def test_execute_tool_with_invalid_arguments_names_the_problem_and_starts_no_server(tmp_path: Path) -> None:
    log = tmp_path / "everything-spawns.log"
    wrapper = spawn_logging_wrapper(tmp_path, peer("mcp-server-everything"), log)
    home = tmp_path / "home"
    write_workspace(home, {"everything": {"command": str(wrapper)}})
    with anyio.fail_after(SESSION_SECONDS):
        await build_cache(home, "add two numbers", ["everything"])
    before = read_lines(log)
    assert len(before) == 1, "the first session lists server-everything's tools once"

    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            result = await client.call_tool(
                "execute_tool", {"tool": "everything.get-sum", "arguments": {"a": "x", "b": 3}}
            )
            during = read_lines(log)

    assert result.is_error, text_of(result)
    text = text_of(result)
    assert "everything.get-sum" in text
    assert "'x'" in text
    assert "number" in text
    assert started_after(before, during) == []
    assert started_after(before, read_lines(log)) == []


async def test_with_a_valid_cache_only_the_first_execute_tool_starts_a_server_and_only_that_one(
    tmp_path: Path,
) -> None:
    fake_log = tmp_path / "fake-spawns.log"
    everything_log = tmp_path / "everything-spawns.log"
    wrapper = spawn_logging_wrapper(tmp_path, peer("mcp-server-everything"), everything_log)
    home = tmp_path / "home"
    write_workspace(home, {"fake": fake_server(spawn_log=str(fake_log)), "everything": {"command": str(wrapper)}})
    with anyio.fail_after(SESSION_SECONDS):
        await build_cache(home, "echo the message", ["fake", "everything"])
    fake_before, everything_before = read_lines(fake_log), read_lines(everything_log)
    assert (len(fake_before), len(everything_before)) == (1, 1)

    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            listed = await client.list_tools()
            found = await search(client, "add two numbers")
            directory = payload_of(await client.call_tool("list_tools", {"server": "fake"}))
            described = await client.call_tool("describe_tool", {"tool": "everything.get-sum"})
            idle = read_lines(fake_log), read_lines(everything_log)

            first = await client.call_tool("execute_tool", {"tool": "fake.pid", "arguments": {}})
            after_first = read_lines(fake_log), read_lines(everything_log)
            second = await client.call_tool("execute_tool", {"tool": "fake.echo", "arguments": {"message": "hi"}})
            after_second = read_lines(fake_log), read_lines(everything_log)

    # Answered from cache.json alone.
    assert [tool.name for tool in listed.tools] == META_TOOLS
    assert "everything.get-sum" in ranked_tools(found)[:3]
    assert "echo" in [entry["name"] for entry in directory["tools"]]
    assert not described.is_error, text_of(described)
    assert idle == (fake_before, everything_before), "listing, searching and describing must start nothing"

    assert not first.is_error, text_of(first)
    assert first.structured_content is not None
    assert started_after(fake_before, after_first[0]) == [str(first.structured_content["pid"])]
    assert after_first[1] == everything_before

    assert text_of(second) == "hi"
    assert after_second == after_first, "the running server is reused"


async def test_a_server_whose_command_is_missing_gives_an_error_result_and_the_other_server_keeps_working(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "no-such-dir" / "no-such-mcp-server"
    home = tmp_path / "home"
    write_workspace(home, {"broken": {"command": str(missing)}, "fake": fake_server()})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            before = await client.call_tool("execute_tool", {"tool": "fake.echo", "arguments": {"message": "one"}})
            broken = await client.call_tool("execute_tool", {"tool": "broken.anything", "arguments": {}})
            listing = await client.call_tool("list_tools", {"server": "broken"})
            after = await client.call_tool("execute_tool", {"tool": "fake.echo", "arguments": {"message": "two"}})

    assert broken.is_error, text_of(broken)
    assert "'broken'" in text_of(broken)
    assert str(missing) in text_of(broken)
    assert "not found" in text_of(broken)
    assert listing.is_error, text_of(listing)
    assert "'broken'" in text_of(listing)
    assert (before.is_error, text_of(before)) == (False, "one")
    assert (after.is_error, text_of(after)) == (False, "two")
