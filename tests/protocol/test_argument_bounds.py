"""`execute_tool` with schemas that used to freeze or break the gateway: the call goes out unchecked, with one
log line naming the server, the tool and why; real argument mistakes still come back to the model."""

from __future__ import annotations

import json
import logging
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
from mcp_gateway.service.arguments import TOO_DEEP, VALIDATION_DEADLINE_SECONDS
from mcp_gateway.service.gateway import Gateway

pytestmark = pytest.mark.anyio

WAIT_SECONDS = 10.0 + VALIDATION_DEADLINE_SECONDS
HOSTILE_TEXT = "a" * 64 + "!"
HOSTILE_TOOLS = [
    types.Tool(
        name="catastrophic",
        input_schema={"type": "object", "properties": {"text": {"type": "string", "pattern": "^(a|aa)+$"}}},
    ),
    types.Tool(
        name="cyclic",
        input_schema={"type": "object", "$ref": "#/$defs/node", "$defs": {"node": {"$ref": "#/$defs/node"}}},
    ),
    types.Tool(
        name="coded",
        input_schema={"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}},
    ),
]


@asynccontextmanager
async def hostile_gateway(tmp_path: Path) -> AsyncGenerator[Client]:
    fake = FakeDownstream("hostile", extra_tools=HOSTILE_TOOLS)
    workspace = write_workspace(tmp_path, {"hostile": {"command": "in-process"}})
    async with (
        Gateway(workspace, load(workspace), connector=InProcessConnector(fake)) as gateway,
        Client(build_server(gateway), mode="legacy", cache=None) as client,
    ):
        yield client


async def execute(client: Client, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
    return await client.call_tool("execute_tool", {"tool": tool, "arguments": arguments})


def text_of(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


async def test_a_call_whose_check_runs_out_of_time_is_sent_unchecked_and_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="mcp_gateway.service.arguments")
    with anyio.fail_after(WAIT_SECONDS):
        async with hostile_gateway(tmp_path) as client:
            result = await execute(client, "hostile.catastrophic", {"text": HOSTILE_TEXT})
    assert not result.is_error, text_of(result)
    assert json.loads(text_of(result)) == {"text": HOSTILE_TEXT}
    [line] = [record.getMessage() for record in caplog.records]
    assert line.startswith("server 'hostile', tool 'catastrophic': arguments sent unchecked because ")
    assert "'^(a|aa)+$' took longer than the time allowed" in line


async def test_a_tool_whose_schema_refers_to_itself_forever_is_callable(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="mcp_gateway.service.arguments")
    with anyio.fail_after(WAIT_SECONDS):
        async with hostile_gateway(tmp_path) as client:
            result = await execute(client, "hostile.cyclic", {"anything": 1})
    assert not result.is_error, text_of(result)
    assert json.loads(text_of(result)) == {"anything": 1}
    assert [record.getMessage() for record in caplog.records] == [
        f"server 'hostile', tool 'cyclic': arguments sent unchecked because {TOO_DEEP}"
    ]


async def test_a_real_pattern_mistake_still_comes_back_to_the_model_and_calls_nothing(tmp_path: Path) -> None:
    with anyio.fail_after(WAIT_SECONDS):
        async with hostile_gateway(tmp_path) as client:
            result = await execute(client, "hostile.coded", {"code": "abc"})
            fixed = await execute(client, "hostile.coded", {"code": "ABC"})
    assert result.is_error
    assert "code: 'abc' does not match '^[A-Z]{3}$'" in text_of(result)
    assert not fixed.is_error
