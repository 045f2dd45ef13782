"""Windsurf: `~/.codeium/windsurf/mcp_config.json` → `mcpServers`.

Claude's shape without a `type`; a remote server's URL is in `serverUrl` or `url` (Streamable HTTP).
`disabled` and `disabledTools` carry over as the gateway's `disabled` and `excludeTools`. Values use
`${env:VAR}` (and `${file:…}`, which is skipped). The JetBrains plugin keeps the same file one folder up.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mcp_gateway.importing.clients.client import EntryContext, Launch
from mcp_gateway.importing.clients.entries import read_standard, seed_fields, strings
from mcp_gateway.importing.clients.json_client import JsonClient, fixed_block
from mcp_gateway.importing.clients.model import JsonObject, Scope, Where
from mcp_gateway.importing.clients.oauth_block import read_oauth
from mcp_gateway.importing.clients.variables import Syntax


def _locate(where: Where, scope: Scope) -> list[Path]:
    codeium = where.home / ".codeium"
    return [codeium / "windsurf" / "mcp_config.json", codeium / "mcp_config.json"]


def _read_entry(name: str, raw: Mapping[str, object], context: EntryContext) -> JsonObject:
    context.oauth = read_oauth(raw.get("oauth"))
    entry = read_standard(raw, url_keys=("serverUrl", "url"))
    return seed_fields(entry, exclude=strings(raw, "disabledTools"))


def _shape(launch: Launch) -> JsonObject:
    return {"command": launch.command, "args": list(launch.args), "env": dict(launch.env)}


CLIENT = JsonClient(
    name="windsurf",
    title="Windsurf",
    gui=True,
    scopes=("user",),
    locate=_locate,
    block=fixed_block("mcpServers"),
    read_entry=_read_entry,
    syntax=Syntax.EDITOR,
    shape=_shape,
)
