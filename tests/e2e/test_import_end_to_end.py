"""`mcp-gateway import` as a new user runs it: real CLI processes on a scratch HOME, then the real gateway.

Claude Code and OpenCode each hold two fake servers (plus unrelated settings, comments and an entry that
cannot be imported). Detection asks which client; a dry run writes nothing; the imports fill the
gateway's config; write-back leaves Claude Code's file holding the gateway entry and everything else
byte for byte, and its entry starts this checkout's gateway (the launcher `auto` picks for a gateway not
installed from the package index) and was tried before it was written; the gateway started exactly as
that entry says finds and runs imported tools; `--restore` brings the original file back byte-identical,
and importing again changes nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import anyio
import mcp_types as types
import pytest
from gateway_testing import FAKE_SERVER
from mcp import Client, StdioServerParameters

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

GATEWAY_BIN = Path(sys.executable).parent / "mcp-gateway"
CLI_SECONDS = 60.0
SESSION_SECONDS = 60.0
POLL_SECONDS = 0.05
CLIENT_VARIABLES = ("MCP_GATEWAY_HOME", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "OPENCODE_CONFIG", "CODEX_HOME")


def fake(name: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(FAKE_SERVER)], "env": {"FAKE_MCP_NAME": name}}


def claude_servers_block(indent: str) -> str:
    """Claude Code's `mcpServers` as it writes them: two fake stdio servers and a remote it keeps (its headers come
    from a helper command, which the gateway cannot run; an OAuth remote is imported now, see `test_e2e_oauth`)."""
    servers = {
        "notes": {"type": "stdio", **fake("notes")},
        "weather-mcp-server": {"type": "stdio", **fake("weather")},
        "linear": {"type": "http", "url": "https://mcp.linear.app/mcp", "headersHelper": "get-linear-token"},
    }
    return json.dumps(servers, indent=2).replace("\n", "\n" + indent)


CLAUDE_HEAD = '{\n  "numStartups": 7,\n  "tipsHistory": {\n    "memory-command": 3\n  },\n  "mcpServers": '
CLAUDE_TAIL = ',\n  "projects": {\n    "/home/me/src": {\n      "history": []\n    }\n  },\n  "autoUpdates": false\n}\n'

OPENCODE = """{
  "$schema": "https://opencode.ai/config.json",
  // my servers
  "mcp": {
    "search-docs": { "type": "local", "command": [PYTHON, SERVER], "environment": { "FAKE_MCP_NAME": "docs" } },
    "calendar": { "type": "local", "command": [PYTHON, SERVER], "enabled": true, },
  },
  "theme": "opencode", // keep
}
""".replace("PYTHON", json.dumps(sys.executable)).replace("SERVER", json.dumps(str(FAKE_SERVER)))


class NewUser:
    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        self.gateway = root / "gateway-home"
        self.claude = self.home / ".claude.json"
        self.opencode = self.home / ".config" / "opencode" / "opencode.jsonc"
        self.opencode.parent.mkdir(parents=True)
        self.claude_text = CLAUDE_HEAD + claude_servers_block("  ") + CLAUDE_TAIL
        self.claude.write_text(self.claude_text)
        self.opencode.write_text(OPENCODE)
        self.environment = {k: v for k, v in os.environ.items() if k not in CLIENT_VARIABLES} | {"HOME": str(self.home)}

    def program(self) -> list[str]:
        if GATEWAY_BIN.exists():
            return [str(GATEWAY_BIN), "--home", str(self.gateway)]
        return [sys.executable, "-m", "mcp_gateway", "--home", str(self.gateway)]

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.program(), "import", *args],
            capture_output=True,
            text=True,
            timeout=CLI_SECONDS,
            env=self.environment,
            cwd=self.home,
            check=False,
        )


def expected_claude_after_write_back(gateway_home: Path) -> str:
    entry: dict[str, object] = {
        "type": "stdio",
        "command": str(GATEWAY_BIN),
        "args": [],
        "env": {"MCP_GATEWAY_HOME": str(gateway_home)},
        "alwaysLoad": True,
    }
    linear = {"type": "http", "url": "https://mcp.linear.app/mcp", "headersHelper": "get-linear-token"}
    block = (
        "{\n"
        f'    "mcp-gateway": {json.dumps(entry, indent=2).replace(chr(10), chr(10) + "    ")},\n'
        f'    "linear": {json.dumps(linear, indent=2).replace(chr(10), chr(10) + "    ")}\n'
        "  }"
    )
    return CLAUDE_HEAD + block + CLAUDE_TAIL


def payload(result: types.CallToolResult) -> dict[str, Any]:
    first = result.content[0]
    assert isinstance(first, types.TextContent), result
    return cast(dict[str, Any], json.loads(first.text))


async def search_until_loaded(client: Client, query: str) -> dict[str, Any]:
    with anyio.fail_after(SESSION_SECONDS):
        while True:
            found = payload(await client.call_tool("search_tools", {"query": query}))
            loading = any("Still loading" in str(note) for note in found.get("notes", []))
            if found["results"] and not loading:
                return found
            await anyio.sleep(POLL_SECONDS)


async def test_a_new_user_imports_writes_back_serves_and_restores(tmp_path: Path) -> None:
    user = NewUser(tmp_path)

    detected = user.cli("--dry-run")
    assert detected.returncode == 2, detected.stdout + detected.stderr
    assert "claude-code" in detected.stdout
    assert "opencode" in detected.stdout
    assert "choose one with --client NAME" in detected.stderr

    dry = user.cli("--client", "claude-code", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "notes: imported (new in the gateway)" in dry.stdout
    assert "linear: skipped: its headers come from a helper command" in dry.stdout
    assert "Dry run: nothing was written." in dry.stdout
    assert not user.gateway.exists()
    assert user.claude.read_text() == user.claude_text

    opencode = user.cli("--client", "opencode")
    assert opencode.returncode == 0, opencode.stderr
    assert user.opencode.read_text() == OPENCODE  # imported, not rewritten

    claude = user.cli("--client", "claude-code", "--write-client-config")
    assert claude.returncode == 0, claude.stderr
    assert "Launcher: path (this gateway was installed from " in claude.stdout
    assert "Checked: the entry's command starts the gateway." in claude.stdout
    assert user.claude.read_text() == expected_claude_after_write_back(user.gateway)
    (backup,) = user.home.glob(".claude.json.mcp-gateway-backup-*")
    assert backup.read_text() == user.claude_text

    config = json.loads((user.gateway / "config.json").read_text())
    assert set(config["mcpServers"]) == {"notes", "weather-mcp-server", "search-docs", "calendar"}
    assert config["mcpServers"]["weather-mcp-server"]["aliases"] == ["weather"]

    written = json.loads(user.claude.read_text())["mcpServers"]["mcp-gateway"]
    as_claude_code_starts_it = StdioServerParameters(
        command=written["command"], args=written["args"], env=user.environment | written["env"]
    )
    with anyio.fail_after(SESSION_SECONDS):
        async with Client(as_claude_code_starts_it, mode="legacy") as client:
            found = await search_until_loaded(client, "echo the message")
            assert {hit["tool"] for hit in found["results"]} >= {"notes.echo", "calendar.echo"}
            for tool in ("weather.echo", "search-docs.echo"):
                result = await client.call_tool("execute_tool", {"tool": tool, "arguments": {"message": "hi"}})
                assert not result.is_error, result
                assert [item.text for item in result.content if isinstance(item, types.TextContent)] == ["hi"]

    config_text = (user.gateway / "config.json").read_text()
    restored = user.cli("--restore", "--client", "claude-code")
    assert restored.returncode == 0, restored.stderr
    assert user.claude.read_bytes() == user.claude_text.encode()

    again = user.cli("--client", "claude-code")
    assert again.returncode == 0, again.stderr
    assert "unchanged" in again.stdout
    assert (user.gateway / "config.json").read_text() == config_text
