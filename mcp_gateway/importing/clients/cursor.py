"""Cursor: `~/.cursor/mcp.json` and a project's `.cursor/mcp.json` → `mcpServers`.

Claude's shape with an optional `type` (`stdio`, `sse`, `http`, `streamable-http`); a `url` without a
type is Streamable HTTP. Values use VS Code's variables (`${env:VAR}`, `${userHome}`,
`${workspaceFolder}`). `envFile` (variables loaded from a file) has no gateway equivalent, and an `auth`
object means OAuth: both are skipped. Cursor is a GUI app, so the gateway command is absolute.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mcp_gateway.importing.clients.client import EntryContext
from mcp_gateway.importing.clients.entries import read_standard
from mcp_gateway.importing.clients.json_client import JsonClient, fixed_block
from mcp_gateway.importing.clients.model import JsonObject, Scope, Skip, Where
from mcp_gateway.importing.clients.oauth_block import read_oauth
from mcp_gateway.importing.clients.variables import Syntax
from mcp_gateway.importing.launch import stdio_entry


def _locate(where: Where, scope: Scope) -> list[Path]:
    base = where.project if scope == "project" else where.home
    return [base / ".cursor" / "mcp.json"]


def _read_entry(name: str, raw: Mapping[str, object], context: EntryContext) -> JsonObject:
    if raw.get("envFile") is not None:
        raise Skip("it loads variables from a file ('envFile'), which the gateway cannot; move them into 'env'")
    context.oauth = read_oauth(raw.get("auth"))  # Cursor's static OAuth block
    return read_standard(raw)


CLIENT = JsonClient(
    name="cursor",
    title="Cursor",
    gui=True,
    scopes=("user", "project"),
    locate=_locate,
    block=fixed_block("mcpServers"),
    read_entry=_read_entry,
    syntax=Syntax.EDITOR,
    shape=stdio_entry,
)
