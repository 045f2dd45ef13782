"""The process a client starts answers its handshake without importing what only the daemon needs.

From spawn to an answered `tools/list` is what every client waits for at every session start, so the client's
process (the session front) holds the handshake and the standard library, and nothing else: not the config's
models, not the MCP SDK, the catalog, the search engine, the pool, argument validation or an HTTP stack (issues
11 and 25). Measured in the process itself, not by timing: the console script runs with
`PYTHONPROFILEIMPORTTIME`, its stderr merged into its stdout, so every import line read before an answer was
imported before that answer was written. Here the daemon is started cold by the front, as the first session of
the day starts it.

Then the session taken over from the early handshake must serve as before, the daemon's own answers to the
handshake must be the same and not be sent twice, and a client that leaves right after the handshake
(`claude mcp list`) must find the gateway gone at once and cleanly.
"""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import AsyncGenerator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import anyio
import anyio.abc
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from e2e_gateway import (
    MAX_LINE_BYTES,
    PROCESS_GONE_SECONDS,
    SESSION_SECONDS,
    client_environment,
    gateway_command,
    stop_as_a_client_does,
)
from workspaces import fake_server, refreshed_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

IMPORT_LINE = "import time:"
NOT_ON_THE_PATH = {
    "mcp": "the MCP SDK",
    "pydantic": "the config's models",
    "mcp_gateway.config": "the config",
    "mcp_types": "the SDK's types",
    "anyio": "the event loop",
    "mcp_gateway.service.gateway": "the gateway service",
    "mcp_gateway.catalog.catalog": "the live catalog",
    "mcp_gateway.catalog.store": "cache.json's reader",
    "mcp_gateway.search": "the search engine",
    "rapidfuzz": "typo tolerance",
    "mcp_gateway.downstream.pool": "the pool",
    "mcp_gateway.downstream.connect": "the downstream transports",
    "mcp_gateway.importing": "every client's config reader (the parser lists client names from client_names)",
    "jsonschema": "argument validation",
    "regex": "bounded pattern matching",
    "httpx2": "the HTTP client",
    "starlette": "the SDK's HTTP server",
    "uvicorn": "the SDK's HTTP server",
}
"""Modules no import of which may be complete when `tools/list` is answered, and what they are."""
ON_THE_PATH = ("mcp_gateway.front.launch", "mcp_gateway.front.early_answers")
"""Imported before the answer, or the trace proves nothing."""


def message(message: Mapping[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n"


INITIALIZE = message(
    {
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"roots": {}, "elicitation": {}},
            "clientInfo": {"name": "claude-code", "version": "2.1.0"},
        },
    }
)
INITIALIZED = message({"method": "notifications/initialized"})
TOOLS_LIST = message({"id": 2, "method": "tools/list"})
SEARCH = message({"id": 3, "method": "tools/call", "params": {"name": "search_tools", "arguments": {"query": "echo"}}})


class TracedGateway:
    """The console script over raw JSON-RPC lines, its stderr (import lines included) merged into stdout."""

    def __init__(self, process: anyio.abc.Process) -> None:
        assert process.stdin is not None
        assert process.stdout is not None
        self.process = process
        self.stdin = process.stdin
        self._stdout = BufferedByteReceiveStream(process.stdout)
        self.other_lines: list[str] = []
        """What the gateway wrote besides import lines and answers (its stderr)."""

    async def answer(self, request_id: int) -> tuple[dict[str, Any], list[str]]:
        """The answer to `request_id`, and the modules whose import completed before it was written."""
        imported: list[str] = []
        with anyio.fail_after(SESSION_SECONDS):
            while True:
                line = (await self._stdout.receive_until(b"\n", MAX_LINE_BYTES)).decode(errors="replace")
                if line.startswith(IMPORT_LINE):
                    imported.append(line.rsplit("|", 1)[-1].strip())
                    continue
                answer = cast(dict[str, Any], json.loads(line)) if line.startswith("{") else None
                if answer is not None and answer.get("id") == request_id:
                    return answer, imported
                self.other_lines.append(line)

    async def rest(self) -> list[str]:
        """Every other line until the gateway closes its stdout (it exits)."""
        with anyio.fail_after(PROCESS_GONE_SECONDS):
            while True:
                try:
                    line = await self._stdout.receive_until(b"\n", MAX_LINE_BYTES)
                except (anyio.EndOfStream, anyio.IncompleteRead):
                    return self.other_lines
                if not line.startswith(IMPORT_LINE.encode()):
                    self.other_lines.append(line.decode(errors="replace"))


