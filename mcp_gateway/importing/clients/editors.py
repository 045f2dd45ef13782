"""The clients that live in an editor: Cursor, VS Code, Windsurf, Roo Code, Cline and Zed.

All are GUI apps, which do not inherit the shell's PATH, so the gateway command is absolute. The VS Code
family shares `${env:VAR}`, `${userHome}`, `${workspaceFolder}`; an `envFile` (variables loaded from a file)
has no gateway equivalent and is skipped. Cline and Zed have no variable syntax.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mcp_gateway.config import as_object
from mcp_gateway.importing.clients.entries import (
    ENV_FILE,
    MS_PER_SECOND,
    number,
    plain_launch,
    read_oauth,
    read_standard,
    remote_entry,
    seed_fields,
    standard,
    stdio_launch,
    string_map,
    text,
    with_oauth,
)
from mcp_gateway.importing.clients.json_client import JsonClient
from mcp_gateway.importing.clients.jsonc import Node
from mcp_gateway.importing.clients.model import JsonObject, Launch, Scope, Skip, Where
from mcp_gateway.importing.clients.variables import Syntax

VSCODE_SETTINGS = "settings.json"
VSCODE_LEGACY_BLOCK = ("mcp", "servers")
CLINE_FILE = "cline_mcp_settings.json"


def _vscode_block(root: Node, path: Path, scope: Scope, where: Where) -> tuple[str, ...]:
    """`servers` in `mcp.json`; older versions kept `"mcp": {"servers": …}` in `settings.json`."""
    if root.find(("servers",)) is None and root.find(VSCODE_LEGACY_BLOCK) is not None:
        return VSCODE_LEGACY_BLOCK
    return VSCODE_LEGACY_BLOCK if path.name == VSCODE_SETTINGS else ("servers",)


def _vscode_files(where: Where, scope: Scope) -> list[Path]:
    folders = [where.project / ".vscode"] if scope == "project" else where.vscode_user_dirs(("Code", "Code - Insiders"))
    return [folder / name for name in ("mcp.json", VSCODE_SETTINGS) for folder in folders]


def _vscode_entry(raw: Mapping[str, object], warnings: list[str]) -> JsonObject:
    """Every entry has a `type`; `${input:id}` (a secret VS Code prompts for and keeps) is skipped by the syntax.
    The `inputs` list is left alone: servers that stay may still use it."""
    url = raw.get("url")
    if raw.get("envFile") is None and isinstance(url, str) and url.startswith(("unix:", "pipe:")):
        raise Skip("it connects over a local socket or pipe, which the gateway cannot")
    entry = standard(refused={"envFile": ENV_FILE})(raw, warnings)
    if raw.get("sandboxEnabled") is True or raw.get("sandbox") is not None:
        warnings.append("VS Code ran it in a sandbox; the gateway runs it without one")
    return entry


def _roo_files(where: Where, scope: Scope) -> list[Path]:
    if scope == "project":
        return [where.project / ".roo" / "mcp.json"]
    settings = Path("globalStorage") / "rooveterinaryinc.roo-cline" / "settings"
    return [user / settings / "mcp_settings.json" for user in where.vscode_user_dirs()]


def _cline_files(where: Where, scope: Scope) -> list[Path]:
    """The shared `~/.cline` folder or, for older installs, the editor's extension storage."""
    explicit = where.env_path("CLINE_MCP_SETTINGS_PATH")
    data = where.env_path("CLINE_DATA_DIR") or (where.env_path("CLINE_DIR") or where.home / ".cline") / "data"
    storage = Path("globalStorage") / "saoudrizwan.claude-dev" / "settings" / CLINE_FILE
    return [
        *([explicit] if explicit else []),
        data / "settings" / CLINE_FILE,
        *(u / storage for u in where.vscode_user_dirs()),
    ]


def _cline_entry(raw: Mapping[str, object], warnings: list[str]) -> JsonObject:
    """Flat (`type`: `stdio`, `sse`, `streamableHttp`; legacy `transportType`, where `http` means Streamable
    HTTP) or, as `cline mcp add` writes it, nested under `transport`."""
    oauth = read_oauth(raw.get("oauth"))
    nested = as_object(raw.get("transport"))
    fields = nested if nested is not None else raw
    if nested is None and raw.get("type") is None and raw.get("transportType") == "http":
        fields = {**raw, "type": "streamableHttp"}
    entry = read_standard(fields, url_default="sse", type_keys=("type", "transportType"))
    return with_oauth(seed_fields(entry, request_timeout_ms=number(raw, "timeout", MS_PER_SECOND)), oauth)


