"""Roo Code: `mcp_settings.json` in the editor's extension storage, and a project's `.roo/mcp.json`.

`mcpServers` entries have `type` `stdio`, `sse` or `streamable-http`; a `url` without a type is SSE.
`${env:VAR}` and `${workspaceFolder}` apply to the whole entry. `disabled`, `disabledTools` and
`timeout` (seconds per call) carry over. Roo runs inside a GUI editor (VS Code, Cursor, Windsurf), which
does not inherit the shell's PATH, so the gateway command is absolute.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mcp_gateway.importing.clients.client import EntryContext
from mcp_gateway.importing.clients.entries import number, read_standard, seed_fields, strings
from mcp_gateway.importing.clients.json_client import JsonClient, fixed_block
from mcp_gateway.importing.clients.locate import vscode_user_dirs
from mcp_gateway.importing.clients.model import JsonObject, Scope, Where
from mcp_gateway.importing.clients.oauth_block import read_oauth
from mcp_gateway.importing.clients.variables import Syntax
from mcp_gateway.importing.launch import stdio_entry

EXTENSION_ID = "rooveterinaryinc.roo-cline"
MS_PER_SECOND = 1000


def _locate(where: Where, scope: Scope) -> list[Path]:
    if scope == "project":
        return [where.project / ".roo" / "mcp.json"]
    settings = Path("globalStorage") / EXTENSION_ID / "settings"
    return [user / settings / "mcp_settings.json" for user in vscode_user_dirs(where)]


def _read_entry(name: str, raw: Mapping[str, object], context: EntryContext) -> JsonObject:
    context.oauth = read_oauth(raw.get("oauth"))
    entry = read_standard(raw, url_default="sse")
    timeout = number(raw, "timeout")
    return seed_fields(
        entry,
        exclude=strings(raw, "disabledTools"),
        request_timeout_ms=timeout * MS_PER_SECOND if timeout else None,
    )


CLIENT = JsonClient(
    name="roo",
    title="Roo Code",
    gui=True,
    scopes=("user", "project"),
    locate=_locate,
    block=fixed_block("mcpServers"),
    read_entry=_read_entry,
    syntax=Syntax.EDITOR,
    shape=stdio_entry,
)