@asynccontextmanager
async def traced_gateway(home: Path) -> AsyncGenerator[TracedGateway]:
    process = await anyio.open_process(
        gateway_command(home),
        env=client_environment() | {"PYTHONPROFILEIMPORTTIME": "1"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    gateway = TracedGateway(process)
    try:
        yield gateway
    finally:
        await stop_as_a_client_does(process)


def importing(modules: list[str], name: str) -> bool:
    return any(module == name or module.startswith(f"{name}.") for module in modules)


async def test_by_the_answer_to_tools_list_only_the_front_and_the_handshake_are_imported(tmp_path: Path) -> None:
    await refreshed_workspace(tmp_path, {"fake": fake_server()})
    async with traced_gateway(tmp_path) as gateway:
        await gateway.stdin.send(INITIALIZE)
        initialized, before_initialize = await gateway.answer(1)
        await gateway.stdin.send(INITIALIZED + TOOLS_LIST)
        listed, before_list = await gateway.answer(2)
        assert initialized["result"]["serverInfo"]["name"] == "mcp-gateway"
        assert [tool["name"] for tool in listed["result"]["tools"]] == [
            "search_tools",
            "list_tools",
            "describe_tool",
            "execute_tool",
        ]
        imported = before_initialize + before_list
        assert all(importing(imported, name) for name in ON_THE_PATH), imported
        on_the_path = {name: what for name, what in NOT_ON_THE_PATH.items() if importing(imported, name)}
        assert on_the_path == {}
        await gateway.stdin.send(SEARCH)
        found, _ = await gateway.answer(3)
        assert "fake.echo" in found["result"]["content"][0]["text"], "the session went on from the early handshake"
        await gateway.stdin.aclose()
        assert await gateway.rest() == [], "nothing on stderr"
        assert await gateway.process.wait() == 0


async def test_a_handshake_sent_in_one_go_with_a_call_is_answered_once_each_and_checked(tmp_path: Path) -> None:
    await refreshed_workspace(tmp_path, {"fake": fake_server()}, {"debug": True})
    async with traced_gateway(tmp_path) as gateway:
        await gateway.stdin.send(INITIALIZE + INITIALIZED + TOOLS_LIST + SEARCH)
        answers = [(await gateway.answer(request_id))[0] for request_id in (1, 2, 3)]
        assert all("result" in answer for answer in answers), answers
        await gateway.stdin.aclose()
        # A difference between the early answers and the daemon's own would be said on stderr as a gateway bug.
        assert await gateway.rest() == [], "each request was answered once, and nothing went to stderr"
        assert await gateway.process.wait() == 0


async def test_a_first_message_other_than_initialize_is_answered_by_the_daemons_sdk(tmp_path: Path) -> None:
    await refreshed_workspace(tmp_path, {"fake": fake_server()})
    async with traced_gateway(tmp_path) as gateway:
        await gateway.stdin.send(message({"id": 7, "method": "ping"}) + INITIALIZE + INITIALIZED + TOOLS_LIST)
        pinged, imported = await gateway.answer(7)
        assert pinged["result"] == {}
        assert not importing(imported, "mcp"), "a ping first: answered by the daemon, not the front"
        assert "result" in (await gateway.answer(1))[0]
        assert len((await gateway.answer(2))[0]["result"]["tools"]) == 4


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, None])
async def test_a_client_that_leaves_right_after_the_handshake_finds_the_gateway_gone_cleanly(
    tmp_path: Path, stop: signal.Signals | None
) -> None:
    """As `claude mcp list` does: initialize, list the tools, then SIGINT (Claude Code), SIGTERM or EOF."""
    await refreshed_workspace(tmp_path, {"fake": fake_server()})
    async with traced_gateway(tmp_path) as gateway:
        await gateway.stdin.send(INITIALIZE + INITIALIZED + TOOLS_LIST)
        await gateway.answer(1)
        await gateway.answer(2)
        if stop is None:
            await gateway.stdin.aclose()
        else:
            gateway.process.send_signal(stop)
        assert await gateway.rest() == [], "no traceback, no warning"
        with anyio.fail_after(PROCESS_GONE_SECONDS):
            assert await gateway.process.wait() == 0
