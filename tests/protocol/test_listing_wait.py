"""A first session: reads wait, boundedly, for the listings under way, with progress.

In-process: the downstream servers are SDK servers whose `tools/list` waits on a gate the test opens, so a
listing takes exactly as long as a test needs. "Waiting" is proven by round trips the gateway answers while
the read is still open, never by sleeping.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from gateway_testing import load, write_workspace
from inprocess_fakes import FakeDownstream, InProcessConnector
from mcp import Client

from mcp_gateway.server.app import build_server
from mcp_gateway.service.gateway import Gateway

pytestmark = pytest.mark.anyio

WAIT_SECONDS = 5.0
"""Bound on a whole test."""
LONG_WAIT_SECONDS = 30.0
"""The gateway's wait for a listing where a test opens the gate itself (never reached)."""
SHORT_WAIT_SECONDS = 0.2
"""The gateway's wait for a listing where a test needs it to pass."""
ROUND_TRIPS = 5


@asynccontextmanager
async def serving(
    home: Path, *downstreams: FakeDownstream, wait: float = LONG_WAIT_SECONDS
) -> AsyncGenerator[tuple[Gateway, Client]]:
    entries = {d.name: {"command": "in-process"} for d in downstreams}
    workspace = write_workspace(home, entries)
    connector = InProcessConnector(*downstreams)
    async with Gateway(workspace, load(workspace), connector=connector, listing_wait_seconds=wait) as gateway:
        gateway.start_background()
        async with Client(build_server(gateway), mode="legacy", cache=None) as client:
            yield gateway, client


def text(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


class Progress:
    def __init__(self) -> None:
        self.seen: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append((progress, total, message))


async def while_open(client: Client, call: str, arguments: dict[str, Any], gate: anyio.Event, **extra: Any) -> Any:
    """Make `call`, prove it is still waiting after ROUND_TRIPS other requests were answered, then open `gate`."""
    answers: list[types.CallToolResult] = []
    async with anyio.create_task_group() as tg:

        async def make() -> None:
            answers.append(await client.call_tool(call, arguments, **extra))

        tg.start_soon(make)
        for _ in range(ROUND_TRIPS):
            await client.list_tools()
        assert not answers, f"{call} answered before the listing it depends on ended"
        gate.set()
    [answer] = answers
    return answer


async def test_a_first_search_waits_for_the_listing_under_way_and_finds_its_tools(tmp_path: Path) -> None:
    gate = anyio.Event()
    slow = FakeDownstream("slow", list_gate=gate)
    progress = Progress()
    with anyio.fail_after(WAIT_SECONDS):
        async with serving(tmp_path, slow) as (_, client):
            result = await while_open(
                client, "search_tools", {"query": "echo a message"}, gate, progress_callback=progress
            )
    found = json.loads(text(result))
    assert found["results"][0]["tool"] == "slow.echo"
    assert "notes" not in found
    assert progress.seen[0] == (0.0, 1.0, "Waiting for the tools of slow.")
    assert progress.seen[-1] == (1.0, 1.0, "Listed the tools of slow.")


async def test_a_search_answers_with_what_is_known_when_a_listing_outlasts_the_wait(tmp_path: Path) -> None:
    fast, stuck = FakeDownstream("fast"), FakeDownstream("stuck", list_gate=anyio.Event())
    progress = Progress()
    with anyio.fail_after(WAIT_SECONDS):
        async with serving(tmp_path, fast, stuck, wait=SHORT_WAIT_SECONDS) as (_, client):
            result = await client.call_tool("search_tools", {"query": "echo a message"}, progress_callback=progress)
            again = await client.call_tool("search_tools", {"query": "echo a message"}, progress_callback=progress)
    found = json.loads(text(result))
    assert [hit["tool"] for hit in found["results"]] == ["fast.echo"]
    assert any("Still loading the tools of: stuck" in note for note in found["notes"])
    assert json.loads(text(again))["notes"] == found["notes"]
    assert any(message is not None and "stuck" in message for _, _, message in progress.seen)


async def test_list_tools_of_a_server_still_loading_waits_for_its_listing(tmp_path: Path) -> None:
    gate = anyio.Event()
    slow = FakeDownstream("slow", list_gate=gate, instructions="Say please.")
    with anyio.fail_after(WAIT_SECONDS):
        async with serving(tmp_path, slow) as (_, client):
            result = await while_open(client, "list_tools", {"server": "slow"}, gate)
    page = json.loads(text(result))
    assert not result.is_error
    assert "echo" in [tool["name"] for tool in page["tools"]]
    assert page["serverInstructions"] == "Say please."


@pytest.mark.parametrize(
    ("call", "arguments"), [("list_tools", {"server": "stuck"}), ("describe_tool", {"tool": "stuck.echo"})]
)
async def test_reading_a_server_whose_listing_outlasts_the_wait_says_to_call_again(
    tmp_path: Path, call: str, arguments: dict[str, Any]
) -> None:
    stuck = FakeDownstream("stuck", list_gate=anyio.Event())
    with anyio.fail_after(WAIT_SECONDS):
        async with serving(tmp_path, stuck, wait=SHORT_WAIT_SECONDS) as (_, client):
            result = await client.call_tool(call, arguments)
    assert result.is_error
    message = text(result)
    assert message.startswith("'stuck' is still starting and listing its tools (")
    assert message.endswith(f"call {call} again in a moment.")


async def test_describe_tool_of_a_server_still_loading_waits_and_shows_its_instructions(tmp_path: Path) -> None:
    gate = anyio.Event()
    slow = FakeDownstream("slow", list_gate=gate, instructions="Echo politely.")
    with anyio.fail_after(WAIT_SECONDS):
        async with serving(tmp_path, slow) as (_, client):
            result = await while_open(client, "describe_tool", {"tool": "slow.echo"}, gate)
    described = json.loads(text(result))
    assert described["tool"] == "slow.echo"
    assert described["serverInstructions"] == "Echo politely."


async def test_a_server_with_cached_tools_is_not_waited_for_while_it_is_refreshed(tmp_path: Path) -> None:
    server = FakeDownstream("cached")
    async with serving(tmp_path, server) as (gateway, _):
        await gateway.refresh()
    server.list_gate = anyio.Event()  # its next listing never ends: refreshOnStartup lists it again
    entries = {"cached": {"command": "in-process", "refreshOnStartup": True}}
    workspace = write_workspace(tmp_path, entries)
    with anyio.fail_after(WAIT_SECONDS):
        async with (
            Gateway(workspace, load(workspace), connector=InProcessConnector(server)) as gateway,
            Client(build_server(gateway), mode="legacy", cache=None) as client,
        ):
            gateway.start_background()
            found = json.loads(text(await client.call_tool("search_tools", {"query": "echo a message"})))
    assert found["results"][0]["tool"] == "cached.echo"
    assert "notes" not in found


async def test_a_call_that_waits_for_a_listing_reports_only_the_tool_s_own_progress(tmp_path: Path) -> None:
    # One progress token per request, and its progress must only grow: the wait says nothing on it.
    gate = anyio.Event()
    slow = FakeDownstream("slow", list_gate=gate)
    progress = Progress()
    with anyio.fail_after(WAIT_SECONDS):
        async with serving(tmp_path, slow) as (_, client):
            arguments = {"tool": "progress", "arguments": {"steps": 2}}
            result = await while_open(client, "execute_tool", arguments, gate, progress_callback=progress)
    assert not result.is_error, text(result)
    assert text(result) == "done 2"
    assert [value for value, _, _ in progress.seen] == [1.0, 2.0]