def _zed_files(where: Where, scope: Scope) -> list[Path]:
    if scope == "project":
        return [where.project / ".zed" / "settings.json"]
    if where.windows:
        return [where.app_data() / "Zed" / "settings.json", where.home / ".config" / "zed" / "settings.json"]
    return [(where.home / ".config" if where.macos else where.config_home()) / "zed" / "settings.json"]


def _zed_entry(raw: Mapping[str, object], warnings: list[str]) -> JsonObject:
    """A command (older Zed nested it as `command: {path, args, env}`), a remote, or a server a Zed extension
    provides (`settings` and no command, or `"source": "extension"`), which stays with the extension."""
    nested = as_object(raw.get("command"))
    if raw.get("source") == "extension" or (raw.get("command") is None and raw.get("url") is None):
        raise Skip("a Zed extension provides it; it stays with the extension")
    oauth = read_oauth(raw.get("oauth"))
    if raw.get("remote") is True:
        warnings.append("Zed ran it on the remote host during remote development; the gateway runs it here")
    if nested is not None:
        entry = read_standard({"command": nested.get("path"), "args": nested.get("args"), "env": nested.get("env")})
    elif raw.get("url") is not None:
        entry = remote_entry("http", text(raw, "url") or "", string_map(raw, "headers"))
    else:
        entry = read_standard(raw)
    return with_oauth(entry, oauth)


def _zed_shape(launch: Launch) -> JsonObject:
    """The legacy `"source": "custom"`, which both the old and the new Zed accept."""
    return {"source": "custom", "enabled": True, **plain_launch(launch)}


CURSOR = JsonClient(
    name="cursor",
    title="Cursor",
    gui=True,
    scopes=("user", "project"),
    locate=lambda where, scope: [(where.project if scope == "project" else where.home) / ".cursor" / "mcp.json"],
    # An optional `type`; a `url` without one is Streamable HTTP. `auth` is Cursor's static OAuth block.
    read_entry=standard(oauth_key="auth", refused={"envFile": ENV_FILE}),
    syntax=Syntax.EDITOR,
)
VSCODE = JsonClient(
    name="vscode",
    title="VS Code",
    gui=True,
    scopes=("user", "project"),
    locate=_vscode_files,
    block=_vscode_block,
    read_entry=_vscode_entry,
    syntax=Syntax.EDITOR,
)
WINDSURF = JsonClient(
    name="windsurf",
    title="Windsurf",
    gui=True,
    scopes=("user",),
    # The JetBrains plugin keeps the same file one folder up.
    locate=lambda where, scope: [
        where.home / ".codeium" / "windsurf" / "mcp_config.json",
        where.home / ".codeium" / "mcp_config.json",
    ],
    # No `type`; a remote server's URL is in `serverUrl` or `url` (Streamable HTTP). `${file:…}` is skipped.
    read_entry=standard(url_keys=("serverUrl", "url"), disabled_tools=True),
    syntax=Syntax.EDITOR,
    shape=plain_launch,
)
ROO = JsonClient(
    name="roo",
    title="Roo Code",
    gui=True,
    scopes=("user", "project"),
    locate=_roo_files,
    # `stdio`, `sse` or `streamable-http`; a `url` without a type is SSE; `timeout` is seconds per call.
    read_entry=standard(url_default="sse", disabled_tools=True, timeout_seconds=True),
    syntax=Syntax.EDITOR,
)
CLINE = JsonClient(
    name="cline",
    title="Cline",
    gui=True,
    scopes=("user",),
    locate=_cline_files,
    read_entry=_cline_entry,
    syntax=Syntax.NONE,
    shape=lambda launch: {**stdio_launch(launch), "disabled": False},
)
ZED = JsonClient(
    name="zed",
    title="Zed",
    gui=True,
    scopes=("user", "project"),
    locate=_zed_files,
    block=("context_servers",),
    read_entry=_zed_entry,
    syntax=Syntax.NONE,
    shape=_zed_shape,
)
