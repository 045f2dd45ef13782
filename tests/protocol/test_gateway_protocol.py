"""The gateway as an MCP server, in-process: the surface, pass-through parity, progress, cancellation, errors.

Parity tests make the same call directly on the fake downstream and through `execute_tool`, and require the
same result. Both protocol eras are exercised towards the gateway's client (legacy handshake and 2026-07-28).
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
from mcp.shared.exceptions import MCPError

from mcp_gateway.server.app import build_server
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.surface import MAX_SEARCH_ALTERNATIVES

pytestmark = pytest.mark.anyio

CANCEL_REACHES_DOWNSTREAM_SECONDS = 1.0
ERAS = ["legacy", "2026-07-28"]


@asynccontextmanager
async def gateway_client(
    home: Path,
    *downstreams: FakeDownstream,
    mode: str = "legacy",
    settings: dict[str, Any] | None = None,
    refresh: bool = True,
) -> AsyncGenerator[Client]:
    workspace = write_workspace(home, {d.name: {"command": "in-process"} for d in downstreams}, settings)
    async with Gateway(workspace, load(workspace), connector=InProcessConnector(*downstreams)) as gateway:
        if refresh:
            await gateway.refresh()
        async with Client(build_server(gateway), mode=mode, cache=None) as client:
            yield client


def payload(result: types.CallToolResult) -> dict[str, Any]:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return json.loads(first.text)


def comparable(result: types.CallToolResult) -> dict[str, Any]:
    """The result minus the envelope stamps each hop adds for its own client (serverInfo)."""
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    stamps: dict[str, Any] = dumped.pop("_meta", None) or {}
    meta = {key: value for key, value in stamps.items() if not key.startswith("io.modelcontextprotocol/")}
    if meta:
        dumped["_meta"] = meta
    return dumped


@pytest.mark.parametrize("mode", ERAS)
async def test_tools_list_is_exactly_the_four_meta_tools_marked_always_load(tmp_path: Path, mode: str) -> None:
    async with gateway_client(tmp_path, FakeDownstream(), mode=mode) as client:
        listed = await client.list_tools()
    assert [tool.name for tool in listed.tools] == ["search_tools", "list_tools", "describe_tool", "execute_tool"]
    assert all((tool.meta or {}).get("anthropic/alwaysLoad") is True for tool in listed.tools)


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("echo", {"message": "hello"}),
        ("image", {}),
        ("structured", {"city": "Oslo"}),
        ("fail", {}),
        ("resources", {}),
    ],
)
async def test_execute_tool_returns_the_downstream_result_unchanged(
    tmp_path: Path, mode: str, tool: str, arguments: dict[str, Any]
) -> None:
    async with Client(FakeDownstream().server(), mode="legacy", cache=None) as direct:
        expected = await direct.session.call_tool(tool, arguments)
    async with gateway_client(tmp_path, FakeDownstream(), mode=mode) as client:
        through = await client.call_tool("execute_tool", {"tool": f"fake.{tool}", "arguments": arguments})
    assert comparable(through) == comparable(expected)


@pytest.mark.parametrize("mode", ERAS)
async def test_progress_notifications_reach_the_client_in_order(tmp_path: Path, mode: str) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def record(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with gateway_client(tmp_path, FakeDownstream(), mode=mode) as client:
        result = await client.call_tool(
            "execute_tool", {"tool": "fake.progress", "arguments": {"steps": 3}}, progress_callback=record
        )
    assert not result.is_error
    assert seen == [(1.0, 3.0, "step 1"), (2.0, 3.0, "step 2"), (3.0, 3.0, "step 3")]


@pytest.mark.parametrize("mode", ERAS)
async def test_cancelling_execute_tool_cancels_the_downstream_call(tmp_path: Path, mode: str) -> None:
    downstream = FakeDownstream()
    async with gateway_client(tmp_path, downstream, mode=mode) as client:
        with anyio.move_on_after(5) as scope:
            async with anyio.create_task_group() as tg:

                async def call() -> None:
                    await client.call_tool("execute_tool", {"tool": "fake.slow"})

                tg.start_soon(call)
                await downstream.slow_started.wait()
                tg.cancel_scope.cancel()
            with anyio.fail_after(CANCEL_REACHES_DOWNSTREAM_SECONDS):
                await downstream.slow_cancelled.wait()
        assert not scope.cancelled_caught


async def test_a_call_past_request_timeout_is_an_error_result_and_cancels_downstream(tmp_path: Path) -> None:
    downstream = FakeDownstream()
    async with gateway_client(tmp_path, downstream, settings={"requestTimeoutMs": 300}) as client:
        with anyio.fail_after(5):
            result = await client.call_tool("execute_tool", {"tool": "fake.slow"})
            await downstream.slow_cancelled.wait()
    assert result.is_error
    assert "did not answer within 0.3s" in payload_text(result)


async def test_a_downstream_json_rpc_error_becomes_an_error_result_keeping_its_code_and_text(tmp_path: Path) -> None:
    async with Client(FakeDownstream().server(), mode="legacy", cache=None) as direct:
        with pytest.raises(MCPError) as raised:
            await direct.session.call_tool("boom", {})
    async with gateway_client(tmp_path, FakeDownstream()) as client:
        result = await client.call_tool("execute_tool", {"tool": "fake.boom"})
    assert result.is_error
    text = payload_text(result)
    assert raised.value.message in text
    assert str(raised.value.code) in text


async def test_invalid_arguments_are_refused_without_waking_the_server(tmp_path: Path) -> None:
    downstream = FakeDownstream()
    async with gateway_client(tmp_path, downstream):
        pass  # builds cache.json
    connections = downstream.connections
    async with gateway_client(tmp_path, downstream, refresh=False) as client:
        result = await client.call_tool("execute_tool", {"tool": "fake.echo", "arguments": {"message": 5}})
        searched = await client.call_tool("search_tools", {"query": "echo a message"})
    assert result.is_error
    assert "message: 5 is not of type 'string'" in payload_text(result)
    assert '"required":["message"]' in payload_text(result)  # the schema to fix them against
    assert payload(searched)["results"][0]["tool"] == "fake.echo"
    assert downstream.connections == connections


async def test_unknown_and_ambiguous_tools_are_error_results_naming_the_next_call(tmp_path: Path) -> None:
    async with gateway_client(tmp_path, FakeDownstream("alpha"), FakeDownstream("beta")) as client:
        unknown = await client.call_tool("execute_tool", {"tool": "alpha.ecko"})
        ambiguous = await client.call_tool("execute_tool", {"tool": "echo", "arguments": {"message": "x"}})
        qualified = await client.call_tool("execute_tool", {"tool": "beta.echo", "arguments": {"message": "x"}})
    assert unknown.is_error
    assert "'echo'" in payload_text(unknown)  # did you mean
    assert ambiguous.is_error
    assert "alpha.echo" in payload_text(ambiguous)
    assert "beta.echo" in payload_text(ambiguous)
    assert not qualified.is_error


async def test_calling_a_downstream_tool_by_name_on_the_gateway_explains_execute_tool(tmp_path: Path) -> None:
    async with gateway_client(tmp_path, FakeDownstream()) as client:
        result = await client.call_tool("fake.echo", {"message": "x"})
    assert result.is_error
    assert "execute_tool" in payload_text(result)


async def test_describe_tool_shows_every_listed_field(tmp_path: Path) -> None:
    async with gateway_client(tmp_path, FakeDownstream()) as client:
        described = payload(await client.call_tool("describe_tool", {"tool": "fake.echo"}))
        structured = payload(await client.call_tool("describe_tool", {"tool": "structured", "server": "fake"}))
    assert described["tool"] == "fake.echo"
    assert described["title"] == "Echo"
    assert described["annotations"] == {"readOnlyHint": True}
    assert described["_meta"] == {"fake/origin": "in-process"}
    assert structured["outputSchema"]["properties"]["temperature"] == {"type": "number"}


async def test_list_tools_pages_through_one_server(tmp_path: Path) -> None:
    async with gateway_client(tmp_path, FakeDownstream()) as client:
        first = payload(await client.call_tool("list_tools", {"server": "fake", "limit": 3}))
        rest = payload(await client.call_tool("list_tools", {"server": "fake", "offset": first["nextOffset"]}))
    assert first["total"] == len(first["tools"]) + len(rest["tools"])
    assert "nextOffset" not in rest


async def test_with_no_servers_search_says_how_to_add_them(tmp_path: Path) -> None:
    async with gateway_client(tmp_path) as client:
        result = payload(await client.call_tool("search_tools", {"query": "anything"}))
    assert result["results"] == []
    assert any("mcpServers" in note for note in result["notes"])


async def test_search_tools_fuses_alternative_phrasings_and_bounds_how_many(tmp_path: Path) -> None:
    async with gateway_client(tmp_path, FakeDownstream()) as client:
        alone = payload(await client.call_tool("search_tools", {"query": "parrot my words"}))
        fused = payload(
            await client.call_tool(
                "search_tools", {"query": "parrot my words", "alternatives": ["echo a message back"]}
            )
        )
        too_many = await client.call_tool(
            "search_tools", {"query": "echo", "alternatives": ["echo"] * (MAX_SEARCH_ALTERNATIVES + 1)}
        )
    assert "fake.echo" not in [hit["tool"] for hit in alone["results"]][:1]
    assert fused["results"][0]["tool"] == "fake.echo"
    assert fused["results"][0]["confidence"] == "high"
    assert too_many.is_error
    assert "alternatives" in payload_text(too_many)


async def test_meta_tool_argument_mistakes_are_explained(tmp_path: Path) -> None:
    async with gateway_client(tmp_path, FakeDownstream()) as client:
        missing = await client.call_tool("search_tools", {})
        stray = await client.call_tool("execute_tool", {"tool": "fake.echo", "message": "x"})
        stringified = await client.call_tool("execute_tool", {"tool": "fake.echo", "arguments": '{"message": "x"}'})
    assert missing.is_error
    assert "'query' is required" in payload_text(missing)
    assert stray.is_error
    assert "inside 'arguments'" in payload_text(stray)
    assert not stringified.is_error


def payload_text(result: types.CallToolResult) -> str:
    return "\n".join(item.text for item in result.content if isinstance(item, types.TextContent))
