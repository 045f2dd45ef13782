"""A first session on an empty cache, and what the servers say of themselves, end to end.

The real `mcp-gateway` process serves a fresh workspace (no cache.json): it lists its servers in the
background as it starts, and the model's first `search_tools` arrives before that is done. Behind it run
`@modelcontextprotocol/server-everything` (npm) and, where a server must outlast the gateway's wait for a
listing, the fake fixture server told to take its time answering `initialize`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_gateway import SESSION_SECONDS, gateway_session, notes_of, payload_of, ranked_tools, raw_gateway, search
from workspaces import everything_server, fake_server, write_workspace

from mcp_gateway.service.listing_wait import LISTING_WAIT_SECONDS

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

EASTER_EGG = "Server instructions are working!"
"""The line server-everything's instructions ask a model to answer with, when asked about them."""
SLOW_START_SECONDS = 4 * LISTING_WAIT_SECONDS
"""How long the slow server takes to answer `initialize`: well past the wait, within its connect timeout."""
ANSWERED_WITHIN_SECONDS = SLOW_START_SECONDS / 2
"""The answer comes after the gateway's wait (`LISTING_WAIT_SECONDS`), not after the slow server's start: half
of that start leaves the search and a loaded machine room beyond the wait, and still tells the two apart."""


class Progress:
    def __init__(self) -> None:
        self.messages: list[str] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.messages.append(message or "")


async def test_the_first_search_on_an_empty_cache_finds_get_sum_for_add_two_numbers(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"everything": everything_server()})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            payload = await search(client, "add two numbers")
    assert "everything.get-sum" in ranked_tools(payload)[:3], payload
    assert notes_of(payload) == []


async def test_a_server_slower_than_the_wait_is_named_as_loading_and_the_answer_comes_within_the_wait(
    tmp_path: Path,
) -> None:
    slow = fake_server(init_delay=str(SLOW_START_SECONDS))
    write_workspace(tmp_path, {"everything": everything_server(), "slow": slow})
    progress = Progress()
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            began = anyio.current_time()
            result = await client.call_tool("search_tools", {"query": "add two numbers"}, progress_callback=progress)
            took = anyio.current_time() - began
    payload = payload_of(result)
    assert took < ANSWERED_WITHIN_SECONDS
    assert "everything.get-sum" in ranked_tools(payload)[:3], payload
    assert any(note.startswith("Still loading the tools of: slow;") for note in notes_of(payload)), payload
    assert progress.messages, "no progress notification, though the request asked for them"
    assert "slow" in progress.messages[0]


async def test_without_a_progress_token_a_waiting_search_sends_no_progress(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"everything": everything_server()})
    seen: list[dict[str, Any]] = []
    with anyio.fail_after(SESSION_SECONDS):
        async with raw_gateway(tmp_path) as gateway:
            request = await gateway.request(
                "tools/call", {"name": "search_tools", "arguments": {"query": "add two numbers"}}
            )
            while not (seen and seen[-1].get("id") == request):
                seen.append(await gateway.next_message())
    response = seen.pop()
    found = json.loads(response["result"]["content"][0]["text"])
    # It waited: on an empty cache the tools of server-everything were found by the very first search.
    assert "everything.get-sum" in [hit["tool"] for hit in found["results"][:3]], found
    assert [message.get("method") for message in seen if message.get("method") == "notifications/progress"] == []


async def test_server_everything_s_instructions_reach_the_model_through_the_gateway(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"everything": everything_server()})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            first = client.instructions or ""
            listed = payload_of(await client.call_tool("list_tools", {"server": "everything"}))
            described = payload_of(await client.call_tool("describe_tool", {"tool": "everything.get-sum"}))
        async with gateway_session(tmp_path) as client:
            later = client.instructions or ""
    assert EASTER_EGG in listed["serverInstructions"]
    assert EASTER_EGG in described["serverInstructions"]
    # The gateway's own instructions: nothing was known of the server in the first session; the next one
    # routes to it by what it says it is.
    assert first.splitlines()[-1] == "- everything"
    assert later.splitlines()[-1] == "- everything: Everything Reference Server"
    assert len(later.encode()) <= 2048
