"""What a server says of itself in its handshake (instructions, title) reaches the model, masked, in
`list_tools`, `describe_tool` and the next session's instructions; never a secret on disk.

In-process: the downstream is an SDK server with the instructions and title a test gives it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path

import mcp_types as types
import pytest
from gateway_testing import load, write_workspace
from inprocess_fakes import FakeDownstream, InProcessConnector
from mcp import Client

from mcp_gateway.bounds import MAX_SERVER_INSTRUCTIONS_CHARS
from mcp_gateway.server.app import build_server
from mcp_gateway.service.gateway import Gateway

pytestmark = pytest.mark.anyio

SECRET = "sk-live-0123456789abcdefABCDEF"
ENV = {"TALKER_API_KEY": SECRET}


@asynccontextmanager
async def serving(home: Path, downstream: FakeDownstream) -> AsyncGenerator[tuple[Gateway, Client]]:
    workspace = write_workspace(home, {downstream.name: {"command": "in-process", "env": ENV}})
    async with (
        Gateway(workspace, load(workspace), connector=InProcessConnector(downstream)) as gateway,
        Client(build_server(gateway), mode="legacy", cache=None) as client,
    ):
        yield gateway, client


def payload(result: types.CallToolResult) -> dict[str, object]:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return json.loads(first.text)


async def test_what_a_server_says_of_itself_is_masked_and_reaches_the_next_session_s_instructions(
    tmp_path: Path,
) -> None:
    talker = FakeDownstream(
        "talker", title="Talker Tools", instructions=f"Authenticate with {SECRET} first.\nThen talk."
    )
    async with serving(tmp_path, talker) as (gateway, client):
        first_instructions = client.instructions
        await gateway.refresh()
        page = payload(await client.call_tool("list_tools", {"server": "talker"}))
        described = payload(await client.call_tool("describe_tool", {"tool": "talker.echo"}))
    async with serving(tmp_path, talker) as (_, client):
        instructions = client.instructions
    assert page["serverInstructions"] == described["serverInstructions"] == "Authenticate with *** first.\nThen talk."
    on_disk = (tmp_path / "cache.json").read_text() + (tmp_path / "cache-digest.json").read_text()
    assert SECRET not in on_disk
    assert first_instructions is not None
    assert first_instructions.splitlines()[-1] == "- talker"  # nothing known of it yet
    assert instructions is not None
    assert instructions.splitlines()[-1] == "- talker: Talker Tools"


async def test_instructions_of_any_length_are_kept_bounded(tmp_path: Path) -> None:
    talker = FakeDownstream("talker", instructions="Read me. " * 100_000)  # 900,000 characters
    async with serving(tmp_path, talker) as (gateway, client):
        await gateway.refresh()
        page = payload(await client.call_tool("list_tools", {"server": "talker"}))
    shown = page["serverInstructions"]
    assert isinstance(shown, str)
    assert shown.startswith("Read me. Read me.")
    assert shown.endswith(f"… ({900_000 - MAX_SERVER_INSTRUCTIONS_CHARS} more characters)")
    assert len(shown) == MAX_SERVER_INSTRUCTIONS_CHARS
