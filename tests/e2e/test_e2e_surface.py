"""The gateway's surface end to end: the real `mcp-gateway` process in front of published servers.

The official SDK client drives the gateway in both protocol eras ("legacy": the initialize handshake;
"auto": the 2026-07-28 era, discovered). Behind the gateway run `@modelcontextprotocol/server-everything`
(npm) and `mcp-server-time` (PyPI), as real processes the gateway starts itself.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

import anyio
import mcp_types as types
import pytest
from e2e_gateway import (
    META_TOOLS,
    SESSION_SECONDS,
    client_environment,
    gateway_session,
    ranked_tools,
    search_when_loaded,
    text_of,
)
from mcp import Client, StdioServerParameters
from workspaces import cached_everything, everything_server, time_server, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

MODES = ["legacy", "auto"]
SEARCH_ENTRY_FIELDS = {"tool", "confidence", "why", "description", "inputSchema"}


def dumped(items: list[types.ContentBlock]) -> list[dict[str, Any]]:
    return [item.model_dump(by_alias=True, mode="json", exclude_none=True) for item in items]


@pytest.mark.parametrize("mode", MODES)
async def test_tools_list_is_exactly_the_four_meta_tools_in_order_marked_always_load(
    tmp_path: Path, everything_cache: Path, mode: str
) -> None:
    cached_everything(tmp_path, everything_cache)
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path, mode=mode) as client:
            listed = await client.list_tools()
    assert [tool.name for tool in listed.tools] == META_TOOLS
    for tool in listed.tools:
        assert (tool.meta or {}).get("anthropic/alwaysLoad") is True, tool
    # Claude Code keeps results up to this size in the conversation (beyond its 50,000-character default).
    sizes = {tool.name: (tool.meta or {}).get("anthropic/maxResultSizeChars") for tool in listed.tools}
    assert sizes == {"search_tools": None, "list_tools": 100_000, "describe_tool": 100_000, "execute_tool": 100_000}


async def test_search_tools_ranks_get_sum_in_the_top_three_for_add_two_numbers(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"everything": everything_server()})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            result = await client.call_tool("search_tools", {"query": "add two numbers"})
            payload = await search_when_loaded(client, "add two numbers")
    # One text item of compact JSON, from the very first (possibly still loading) search on.
    assert len(result.content) == 1
    assert isinstance(result.content[0], types.TextContent)
    assert "\n" not in result.content[0].text
    assert "everything.get-sum" in ranked_tools(payload)[:3], payload
    for entry in cast(list[dict[str, Any]], payload["results"]):
        assert set(entry) >= SEARCH_ENTRY_FIELDS, entry
    hit = next(entry for entry in payload["results"] if entry["tool"] == "everything.get-sum")
    assert set(hit["inputSchema"]["properties"]) == {"a", "b"}


@pytest.mark.parametrize("mode", MODES)
async def test_execute_tool_runs_get_sum_and_returns_five(tmp_path: Path, mode: str) -> None:
    # A fresh workspace: the call arrives while the catalog is still being built, as in a first session.
    write_workspace(tmp_path, {"everything": everything_server()})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path, mode=mode) as client:
            result = await client.call_tool(
                "execute_tool", {"tool": "everything.get-sum", "arguments": {"a": 2, "b": 3}}
            )
    assert not result.is_error, text_of(result)
    assert re.search(r"\b5\b", text_of(result)), text_of(result)


async def test_execute_tool_returns_the_tiny_image_content_exactly_as_the_server_sends_it(
    tmp_path: Path, everything_cache: Path
) -> None:
    # The 2026-era client (the fake server's parity test covers images in both eras).
    cached_everything(tmp_path, everything_cache)
    direct_server = StdioServerParameters(command=everything_server()["command"], env=client_environment())
    with anyio.fail_after(SESSION_SECONDS):
        async with Client(direct_server, mode="legacy", cache=None) as direct:
            expected = await direct.call_tool("get-tiny-image", {})
        async with gateway_session(tmp_path, mode="auto") as client:
            result = await client.call_tool("execute_tool", {"tool": "everything.get-tiny-image", "arguments": {}})
    assert not result.is_error, text_of(result)
    assert dumped(result.content) == dumped(expected.content)
    images = [item for item in result.content if isinstance(item, types.ImageContent)]
    expected_images = [item for item in expected.content if isinstance(item, types.ImageContent)]
    assert len(images) == len(expected_images) == 1
    assert images[0].data == expected_images[0].data
    assert images[0].mime_type == expected_images[0].mime_type == "image/png"


async def test_mcp_server_time_is_found_for_what_time_is_it_in_tokyo_and_answers_through_the_gateway(
    tmp_path: Path,
) -> None:
    write_workspace(tmp_path, {"time": time_server(), "everything": everything_server()})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path, mode="auto") as client:
            payload = await search_when_loaded(client, "what time is it in Tokyo")
            result = await client.call_tool(
                "execute_tool", {"tool": "time.get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}
            )
    assert any(tool.startswith("time.") for tool in ranked_tools(payload)[:3]), payload
    assert not result.is_error, text_of(result)
    assert "Asia/Tokyo" in text_of(result)
    assert result.structured_content is not None
    assert result.structured_content["timezone"] == "Asia/Tokyo"
