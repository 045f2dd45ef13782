"""Client lines the gateway cannot use, end to end: none is dropped in silence.

A request among them is answered with the JSON-RPC error it deserves (-32700 for a line that is not JSON,
-32600 for one that is not a valid request, -32602 for params that are not an object) and its id when the
line holds one, so the client does not wait for its own timeout; a notification or a response is never
answered. Either way the gateway serves on. Arguments nested far deeper than any real tool needs (but
within `wire.MAX_DEPTH`) reach the downstream server and come back; deeper ones get a clear error.

The gateway answers in the order it reads, so "nothing was answered" is proven by the next request's
answer coming first, never by waiting a while.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import anyio
import mcp_types as types
import pytest
from e2e_gateway import SESSION_SECONDS, RawGateway, raw_gateway
from workspaces import fake_server, refreshed_workspace

from mcp_gateway import wire
from mcp_gateway.service.arguments import MAX_FORWARDED_DEPTH

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

MIRROR_TOOL = {"name": "mirror", "description": "Return the arguments as JSON text.", "inputSchema": {"type": "object"}}
"""A tool listed through FAKE_MCP_TOOLS_JSON: the fake server answers it with its arguments as JSON text."""
DEEP_BUT_ACCEPTED_LEVELS = 300
"""Past what the SDK's validator reads (about 200) and its serializer writes (about 250)."""
TOO_DEEP_LEVELS = wire.MAX_DEPTH + 88
FORWARDED_LEVELS = MAX_FORWARDED_DEPTH - 10
RELAYED_RESULT_LEVELS = wire.MAX_RELAYED_DEPTH - 10
"""A result of the fake server's `deep` tool this deep is a reply a few levels deeper than that."""


def nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"down": value}
    return value


@asynccontextmanager
async def mirror_gateway(tmp_path: Path) -> AsyncGenerator[RawGateway]:
    home = tmp_path / "home"
    await refreshed_workspace(home, {"fake": fake_server(tools_json=json.dumps([MIRROR_TOOL]))})
    async with raw_gateway(home) as gateway:
        with anyio.fail_after(SESSION_SECONDS):
            yield gateway


async def still_serves(gateway: RawGateway) -> None:
    """The very next message the gateway writes answers a plain request sent now."""
    request_id = await gateway.request("tools/list", {})
    answer = await gateway.next_message()
    assert answer["id"] == request_id, answer
    assert [tool["name"] for tool in answer["result"]["tools"]][-1] == "execute_tool"


def execute_line(request_id: int, arguments: dict[str, Any]) -> bytes:
    params = {"name": "execute_tool", "arguments": {"tool": "fake.mirror", "arguments": arguments}}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}).encode()


async def test_each_unusable_request_line_is_answered_with_its_json_rpc_error_and_id_and_the_gateway_serves_on(
    tmp_path: Path,
) -> None:
    lines: list[tuple[bytes, int, types.RequestId | None]] = [
        (b'{"jsonrpc":"2.0","id":41,"method":"tools/call","params":["execute_tool"]}', types.INVALID_PARAMS, 41),
        (b'{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"execute_to', types.PARSE_ERROR, 42),
        (b'{"jsonrpc":"1.0","id":"forty-three","method":"ping"}', types.INVALID_REQUEST, "forty-three"),
        (b'{"jsonrpc":"2.0","id":44,"method":"tools/list","params":{}', types.PARSE_ERROR, 44),
        (b"this line is not JSON", types.PARSE_ERROR, None),
    ]
    async with mirror_gateway(tmp_path) as gateway:
        for line, code, request_id in lines:
            await gateway.send_line(line)
            answer = await gateway.next_message()
            assert answer["jsonrpc"] == "2.0"
            assert answer["id"] == request_id, (line, answer)
            assert answer["error"]["code"] == code, (line, answer)
            assert answer["error"]["message"].endswith("."), answer
            assert "result" not in answer
            await still_serves(gateway)


