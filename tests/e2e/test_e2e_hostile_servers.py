"""Hostile and broken servers, end to end: the real gateway keeps each failure to the call it belongs to.

A server may answer with the very error codes the SDK uses for its own timeouts and closed connections,
answer with JSON that is not JSON-RPC, list tools that cannot be used, die right after its handshake, or
send back more than anyone should store. Each case below runs the real `mcp-gateway` process in front of
the fake server (or the HTTP fixture) and checks what the model is told, how fast, and what is kept.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from e2e_gateway import (
    SESSION_SECONDS,
    downstream_pid,
    execute,
    gateway_session,
    payload_of,
    read_lines,
    run_cli_async,
    text_of,
)
from mcp import Client
from mcp.shared.exceptions import MCPError
from remote_fixture import running_remote
from test_remote_downstreams import gateway, remote_entry
from workspaces import fake_server, refreshed_workspace, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

PROMPT_SECONDS = 30.0
"""A call that fails "at once" answers well before the request timeout (60 s by default) it would otherwise
wait out: half of it leaves a loaded machine all the room it needs and still tells the two apart."""
"""Far below every timeout in play (60 s): an answer within this came from the reply, not a timeout."""
MEGABYTE = 1024 * 1024


@pytest.mark.parametrize("code", [-32000, -32001])
async def test_a_server_error_with_the_sdks_own_codes_reaches_the_model_as_the_servers_error(
    tmp_path: Path, code: int
) -> None:
    home = tmp_path / "home"
    await refreshed_workspace(home, {"fake": fake_server()})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            pid = await downstream_pid(client, "fake")
            result = await execute(client, "fake.rpc_error", {"code": code, "message": "quota exhausted for today"})
            still = await downstream_pid(client, "fake")
    assert result.is_error
    message = text_of(result)
    assert f"Server 'fake' answered 'rpc_error' with an error: quota exhausted for today (code {code})." in message
    assert "lost" not in message
    assert "did not answer" not in message
    assert still == pid, "a server's error must not retire its connection"


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("result_list", "the result must be an object"),
        ("result_string", "the result must be an object"),
        ("error_not_object", "the error must be an object"),
        ("no_jsonrpc", 'the "jsonrpc" member must be "2.0"'),
    ],
)
async def test_a_reply_that_is_not_json_rpc_fails_its_call_at_once_and_the_server_keeps_serving(
    tmp_path: Path, kind: str, reason: str
) -> None:
    home = tmp_path / "home"
    await refreshed_workspace(home, {"fake": fake_server()})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            started = time.monotonic()
            result = await execute(client, "fake.bad_response", {"kind": kind})
            elapsed = time.monotonic() - started
            after = await execute(client, "fake.echo", {"message": "still here"})
    assert result.is_error
    assert "answered 'bad_response' with a reply the gateway cannot use" in text_of(result)
    assert reason in text_of(result)
    assert elapsed < PROMPT_SECONDS
    assert text_of(after) == "still here"


async def test_a_reply_nested_past_the_gateways_limit_fails_its_call_at_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    await refreshed_workspace(home, {"fake": fake_server()})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            started = time.monotonic()
            result = await execute(client, "fake.bad_response", {"kind": "deep", "depth": 700})
            elapsed = time.monotonic() - started
    assert result.is_error
    assert "nested more than 250 levels deep" in text_of(result)
    assert elapsed < PROMPT_SECONDS


UNUSABLE_LISTINGS: list[dict[str, Any]] = [
    {"name": 42, "inputSchema": {"type": "object"}},
    {"description": "a tool without a name", "inputSchema": {"type": "object"}},
    {"name": "string_schema", "inputSchema": "not an object"},
    {"name": "weather_report", "description": "Report the weather of a city", "inputSchema": {"type": "object"}},
]


async def test_unusable_tool_entries_are_left_out_with_a_note_and_the_rest_stay_usable(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_workspace(home, {"fake": fake_server(tools_json=json.dumps(UNUSABLE_LISTINGS))})
    refreshed = await run_cli_async("refresh", home=home)
    assert refreshed.returncode == 0, refreshed.stderr + refreshed.stdout
    status = await run_cli_async("status", "--json", home=home)
    row = json.loads(status.stdout)["servers"][0]
    skipped = row["skippedTools"]
    assert len(skipped) == 3, skipped
    assert skipped[0].startswith("entry ")
    assert any("string_schema" in note for note in skipped)
    text_status = await run_cli_async("status", home=home)
    assert "left out of its tool list as unusable" in text_status.stdout
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            found = payload_of(await client.call_tool("search_tools", {"query": "weather report for a city"}))
            listed = payload_of(await client.call_tool("list_tools", {"server": "fake"}))
            echoed = await execute(client, "fake.echo", {"message": "usable"})
    assert found["results"][0]["tool"] == "fake.weather_report"
    assert "weather_report" in {tool["name"] for tool in listed["tools"]}
    assert listed["total"] == row["tools"]
    assert text_of(echoed) == "usable"


@pytest.mark.parametrize("die_on", ["list", "call"])
async def test_a_server_that_dies_right_after_its_handshake_is_backed_off_not_respawned_by_every_call(
    tmp_path: Path, die_on: str
) -> None:
    spawns = tmp_path / "spawns.log"
    home = tmp_path / "home"
    write_workspace(
        home,
        {"dying": fake_server(die_on=die_on, spawn_log=str(spawns)), "steady": fake_server()},
        {"failureBackoffMs": 60_000, "startupMetadataCheck": False},
    )
    results: list[types.CallToolResult] = []
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            for _ in range(3):
                if die_on == "list":
                    results.append(await client.call_tool("list_tools", {"server": "dying"}))
                else:
                    results.append(await execute(client, "dying.echo", {"message": "x"}))
            steady = await execute(client, "steady.echo", {"message": "fine"})
    assert all(result.is_error for result in results)
    assert len(read_lines(spawns)) == 1, "every call started the dying server again"
    assert "lost" in text_of(results[0])
    for later in results[1:]:
        assert "will not be retried for" in text_of(later)
        assert "before answering a tool call, so it counts as a failed start" in text_of(later)
    assert text_of(steady) == "fine"


async def test_echoes_of_huge_names_and_messages_are_bounded_everywhere_they_are_kept(tmp_path: Path) -> None:
    home = tmp_path / "home"
    await refreshed_workspace(home, {"fake": fake_server(extra_tools="20000")})
    huge_name = "n" * MEGABYTE
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            with pytest.raises(MCPError) as too_long:  # past what the shared daemon reads in one line: unread
                await execute(client, "n" * (5 * MEGABYTE), {})
            unknown = await execute(client, huge_name, {})
            unknown_on_server = await execute(client, f"fake.{huge_name}", {})
            failing = await execute(client, "fake.rpc_error", {"code": -32603, "message": "e", "repeat": 2 * MEGABYTE})
            first_page = payload_of(await client.call_tool("list_tools", {"server": "fake"}))
            next_page = payload_of(
                await client.call_tool("list_tools", {"server": "fake", "offset": first_page["nextOffset"]})
            )
    assert too_long.value.error.code == types.INVALID_REQUEST
    assert "more than the 4194304 the gateway reads in one" in too_long.value.error.message
    for result in (unknown, unknown_on_server, failing):
        assert result.is_error
        assert len(text_of(result)) < 5000
        assert "more characters)" in text_of(result)
    assert first_page["total"] > 20000
    assert len(first_page["tools"]) == 100
    assert first_page["nextOffset"] == 100
    assert next_page["offset"] == 100
    assert len(json.dumps(first_page)) < 20_000
    journal = (home / "errors.json").read_text()
    assert len(journal) < 10_000
    assert "more characters)" in journal


@pytest.mark.parametrize("events", [False, True], ids=["json-body", "sse-event"])
async def test_a_remote_answer_over_the_message_limit_fails_that_call_naming_the_server_and_the_limit(
    tmp_path: Path, events: bool
) -> None:
    home = tmp_path / "home"
    flags = () if events else ("--json-response",)
    with running_remote("streamable-http", *flags) as port:
        write_workspace(home, {"remote": remote_entry("streamable-http", port)})
        with anyio.fail_after(SESSION_SECONDS * 2):
            async with Client(gateway(home)) as client:
                big = await client.call_tool(
                    "execute_tool", {"tool": "remote.big", "arguments": {"size": 70 * MEGABYTE}}
                )
                fine = await client.call_tool("execute_tool", {"tool": "remote.echo", "arguments": {"message": "ok"}})
    assert big.is_error
    message = text_of(big)
    assert "remote" in message
    assert "64 MiB" in message or "67108864" in message, message[:500]
    assert (fine.is_error, text_of(fine)) == (False, "ok")
