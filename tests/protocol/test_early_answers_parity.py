"""The handshake answered before the SDK is imported is the SDK's own answer, and the session goes on from it.

Over the real transport (two pipes, `ClientLines`, `line_streams`) and the real SDK `Server` that
`build_server` makes: the same lines are sent once to a session with nothing answered early, and once to
one whose handshake is answered early, before the session even exists. The answers must be equal for
every handshake version, and the session taking over must initialize from the replayed handshake, check
its own answers against the early ones without sending them again, and answer what comes next.
"""

from __future__ import annotations

import io
import json
import logging
import os
from collections.abc import AsyncGenerator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import anyio
import anyio.to_thread
import pytest
from gateway_testing import load, write_workspace
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from mcp_gateway.front.client_lines import ClientLines
from mcp_gateway.front.early_answers import EarlyAnswers, Handshake
from mcp_gateway.server.app import build_server, initialization_options
from mcp_gateway.server.stdio import line_streams
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.surface import instructions, meta_tool_definitions

pytestmark = pytest.mark.anyio

STEP_SECONDS = 10.0
"""Generous bound for one answer to come back."""
SERVERS = {"notes": {"command": "notes-server", "aliases": ["memo", "笔记"]}, "github": {"command": "gh-server"}}
CLIENT = {"name": "claude-code", "version": "2.1.0"}
CAPABILITIES: list[dict[str, Any]] = [
    {},
    {"roots": {"listChanged": True}, "elicitation": {"form": {}}, "sampling": {"tools": {}}},
]


def line(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False).encode() + b"\n"


def handshake_lines(version: str, capabilities: dict[str, Any], list_params: Any = ...) -> list[bytes]:
    params = {"protocolVersion": version, "capabilities": capabilities, "clientInfo": CLIENT}
    listing = {"id": "list", "method": "tools/list"} | ({} if list_params is ... else {"params": list_params})
    return [
        line({"id": 1, "method": "initialize", "params": params}),
        line({"method": "notifications/initialized"}),
        line(listing),
    ]


class Client:
    def __init__(self, writes: int, reads: io.BufferedReader) -> None:
        self._writes = writes
        self._reads = reads

    def send(self, lines: Sequence[bytes]) -> None:
        os.write(self._writes, b"".join(lines))

    async def next_message(self) -> dict[str, Any]:
        with anyio.fail_after(STEP_SECONDS):
            read = await anyio.to_thread.run_sync(self._reads.readline, abandon_on_cancel=True)
        return cast(dict[str, Any], json.loads(read))


@asynccontextmanager
async def pipes(early: EarlyAnswers | None) -> AsyncGenerator[tuple[Client, ClientLines]]:
    gateway_reads, client_writes = os.pipe()
    client_reads, gateway_writes = os.pipe()
    with os.fdopen(client_reads, "rb") as reads:
        try:
            yield Client(client_writes, reads), ClientLines(gateway_reads, gateway_writes, early)
        finally:
            os.close(client_writes)


@asynccontextmanager
async def session(home: Path, lines: ClientLines, handshake: Handshake) -> AsyncGenerator[None]:
    """The SDK's session over `lines`, as the serving gateway runs it."""
    workspace = write_workspace(home, SERVERS)
    async with Gateway(workspace, load(workspace)) as gateway:
        server = build_server(gateway, handshake)
        async with line_streams(lines) as (read_stream, write_stream), anyio.create_task_group() as tg:
            tg.start_soon(server.run, read_stream, write_stream, initialization_options(server))
            yield
            tg.cancel_scope.cancel()


def handshake_of(home: Path) -> Handshake:
    return Handshake(instructions(load(write_workspace(home, SERVERS))), meta_tool_definitions())


@pytest.mark.parametrize("list_params", [..., None, {}])
@pytest.mark.parametrize("capabilities", CAPABILITIES)
@pytest.mark.parametrize("version", [*HANDSHAKE_PROTOCOL_VERSIONS, "2099-01-01"])
async def test_the_early_answers_are_the_answers_the_sdk_gives(
    tmp_path: Path, version: str, capabilities: dict[str, Any], list_params: Any
) -> None:
    """`list_params`: tools/list without params (`...`), with null params, with empty ones."""
    handshake = handshake_of(tmp_path)
    async with pipes(None) as (client, lines), session(tmp_path, lines, handshake):
        client.send(handshake_lines(version, capabilities, list_params))
        sdk = [await client.next_message(), await client.next_message()]
    async with pipes(EarlyAnswers(handshake)) as (client, lines):
        client.send(handshake_lines(version, capabilities, list_params))
        early = [await client.next_message(), await client.next_message()]
        lines.hand_over(lambda _: None, lambda: None)
    assert early == sdk
    assert [message["id"] for message in early] == [1, "list"]
    assert "error" not in early[0]
    assert len(early[1]["result"]["tools"]) == 4


async def test_the_session_takes_over_from_the_early_handshake_without_answering_it_twice(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="mcp_gateway.front.early_answers")
    handshake = handshake_of(tmp_path)
    async with pipes(EarlyAnswers(handshake)) as (client, lines):
        client.send(handshake_lines("2025-06-18", CAPABILITIES[1]))
        assert [(await client.next_message())["id"] for _ in range(2)] == [1, "list"]
        client.send([line({"id": 3, "method": "ping"})])  # before the session exists: it waits for it
        async with session(tmp_path, lines, handshake):
            assert await client.next_message() == {"jsonrpc": "2.0", "id": 3, "result": {}}
            client.send([line({"id": 4, "method": "tools/call", "params": {"name": "list_tools", "arguments": {}}})])
            called = await client.next_message()
    assert called["id"] == 4, "nothing else came first: the replayed handshake's answers were not sent again"
    assert called["result"]["isError"] is True
    settled = [record for record in caplog.records if record.name == "mcp_gateway.front.early_answers"]
    assert [record.levelno for record in settled] == [logging.DEBUG, logging.DEBUG]
    assert all("is the same" in record.getMessage() for record in settled)
