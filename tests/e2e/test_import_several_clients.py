"""Three clients moved into one workspace with the real `mcp-gateway import`, then each client's gateway
started exactly as its rewritten config says: every client keeps reaching its servers.

Codex, Claude Code and Cursor each hold fake servers; two names clash with another definition (`notes` in
Codex and Claude Code, `docs` in Claude Code and Cursor): the first one in stays, the other stays in its
client. Codex is imported first, so when Claude Code's `docs` brings in `${DOCS_KEY}`, Codex's gateway
entry, which names the variables Codex passes on, must be brought up to date. Codex's filtering is
reproduced: its gateway sees only a few base variables, its entry's `env` and the variables its
`env_vars` names.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from gateway_testing import FAKE_SERVER
from mcp import Client, StdioServerParameters

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

GATEWAY_BIN = Path(sys.executable).parent / "mcp-gateway"
CLI_SECONDS = 60.0
SESSION_SECONDS = 60.0
CODEX_BASE_VARIABLES = ("HOME", "PATH", "LANG", "USER")
"""What Codex hands a server besides what its entry names (its default environment allow-list, in part)."""
SECRETS = {"DOCS_KEY": "docs-secret-1", "TRACKER_TOKEN": "tracker-secret-2"}
CLIENT_VARIABLES = ("MCP_GATEWAY_HOME", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "CODEX_HOME")


def fake(name: str, **env: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(FAKE_SERVER)], "env": {"FAKE_MCP_NAME": name, **env}}


def toml_server(name: str, server: Mapping[str, Any], env_vars: list[str]) -> str:
    return (
        f"[mcp_servers.{name}]\ncommand = {json.dumps(server['command'])}\nargs = {json.dumps(server['args'])}\n"
        f"env_vars = {json.dumps(env_vars)}\n\n[mcp_servers.{name}.env]\nFAKE_MCP_NAME = "
        f"{json.dumps(server['env']['FAKE_MCP_NAME'])}\n\n"
    )


class ThreeClients:
    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        self.gateway = root / "gateway-home"
        self.claude = self.home / ".claude.json"
        self.cursor = self.home / ".cursor" / "mcp.json"
        self.codex = self.home / ".codex" / "config.toml"
        for path in (self.cursor, self.codex):
            path.parent.mkdir(parents=True)
        docs = fake("docs-claude", DOCS_KEY="${DOCS_KEY}")
        self.claude.write_text(json.dumps({"mcpServers": {"notes": fake("notes-claude"), "docs": docs}}))
        self.cursor.write_text(json.dumps({"mcpServers": {"docs": fake("docs-cursor"), "calendar": fake("calendar")}}))
        self.codex.write_text(
            toml_server("tracker", fake("tracker"), ["TRACKER_TOKEN"]) + toml_server("notes", fake("notes-codex"), [])
        )
        base = {k: v for k, v in os.environ.items() if k not in CLIENT_VARIABLES}
        self.environment = base | SECRETS | {"HOME": str(self.home)}

    def imports(self, client: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(GATEWAY_BIN), "import", "--client", client, "--write-client-config"],
            capture_output=True,
            text=True,
            timeout=CLI_SECONDS,
            env=self.environment | {"MCP_GATEWAY_HOME": str(self.gateway)},
            cwd=self.home,
            check=False,
        )

    def json_entry(self, path: Path) -> StdioServerParameters:
        entry = json.loads(path.read_text())["mcpServers"]["mcp-gateway"]
        return StdioServerParameters(command=entry["command"], args=entry["args"], env=self.environment | entry["env"])

    def codex_entry(self) -> StdioServerParameters:
        entry = tomllib.loads(self.codex.read_text())["mcp_servers"]["mcp-gateway"]
        passed = [*CODEX_BASE_VARIABLES, *entry.get("env_vars", [])]
        env = {name: self.environment[name] for name in passed if name in self.environment} | entry["env"]
        return StdioServerParameters(command=entry["command"], args=entry["args"], env=env)


async def variable(client: Client, server: str, name: str) -> str:
    result = await client.call_tool("execute_tool", {"tool": f"{server}.env", "arguments": {"name": name}})
    assert not result.is_error, result
    return "".join(item.text for item in result.content if isinstance(item, types.TextContent))


async def test_every_client_keeps_its_servers_after_the_others_are_imported(tmp_path: Path) -> None:
    clients = ThreeClients(tmp_path)
    for client in ("codex", "claude-code", "cursor"):
        imported = clients.imports(client)
        assert imported.returncode == 0, imported.stdout + imported.stderr
        if client == "claude-code":
            assert "notes: not imported: the gateway already has a 'notes' with a different env" in imported.stdout
            assert f"Updated Codex CLI's gateway entry in {clients.codex} to pass on DOCS_KEY" in imported.stdout
        if client == "cursor":
            assert "docs: not imported: the gateway already has a 'docs' with a different env" in imported.stdout

    config = json.loads((clients.gateway / "config.json").read_text())["mcpServers"]
    assert set(config) == {"tracker", "notes", "docs", "calendar"}
    assert config["notes"]["env"]["FAKE_MCP_NAME"] == "notes-codex"  # first come, and never replaced
    assert "docs" in json.loads(clients.cursor.read_text())["mcpServers"]  # Cursor keeps its own variant
    assert "notes" in json.loads(clients.claude.read_text())["mcpServers"]  # and so does Claude Code

    for params in (clients.codex_entry(), clients.json_entry(clients.claude), clients.json_entry(clients.cursor)):
        with anyio.fail_after(SESSION_SECONDS):
            async with Client(params, mode="legacy") as session:
                assert await variable(session, "tracker", "TRACKER_TOKEN") == SECRETS["TRACKER_TOKEN"]
                assert await variable(session, "docs", "FAKE_MCP_NAME") == "docs-claude"
                assert await variable(session, "docs", "DOCS_KEY") == SECRETS["DOCS_KEY"]
                assert await variable(session, "notes", "FAKE_MCP_NAME") == "notes-codex"
                assert await variable(session, "calendar", "FAKE_MCP_NAME") == "calendar"
