"""OpenCode: `opencode.json[c]` → `mcp`.

Entries are `{"type": "local", "command": [program, …args], "environment": {…}}` or
`{"type": "remote", "url", "headers", "oauth"}`, with `enabled` and `{env:VAR}` / `{file:path}`
references. OpenCode validates strictly (unknown keys are errors), so its gateway entry carries nothing
but OpenCode's own fields. A remote with an `oauth` object signs in with OAuth and is skipped; one with
`oauth: false` uses only its headers.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mcp_gateway.importing.clients.client import EntryContext, Launch
from mcp_gateway.importing.clients.entries import (
    remote_entry,
    stdio_entry,
    string_map,
    strings,
    text,
)
from mcp_gateway.importing.clients.json_client import JsonClient, fixed_block
from mcp_gateway.importing.clients.locate import config_home, env_path
from mcp_gateway.importing.clients.model import JsonObject, Scope, Skip, Where
from mcp_gateway.importing.clients.oauth_block import read_oauth
from mcp_gateway.importing.clients.variables import Syntax

FILE_NAMES = ("opencode.jsonc", "opencode.json")


def _locate(where: Where, scope: Scope) -> list[Path]:
    if scope == "project":
        return [where.project / ".opencode" / name for name in FILE_NAMES] + [where.project / n for n in FILE_NAMES]
    custom = env_path(where, "OPENCODE_CONFIG")
    directory = config_home(where) / "opencode"
    return [*([custom] if custom else []), *(directory / name for name in (*FILE_NAMES, "config.json"))]


def _read_entry(name: str, raw: Mapping[str, object], context: EntryContext) -> JsonObject:
    kind = text(raw, "type") or ("local" if raw.get("command") is not None else "remote")
    if kind == "local":
        command = raw.get("command")
        words = [command] if isinstance(command, str) else strings(raw, "command")
        if not words or not words[0]:
            raise Skip("it has no 'command' to start")
        entry = stdio_entry(words[0], words[1:], string_map(raw, "environment"))
    elif kind == "remote":
        context.oauth = read_oauth(raw.get("oauth"))
        url = text(raw, "url")
        if not url:
            raise Skip("it has no 'url' to connect to")
        entry = remote_entry("http", url, string_map(raw, "headers"))
    else:
        raise Skip(f"its type '{kind}' is neither 'local' nor 'remote'")
    return entry


def _shape(launch: Launch) -> JsonObject:
    return {
        "type": "local",
        "command": [launch.command, *launch.args],
        "environment": dict(launch.env),
        "enabled": True,
    }


CLIENT = JsonClient(
    name="opencode",
    title="OpenCode",
    gui=False,
    scopes=("user", "project"),
    locate=_locate,
    block=fixed_block("mcp"),
    read_entry=_read_entry,
    syntax=Syntax.OPENCODE,
    shape=_shape,
)
