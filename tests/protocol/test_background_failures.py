"""Nothing the gateway runs in the background can take it down: a failure there is logged, reported by
`background_problems()` (and so by `mcp-gateway status`), and the gateway serves on."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from gateway_testing import load, write_workspace
from inprocess_fakes import FakeDownstream, InProcessConnector

from mcp_gateway.catalog import Catalog
from mcp_gateway.config import ServerConfig
from mcp_gateway.downstream.connect import ConnectOptions
from mcp_gateway.downstream.connection import OpenedClient
from mcp_gateway.paths import Workspace
from mcp_gateway.service import gateway as gateway_module
from mcp_gateway.service.background_journal import GatewayProblem
from mcp_gateway.service.gateway import Gateway

pytestmark = pytest.mark.anyio

WAIT_SECONDS = 10.0
POLL_SECONDS = 0.01
IDLE_MINUTES = 0.001
"""Reaps an idle connection after 60 ms."""


def workspace_for(home: Path, *downstreams: FakeDownstream, settings: dict[str, float] | None = None) -> Workspace:
    return write_workspace(home, {d.name: {"command": "in-process"} for d in downstreams}, settings)


async def problems_of(gateway: Gateway) -> list[GatewayProblem]:
    """The gateway's background problems once there are any (the guard records them asynchronously)."""
    while True:
        found = await gateway.background_failures()
        if found:
            return found
        await anyio.sleep(POLL_SECONDS)


async def echo(gateway: Gateway, message: str) -> str:
    result = await gateway.execute("fake.echo", {"message": message})
    content = types.CallToolResult.model_validate(result).content
    assert isinstance(content[0], types.TextContent)
    return content[0].text


async def test_a_failing_validation_warm_up_is_reported_and_the_gateway_serves_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_warm_up() -> None:
        raise ImportError("cannot import name 'Draft3Validator' from partially initialized module 'jsonschema'")

    monkeypatch.setattr(gateway_module, "prepare_validation", broken_warm_up)
    fake = FakeDownstream("fake")
    workspace = workspace_for(tmp_path, fake)
    with anyio.fail_after(WAIT_SECONDS):
        async with Gateway(workspace, load(workspace), connector=InProcessConnector(fake)) as gateway:
            gateway.start_background()
            [found] = await problems_of(gateway)
            assert found.problem.task == "the argument validation warm-up"
            assert found.problem.error.startswith("ImportError: cannot import name 'Draft3Validator'")
            assert await echo(gateway, "still serving") == "still serving"


async def test_a_failing_background_catalog_load_is_reported_and_tools_are_listed_on_demand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_load(self: Catalog) -> None:
        raise RuntimeError("the index could not be built")

    monkeypatch.setattr(Catalog, "load", broken_load)
    fake = FakeDownstream("fake")
    workspace = workspace_for(tmp_path, fake)
    connector = InProcessConnector(fake)
    with anyio.fail_after(WAIT_SECONDS):
        async with Gateway(workspace, load(workspace), connector=connector, load_in_background=True) as gateway:
            [found] = await problems_of(gateway)
            assert found.problem.task == "reading the cached tool lists"
            assert await echo(gateway, "listed on demand") == "listed on demand"


class CloseFailsConnector(InProcessConnector):
    """Connections whose closing raises, as a transport that breaks on the way out does."""

    async def __call__(self, server: ServerConfig, options: ConnectOptions, stack: AsyncExitStack) -> OpenedClient:
        async def break_on_close() -> None:
            raise RuntimeError("the transport broke while closing")

        stack.push_async_callback(break_on_close)
        return await super().__call__(server, options, stack)


async def test_a_connection_that_fails_to_close_is_reported_and_the_next_call_gets_a_fresh_one(tmp_path: Path) -> None:
    fake = FakeDownstream("fake")
    workspace = workspace_for(tmp_path, fake, settings={"idleTimeout": IDLE_MINUTES})
    with anyio.fail_after(WAIT_SECONDS):
        async with Gateway(workspace, load(workspace), connector=CloseFailsConnector(fake)) as gateway:
            assert await echo(gateway, "first") == "first"
            [found] = await problems_of(gateway)  # reaped when idle; its close raised
            assert found.problem.error == "RuntimeError: the transport broke while closing"
            assert await echo(gateway, "second") == "second"
            assert fake.connections == 2
