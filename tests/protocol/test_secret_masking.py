"""Secrets in what the gateway's client receives, in-process: masked in errors, untouched in successful results."""

from __future__ import annotations

from pathlib import Path

import pytest
from gateway_testing import load, write_workspace
from inprocess_fakes import FakeDownstream, InProcessConnector
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcp_gateway.masking import MASK
from mcp_gateway.server.app import build_server
from mcp_gateway.service.gateway import Gateway

pytestmark = pytest.mark.anyio

SECRET = "hush-in-process-secret"


def workspace_with_a_secret(home: Path) -> Gateway:
    entry = {"command": "in-process", "env": {"API_TOKEN": SECRET}}
    workspace = write_workspace(home, {"fake": entry})
    return Gateway(workspace, load(workspace), connector=InProcessConnector(FakeDownstream()))


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_gateway_bug_reaches_the_client_as_a_json_rpc_error_with_secrets_masked(
    tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken_search(*args: object, **kwargs: object) -> object:
        raise RuntimeError(f"unexpected state while using {SECRET}")

    async with workspace_with_a_secret(tmp_path) as gateway:
        monkeypatch.setattr(gateway, "search", broken_search)
        async with Client(build_server(gateway, gateway.instructions()), mode=mode, cache=None) as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("search_tools", {"query": "anything"})
    assert SECRET not in raised.value.message
    assert raised.value.message == f"RuntimeError: unexpected state while using {MASK}"


async def test_a_successful_result_passes_through_untouched_even_when_it_holds_a_secret(tmp_path: Path) -> None:
    async with workspace_with_a_secret(tmp_path) as gateway:
        await gateway.refresh()
        async with Client(build_server(gateway, gateway.instructions()), mode="legacy", cache=None) as client:
            result = await client.call_tool("execute_tool", {"tool": "fake.echo", "arguments": {"message": SECRET}})
    assert not result.is_error
    assert result.model_dump(by_alias=True)["content"][0]["text"] == SECRET
