"""The command-line agents that keep JSON: OpenCode, Gemini CLI and epoch-agent (Codex's TOML is `codex`).

OpenCode: `opencode.json[c]` → `mcp`: `{"type": "local", "command": [program, …args], "environment"}` or
`{"type": "remote", "url", "headers", "oauth"}`, with `enabled` and `{env:VAR}` / `{file:path}` references.
OpenCode validates strictly (unknown keys are errors), so its gateway entry carries nothing but its own fields.

Gemini CLI: `~/.gemini/settings.json` and a project's `.gemini/settings.json` → `mcpServers`: a `url` is
Streamable HTTP unless `type` says `sse`, or the older `httpUrl`. `$VAR`, `${VAR}`, `${VAR:-default}` (and
`%VAR%` on Windows) expand everywhere. `timeout` (ms), `includeTools`, `excludeTools` and `description` carry
over; a server Gemini keeps off (`mcp.excluded`, left out of a `mcp.allowed` list, or turned off by `gemini mcp
disable`) is imported disabled. Gemini hides variables whose names look secret from the servers it starts,
unless an entry's `env` names them, so the gateway's entry passes on by name every variable the imported
servers use.

epoch-agent (`~/.epoch/mcp.json`, and the gateway's own alias spelling): `servers.<name>` with `transport` or
its alias `type` (`transport` wins): `stdio`, `sse`, `http`, or `streamable`; `streamable: true` also means
Streamable HTTP. With no transport, a `url` means SSE and anything else stdio. Keys may be snake_case or
camelCase; the timeouts are seconds. Values are copied as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from mcp_gateway.config import as_list, as_object
from mcp_gateway.importing.clients.entries import (
    MS_PER_SECOND,
    number,
    plain_launch,
    read_oauth,
    read_standard,
    remote_entry,
    seed_fields,
    stdio_entry,
    string_map,
    strings,
    text,
    with_oauth,
)
from mcp_gateway.importing.clients.json_client import JsonClient, ValueChange, side_document
from mcp_gateway.importing.clients.jsonc import Node
from mcp_gateway.importing.clients.model import GATEWAY_NAME, ClientReading, JsonObject, Launch, Scope, Skip, Where
from mcp_gateway.importing.clients.variables import Syntax

OPENCODE_FILES = ("opencode.jsonc", "opencode.json")
GEMINI_ENABLEMENT = "mcp-server-enablement.json"
"""Where `gemini mcp disable` keeps the servers it turned off (in the user's `.gemini` folder, for every project)."""


def _opencode_files(where: Where, scope: Scope) -> list[Path]:
    if scope == "project":
        return [folder / name for folder in (where.project / ".opencode", where.project) for name in OPENCODE_FILES]
    custom = where.env_path("OPENCODE_CONFIG")
    directory = where.config_home() / "opencode"
    return [*([custom] if custom else []), *(directory / name for name in (*OPENCODE_FILES, "config.json"))]


def _opencode_entry(raw: Mapping[str, object], warnings: list[str]) -> JsonObject:
    """A remote with `oauth: false` uses only its headers."""
    kind = text(raw, "type") or ("local" if raw.get("command") is not None else "remote")
    if kind == "local":
        command = raw.get("command")
        words = [command] if isinstance(command, str) else strings(raw, "command")
        if not words or not words[0]:
            raise Skip("it has no 'command' to start")
        return stdio_entry(words[0], words[1:], string_map(raw, "environment"))
    if kind != "remote":
        raise Skip(f"its type '{kind}' is neither 'local' nor 'remote'")
    oauth = read_oauth(raw.get("oauth"))
    url = text(raw, "url")
    if not url:
        raise Skip("it has no 'url' to connect to")
    return with_oauth(remote_entry("http", url, string_map(raw, "headers")), oauth)


def _gemini_folder(where: Where) -> Path:
    return (where.env_path("GEMINI_CLI_HOME") or where.home) / ".gemini"


def _gemini_entry(raw: Mapping[str, object], warnings: list[str]) -> JsonObject:
    if raw.get("tcp") is not None:
        raise Skip("it connects over a websocket ('tcp'), which the gateway cannot")
    if raw.get("authProviderType") is not None:
        raise Skip("it signs in through Google credentials ('authProviderType'), which the gateway cannot")
    oauth = read_oauth(raw.get("oauth"))
    http_url = text(raw, "httpUrl")
    entry = remote_entry("http", http_url, string_map(raw, "headers")) if http_url else read_standard(raw)
    seed_fields(
        entry,
        include=strings(raw, "includeTools"),
        exclude=strings(raw, "excludeTools"),
        request_timeout_ms=number(raw, "timeout"),
        description=text(raw, "description"),
    )
    return with_oauth(entry, oauth)


def _gemini_turned_off(root: Node, scope: Scope, where: Where) -> dict[str, str]:
    """Gemini's three switches, matched as it matches them (case aside)."""
    document = as_object(root.value) or {}
    settings = as_object(document.get("mcp")) or {}
    excluded = {_folded(name) for name in as_list(settings.get("excluded")) or []}
    allowed = as_list(settings.get("allowed"))
    allowed_names = None if allowed is None else {_folded(name) for name in allowed}
    enablement = side_document(_gemini_folder(where) / GEMINI_ENABLEMENT)
    off: dict[str, str] = {}
    for name in as_object(document.get("mcpServers")) or {}:
        state = as_object(enablement.get(_folded(name))) or {}
        if _folded(name) in excluded:
            off[name] = "it is in mcp.excluded"
        elif allowed_names is not None and _folded(name) not in allowed_names:
            off[name] = "mcp.allowed leaves it out"
        elif state.get("enabled") is False:
            off[name] = f"`gemini mcp disable` turned it off, in {GEMINI_ENABLEMENT}"
    return off


def _folded(name: object) -> str:
    return str(name).strip().lower()


def _gemini_allowed(root: Node, reading: ClientReading) -> list[ValueChange]:
    """In a `mcp.allowed` list, the gateway takes the place of the servers it now runs."""
    allowed = as_list((as_object((as_object(root.value) or {}).get("mcp")) or {}).get("allowed"))
    if allowed is None:
        return []
    moved = {server.name for server in reading.imported}
    kept = [name for name in allowed if name not in moved and name != GATEWAY_NAME]
    return [ValueChange(("mcp", "allowed"), [GATEWAY_NAME, *kept])]


def _gemini_shape(launch: Launch) -> JsonObject:
    return {**plain_launch(launch), "env": {**launch.env, **{name: f"${name}" for name in launch.needed}}}


def _epoch_entry(raw: Mapping[str, object], warnings: list[str]) -> JsonObject:
    fields: dict[str, object] = {}
    for key, value in raw.items():  # the first spelling wins, as the client does
        fields.setdefault(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).lower(), value)
    oauth = read_oauth(fields.get("oauth"))
    declared = text(fields, "transport") or text(fields, "type")
    if declared is None:
        declared = "http" if fields.get("streamable") is True else "sse" if fields.get("url") is not None else "stdio"
    entry = read_standard({**fields, "type": declared}, url_default="sse")
    seed_fields(
        entry,
        request_timeout_ms=number(fields, "timeout", MS_PER_SECOND),
        connect_timeout_ms=number(fields, "connect_timeout", MS_PER_SECOND),
    )
    return with_oauth(entry, oauth)


