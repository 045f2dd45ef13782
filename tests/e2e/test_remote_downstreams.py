"""The real gateway in front of real remote servers: Streamable HTTP and SSE, with headers and a bearer token."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from e2e_gateway import run_cli_async
from mcp import Client, StdioServerParameters
from remote_fixture import free_port, running_remote
from workspaces import fake_server, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

CALL_SECONDS = 60.0


@pytest.fixture
def remote_server(request: pytest.FixtureRequest) -> Iterator[int]:
    transport, *flags = request.param
    with running_remote(transport, *flags) as port:
        yield port


def gateway(home: Path, env: dict[str, str] | None = None) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "mcp_gateway", "--home", str(home)], env={**os.environ, **(env or {})}
    )


def text(result: types.CallToolResult) -> str:
    return "\n".join(item.text for item in result.content if isinstance(item, types.TextContent))


@pytest.mark.parametrize("remote_server", [("streamable-http",)], indirect=True)
async def test_a_streamable_http_server_gets_its_headers_and_bearer_token(tmp_path: Path, remote_server: int) -> None:
    servers: dict[str, Any] = {
        "web": {
            "type": "http",
            "url": f"http://127.0.0.1:{remote_server}/mcp",
            "headers": {"X-Team": "blue"},
            "bearerTokenEnv": "WEB_TOKEN",
        }
    }
    home = tmp_path / "home"
    write_workspace(home, servers)
    with anyio.fail_after(CALL_SECONDS):
        async with Client(gateway(home, {"WEB_TOKEN": "s3cret-token-value"})) as client:
            echoed = await client.call_tool("execute_tool", {"tool": "web.echo", "arguments": {"message": "over http"}})
            seen = await client.call_tool("execute_tool", {"tool": "web.headers"})
    assert text(echoed) == "over http"
    headers = json.loads(text(seen))
    assert headers["authorization"] == "Bearer s3cret-token-value"
    assert headers["x-team"] == "blue"


@pytest.mark.parametrize("remote_server", [("sse",)], indirect=True)
async def test_an_sse_server_is_searchable_and_callable(tmp_path: Path, remote_server: int) -> None:
    home = tmp_path / "home"
    write_workspace(home, {"legacy-remote": {"type": "sse", "url": f"http://127.0.0.1:{remote_server}/sse"}})
    with anyio.fail_after(CALL_SECONDS):
        async with Client(gateway(home)) as client:
            listed = await client.call_tool("list_tools", {"server": "legacy-remote"})
            echoed = await client.call_tool(
                "execute_tool", {"tool": "legacy-remote.echo", "arguments": {"message": "over sse"}}
            )
    assert {tool["name"] for tool in json.loads(text(listed))["tools"]} >= {"echo", "headers", "slow", "big"}
    assert text(echoed) == "over sse"


@pytest.mark.parametrize("remote_server", [("streamable-http",)], indirect=True)
async def test_a_missing_bearer_token_is_an_error_naming_the_variable(tmp_path: Path, remote_server: int) -> None:
    home = tmp_path / "home"
    url = f"http://127.0.0.1:{remote_server}/mcp"
    write_workspace(home, {"web": {"type": "http", "url": url, "bearerTokenEnv": "NOT_SET_ANYWHERE"}})
    environment = {key: value for key, value in os.environ.items() if key != "NOT_SET_ANYWHERE"}
    with anyio.fail_after(CALL_SECONDS):
        async with Client(
            StdioServerParameters(
                command=sys.executable, args=["-m", "mcp_gateway", "--home", str(home)], env=environment
            )
        ) as client:
            result = await client.call_tool("list_tools", {"server": "web"})
    assert result.is_error
    assert "NOT_SET_ANYWHERE" in text(result)


TEN_MEGABYTES = 10 * 1024 * 1024
ENDPOINTS = {"streamable-http": ("http", "/mcp"), "sse": ("sse", "/sse")}


def remote_entry(transport: str, port: int) -> dict[str, Any]:
    kind, path = ENDPOINTS[transport]
    return {"type": kind, "url": f"http://127.0.0.1:{port}{path}"}


@pytest.mark.parametrize("transport", list(ENDPOINTS))
async def test_a_ten_megabyte_result_passes_through_a_remote_server_whole(tmp_path: Path, transport: str) -> None:
    home = tmp_path / "home"
    with running_remote(transport) as port:
        write_workspace(home, {"remote": remote_entry(transport, port)})
        with anyio.fail_after(CALL_SECONDS):
            async with Client(gateway(home)) as client:
                arguments = {"size": TEN_MEGABYTES}
                result = await client.call_tool("execute_tool", {"tool": "remote.big", "arguments": arguments})
    assert not result.is_error, text(result)[:200]
    assert text(result) == "x" * TEN_MEGABYTES


@pytest.mark.parametrize("transport", list(ENDPOINTS))
@pytest.mark.parametrize("failure", ["connection refused", "HTTP 500"])
async def test_an_unreachable_or_failing_remote_server_is_a_clear_error_for_it_alone(
    tmp_path: Path, transport: str, failure: str
) -> None:
    home = tmp_path / "home"
    with contextlib.ExitStack() as stack:
        if failure == "HTTP 500":
            port = stack.enter_context(running_remote(transport, "--fail-with-500"))
        else:
            port = free_port()  # nothing listens there
        servers = {"remote": remote_entry(transport, port), "local": fake_server()}
        write_workspace(home, servers, {"failureBackoffMs": 0})
        with anyio.fail_after(CALL_SECONDS):
            async with Client(gateway(home)) as client:
                broken = await client.call_tool("execute_tool", {"tool": "remote.echo", "arguments": {"message": "x"}})
                working = await client.call_tool("execute_tool", {"tool": "local.echo", "arguments": {"message": "y"}})
    assert broken.is_error
    message = text(broken)
    url = remote_entry(transport, port)["url"]
    if failure == "HTTP 500":
        assert f"Server 'remote' answered HTTP 500 Internal Server Error at {url};" in message
    else:
        assert f"Server 'remote' could not be reached at {url}: nothing accepted the connection" in message
    assert (working.is_error, text(working)) == (False, "y")


async def test_import_takes_a_remote_server_that_demands_a_sign_in_marked_as_needing_login(tmp_path: Path) -> None:
    with running_remote("streamable-http", "--require-sign-in") as locked, running_remote("sse") as open_port:
        client_file = tmp_path / "mcp.json"
        servers = {"locked": remote_entry("streamable-http", locked), "open": remote_entry("sse", open_port)}
        client_file.write_text(json.dumps({"mcpServers": servers}, indent=2))
        original = client_file.read_bytes()
        home = tmp_path / "gateway"
        arguments = ["import", "--client", "claude-code", "--from", str(client_file), "--write-client-config"]
        done = await run_cli_async(*arguments, home=home)
    assert done.returncode == 0, done.stderr
    assert "locked: imported (new in the gateway)" in done.stdout
    assert "note: it signs in with OAuth (without credentials it answered HTTP 401)" in done.stdout
    assert "open: imported" in done.stdout
    assert f"\n  mcp-gateway --home {shlex.quote(str(home))} login locked\n" in done.stdout
    imported = json.loads((home / "config.json").read_text())["mcpServers"]
    assert set(imported) == {"locked", "open"}
    assert imported["locked"]["oauth"] == {}
    assert "oauth" not in imported["open"]
    written = json.loads(client_file.read_text())["mcpServers"]
    assert set(written) == {"mcp-gateway"}
    assert client_file.read_bytes() != original
