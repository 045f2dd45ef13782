"""VS Code (Copilot agent mode): the profile's `mcp.json` and a workspace's `.vscode/mcp.json` →
`servers`; older versions kept `"mcp": {"servers": …}` in `settings.json`.

Every entry has a `type` (`stdio`, `http`, `sse`). Values use `${env:VAR}`, `${userHome}`,
`${workspaceFolder}` and `${input:id}`; an input is a secret VS Code prompts for and keeps in its own
storage, so such a server is skipped (and keeps working in VS Code). `envFile` is skipped too. The
`inputs` list is left alone: servers that stay may still use it. The files are JSONC.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mcp_gateway.importing.clients.client import EntryContext
from mcp_gateway.importing.clients.entries import read_standard
from mcp_gateway.importing.clients.json_client import JsonClient
from mcp_gateway.importing.clients.jsonc import Node
from mcp_gateway.importing.clients.locate import vscode_user_dirs
from mcp_gateway.importing.clients.model import JsonObject, Scope, Skip, Where
from mcp_gateway.importing.clients.oauth_block import read_oauth
from mcp_gateway.importing.clients.variables import Syntax
from mcp_gateway.importing.launch import stdio_entry

EDITORS = ("Code", "Code - Insiders")
SETTINGS_FILE = "settings.json"
LEGACY_BLOCK = ("mcp", "servers")


def _locate(where: Where, scope: Scope) -> list[Path]:
    folders = [where.project / ".vscode"] if scope == "project" else vscode_user_dirs(where, EDITORS)
    return [folder / "mcp.json" for folder in folders] + [folder / SETTINGS_FILE for folder in folders]


def _block(root: Node, path: Path, scope: Scope, where: Where) -> tuple[str, ...]:
    """`servers` in `mcp.json`; `mcp.servers` in `settings.json` (or any file that has only that)."""
    if root.find(("servers",)) is None and root.find(LEGACY_BLOCK) is not None:
        return LEGACY_BLOCK
    return LEGACY_BLOCK if path.name == SETTINGS_FILE else ("servers",)


def _read_entry(name: str, raw: Mapping[str, object], context: EntryContext) -> JsonObject:
    if raw.get("envFile") is not None:
        raise Skip("it loads variables from a file ('envFile'), which the gateway cannot; move them into 'env'")
    url = raw.get("url")
    if isinstance(url, str) and url.startswith(("unix:", "pipe:")):
        raise Skip("it connects over a local socket or pipe, which the gateway cannot")
    context.oauth = read_oauth(raw.get("oauth"))
    if raw.get("sandboxEnabled") is True or raw.get("sandbox") is not None:
        context.warnings.append("VS Code ran it in a sandbox; the gateway runs it without one")
    return read_standard(raw)


CLIENT = JsonClient(
    name="vscode",
    title="VS Code",
    gui=True,
    scopes=("user", "project"),
    locate=_locate,
    block=_block,
    read_entry=_read_entry,
    syntax=Syntax.EDITOR,
    shape=stdio_entry,
)
