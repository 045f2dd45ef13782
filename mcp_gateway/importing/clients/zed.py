"""Zed: `settings.json` → `context_servers` (JSONC), the user's or a project's `.zed/settings.json`.

An entry is a command (`command`, `args`, `env`; older Zed nested them as `command: {path, args, env}`),
a remote (`url`, `headers`), or a server a Zed extension provides (`settings` and no command, or
`"source": "extension"`): those come with the extension and are skipped. `enabled: false` carries over.
There is no variable syntax. The gateway entry keeps the legacy `"source": "custom"`, which both the old
and the new Zed accept.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mcp_gateway.config.jsonfile import as_object
from mcp_gateway.importing.clients.client import EntryContext, Launch
from mcp_gateway.importing.clients.entries import read_standard, remote_entry, string_map, text
from mcp_gateway.importing.clients.json_client import JsonClient, fixed_block
from mcp_gateway.importing.clients.locate import app_data, config_home
from mcp_gateway.importing.clients.model import JsonObject, Scope, Skip, Where
from mcp_gateway.importing.clients.oauth_block import read_oauth
from mcp_gateway.importing.clients.variables import Syntax


def _locate(where: Where, scope: Scope) -> list[Path]:
    if scope == "project":
        return [where.project / ".zed" / "settings.json"]
    if where.windows:
        return [app_data(where) / "Zed" / "settings.json", where.home / ".config" / "zed" / "settings.json"]
    if where.macos:
        return [where.home / ".config" / "zed" / "settings.json"]
    return [config_home(where) / "zed" / "settings.json"]


def _read_entry(name: str, raw: Mapping[str, object], context: EntryContext) -> JsonObject:
    nested = as_object(raw.get("command"))
    if raw.get("source") == "extension" or (raw.get("command") is None and raw.get("url") is None):
        raise Skip("a Zed extension provides it; it stays with the extension")
    context.oauth = read_oauth(raw.get("oauth"))
    if raw.get("remote") is True:
        context.warnings.append("Zed ran it on the remote host during remote development; the gateway runs it here")
    if nested is not None:
        fields: Mapping[str, object] = {
            "command": nested.get("path"),
            "args": nested.get("args"),
            "env": nested.get("env"),
        }
        entry = read_standard(fields)
    elif raw.get("url") is not None:
        entry = remote_entry("http", text(raw, "url") or "", string_map(raw, "headers"))
    else:
        entry = read_standard(raw)
    return entry


def _shape(launch: Launch) -> JsonObject:
    return {
        "source": "custom",
        "enabled": True,
        "command": launch.command,
        "args": list(launch.args),
        "env": dict(launch.env),
    }


CLIENT = JsonClient(
    name="zed",
    title="Zed",
    gui=True,
    scopes=("user", "project"),
    locate=_locate,
    block=fixed_block("context_servers"),
    read_entry=_read_entry,
    syntax=Syntax.NONE,
    shape=_shape,
)