OPENCODE = JsonClient(
    name="opencode",
    title="OpenCode",
    gui=False,
    scopes=("user", "project"),
    locate=_opencode_files,
    block=("mcp",),
    read_entry=_opencode_entry,
    syntax=Syntax.OPENCODE,
    shape=lambda launch: {
        "type": "local",
        "command": [launch.command, *launch.args],
        "environment": dict(launch.env),
        "enabled": True,
    },
)
GEMINI = JsonClient(
    name="gemini",
    title="Gemini CLI",
    gui=False,
    scopes=("user", "project"),
    locate=lambda where, scope: [
        (where.project / ".gemini" if scope == "project" else _gemini_folder(where)) / "settings.json"
    ],
    read_entry=_gemini_entry,
    syntax=Syntax.SHELL,
    shape=_gemini_shape,
    turned_off=_gemini_turned_off,
    extra=_gemini_allowed,
    filters_environment=True,
)
EPOCH = JsonClient(
    name="servers-json",
    title="epoch-agent",
    gui=False,
    scopes=("user",),
    locate=lambda where, scope: [(where.env_path("EPOCH_HOME") or where.home / ".epoch") / "mcp.json"],
    block=("servers",),
    read_entry=_epoch_entry,
    syntax=Syntax.GATEWAY,
    shape=lambda launch: {"transport": "stdio", **plain_launch(launch)},
)
