"""Cline: `cline_mcp_settings.json` → `mcpServers`, in the shared `~/.cline` folder or, for older
installs, in the editor's extension storage.

An entry is flat (`type`: `stdio`, `sse`, `streamableHttp`; legacy `transportType`, where `http` means
Streamable HTTP) or, as `cline mcp add` writes it, nested under `transport`. A `url` without a type is
SSE. `disabled` and `timeout` (seconds per call) carry over. There is no variable syntax. Cline runs
inside a GUI editor (or its CLI); the gateway command is absolute so both find it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mcp_gateway.config.jsonfile import as_object
from mcp_gateway.importing.clients.client import EntryContext, Launch
from mcp_gateway.importing.clients.entries import number, read_standard, seed_fields
from mcp_gateway.importing.clients.json_client import JsonClient, fixed_block
from mcp_gateway.importing.clients.locate import env_path, vscode_user_dirs
from mcp_gateway.importing.clients.model import JsonObject, Scope, Where
from mcp_gateway.importing.clients.oauth_block import read_oauth
from mcp_gateway.importing.clients.variables import Syntax

FILE_NAME = "cline_mcp_settings.json"
EXTENSION_ID = "saoudrizwan.claude-dev"
MS_PER_SECOND = 1000


def _locate(where: Where, scope: Scope) -> list[Path]:
    explicit = env_path(where, "CLINE_MCP_SETTINGS_PATH")
    data = env_path(where, "CLINE_DATA_DIR") or (env_path(where, "CLINE_DIR") or where.home / ".cline") / "data"
    legacy = [user / "globalStorage" / EXTENSION_ID / "settings" / FILE_NAME for user in vscode_user_dirs(where)]
    return [*([explicit] if explicit else []), data / "settings" / FILE_NAME, *legacy]


def _read_entry(name: str, raw: Mapping[str, object], context: EntryContext) -> JsonObject:
    context.oauth = read_oauth(raw.get("oauth"))
    nested = as_object(raw.get("transport"))
    fields = nested if nested is not None else raw
    if nested is None and raw.get("type") is None and raw.get("transportType") == "http":
        fields = {**raw, "type": "streamableHttp"}
    entry = read_standard(fields, url_default="sse", type_keys=("type", "transportType"))
    timeout = number(raw, "timeout")
    return seed_fields(entry, request_timeout_ms=timeout * MS_PER_SECOND if timeout else None)


def _shape(launch: Launch) -> JsonObject:
    return {
        "type": "stdio",
        "command": launch.command,
        "args": list(launch.args),
        "env": dict(launch.env),
        "disabled": False,
    }


CLIENT = JsonClient(
    name="cline",
    title="Cline",
    gui=True,
    scopes=("user",),
    locate=_locate,
    block=fixed_block("mcpServers"),
    read_entry=_read_entry,
    syntax=Syntax.NONE,
    shape=_shape,
)