async def test_an_unusable_notification_or_response_from_the_client_is_not_answered(tmp_path: Path) -> None:
    async with mirror_gateway(tmp_path) as gateway:
        await gateway.send_line(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":[3]}')
        await gateway.send_line(b'{"jsonrpc":"1.0","method":"notifications/progress"}')
        await gateway.send_line(b'{"jsonrpc":"2.0","id":77,"result":["not","an","object"]}')
        await gateway.send_line(b'{"jsonrpc":"2.0","id":78,"result":{"answer":"to nothing the gateway asked"}}')
        await still_serves(gateway)


async def test_a_request_nested_past_what_the_sdk_reads_is_answered_by_the_meta_tool(tmp_path: Path) -> None:
    params = {"name": "search_tools", "arguments": {"query": nested(DEEP_BUT_ACCEPTED_LEVELS)}}
    line = json.dumps({"jsonrpc": "2.0", "id": 50, "method": "tools/call", "params": params}).encode()
    async with mirror_gateway(tmp_path) as gateway:
        await gateway.send_line(line)
        answer = await gateway.next_message()
        assert answer["id"] == 50, answer
        assert answer["result"]["isError"] is True
        assert "'query'" in answer["result"]["content"][0]["text"]
        await still_serves(gateway)


async def test_arguments_nested_as_deep_as_the_gateway_forwards_reach_the_downstream_tool_and_come_back(
    tmp_path: Path,
) -> None:
    arguments = {"tree": nested(FORWARDED_LEVELS)}
    async with mirror_gateway(tmp_path) as gateway:
        await gateway.send_line(execute_line(51, arguments))
        answer = await gateway.response(51)
        assert "result" in answer, answer
        result = answer["result"]
        assert not result.get("isError"), result
        assert json.loads(result["content"][0]["text"]) == arguments
        await still_serves(gateway)


async def test_arguments_read_but_nested_past_what_the_gateway_forwards_get_a_clear_tool_error(tmp_path: Path) -> None:
    async with mirror_gateway(tmp_path) as gateway:
        await gateway.send_line(execute_line(52, {"tree": nested(DEEP_BUT_ACCEPTED_LEVELS)}))
        answer = await gateway.response(52)
        result = answer["result"]
        assert result["isError"] is True
        text = result["content"][0]["text"]
        assert f"nested more than {MAX_FORWARDED_DEPTH} levels deep" in text
        assert "call execute_tool again" in text
        await still_serves(gateway)


@pytest.mark.parametrize("depth", [RELAYED_RESULT_LEVELS, wire.MAX_RELAYED_DEPTH + 50])
async def test_a_deep_result_passes_through_whole_or_fails_its_call_at_once_saying_why(
    tmp_path: Path, depth: int
) -> None:
    async with mirror_gateway(tmp_path) as gateway:
        params = {"name": "execute_tool", "arguments": {"tool": "fake.deep", "arguments": {"depth": depth}}}
        await gateway.send({"id": 53, "method": "tools/call", "params": params})
        result = (await gateway.response(53))["result"]
        if depth > wire.MAX_RELAYED_DEPTH:
            assert result["isError"] is True
            assert f"nested more than {wire.MAX_RELAYED_DEPTH} levels deep" in result["content"][0]["text"]
        else:
            assert depth_of(result["structuredContent"]["value"]) == depth
        await still_serves(gateway)


def depth_of(value: Any) -> int:
    depth = 0
    while isinstance(value, dict):
        value = cast(dict[str, Any], value)["down"]
        depth += 1
    return depth


async def test_arguments_nested_past_the_limit_get_a_clear_error_with_their_id(tmp_path: Path) -> None:
    async with mirror_gateway(tmp_path) as gateway:
        await gateway.send_line(execute_line(61, {"tree": nested(TOO_DEEP_LEVELS)}))
        answer = await gateway.next_message()
        assert answer["id"] == 61, answer
        assert answer["error"]["code"] == types.INVALID_REQUEST
        assert f"{wire.MAX_DEPTH} levels" in answer["error"]["message"]
        await still_serves(gateway)
