"""Gemini CLI: `~/.gemini/settings.json` and a project's `.gemini/settings.json` → `mcpServers`.

stdio entries have `command`, `args`, `env`, `cwd`; remote ones `url` (Streamable HTTP unless `type` says
`sse`) or the older `httpUrl`, and `headers`. `$VAR`, `${VAR}`, `${VAR:-default}` (and `%VAR%` on
Windows) expand everywhere. `timeout` (ms), `includeTools`, `excludeTools` and `description` carry over;
a server Gemini keeps off (`mcp.excluded`, left out of a `mcp.allowed` list, or turned off by `gemini mcp
disable`) is imported disabled. Gemini hides
variables whose names look secret from the servers it starts, unless an entry's `env` names them, so the
gateway's entry passes on by name every variable the imported servers use. Gemini keeps comments.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mcp_gateway.config.jsonfile import as_list, as_object
from mcp_gateway.importing.clients.client import EntryContext, Launch
from mcp_gateway.importing.clients.entries import (
    number,
    read_standard,
    remote_entry,
    seed_fields,
    string_map,
    strings,
    text,
)
from mcp_gateway.importing.clients.json_client import JsonClient, ValueChange, fixed_block, side_document
from mcp_gateway.importing.clients.jsonc import Node
from mcp_gateway.importing.clients.locate import env_path
from mcp_gateway.importing.clients.model import GATEWAY_NAME, ClientReading, JsonObject, Scope, Skip, Where
from mcp_gateway.importing.clients.oauth_block import read_oauth
from mcp_gateway.importing.clients.variables import Syntax

ALLOWED = ("mcp", "allowed")
ENABLEMENT_FILE = "mcp-server-enablement.json"
"""Where `gemini mcp disable` keeps the servers it turned off (in the user's `.gemini` folder, for every project)."""


def _locate(where: Where, scope: Scope) -> list[Path]:
    folder = where.project / ".gemini" if scope == "project" else _user_folder(where)
    return [folder / "settings.json"]


def _read_entry(name: str, raw: Mapping[str, object], context: EntryContext) -> JsonObject:
    if raw.get("tcp") is not None:
        raise Skip("it connects over a websocket ('tcp'), which the gateway cannot")
    if raw.get("authProviderType") is not None:
        raise Skip("it signs in through Google credentials ('authProviderType'), which the gateway cannot")
    context.oauth = read_oauth(raw.get("oauth"))
    http_url = text(raw, "httpUrl")
    entry = remote_entry("http", http_url, string_map(raw, "headers")) if http_url else read_standard(raw)
    return seed_fields(
        entry,
        include=strings(raw, "includeTools"),
        exclude=strings(raw, "excludeTools"),
        request_timeout_ms=number(raw, "timeout"),
        description=text(raw, "description"),
    )


def _turned_off(root: Node, scope: Scope, where: Where) -> dict[str, str]:
    """Gemini's three switches, matched as it matches them (case aside): `mcp.excluded`, a `mcp.allowed` list
    that leaves the server out, and `gemini mcp disable` (`mcp-server-enablement.json` in the user's folder)."""
    document = as_object(root.value) or {}
    settings = as_object(document.get("mcp")) or {}
    excluded = {_folded(name) for name in as_list(settings.get("excluded")) or []}
    allowed = as_list(settings.get("allowed"))
    allowed_names = None if allowed is None else {_folded(name) for name in allowed}
    enablement = side_document(_user_folder(where) / ENABLEMENT_FILE)
    off: dict[str, str] = {}
    for name in as_object(document.get("mcpServers")) or {}:
        state = as_object(enablement.get(_folded(name))) or {}
        if _folded(name) in excluded:
            off[name] = "it is in mcp.excluded"
        elif allowed_names is not None and _folded(name) not in allowed_names:
            off[name] = "mcp.allowed leaves it out"
        elif state.get("enabled") is False:
            off[name] = f"`gemini mcp disable` turned it off, in {ENABLEMENT_FILE}"
    return off


def _folded(name: object) -> str:
    return str(name).strip().lower()


def _user_folder(where: Where) -> Path:
    return (env_path(where, "GEMINI_CLI_HOME") or where.home) / ".gemini"


def _allowed(root: Node, reading: ClientReading) -> list[ValueChange]:
    """In a `mcp.allowed` list, the gateway takes the place of the servers it now runs."""
    settings = as_object((as_object(root.value) or {}).get("mcp")) or {}
    allowed = as_list(settings.get("allowed"))
    if allowed is None:
        return []
    moved = {server.name for server in reading.imported}
    kept = [name for name in allowed if name not in moved and name != GATEWAY_NAME]
    return [ValueChange(ALLOWED, [GATEWAY_NAME, *kept])]


def _shape(launch: Launch) -> JsonObject:
    env = {**launch.env, **{name: f"${name}" for name in launch.needed}}
    return {"command": launch.command, "args": list(launch.args), "env": env}


CLIENT = JsonClient(
    name="gemini",
    title="Gemini CLI",
    gui=False,
    scopes=("user", "project"),
    locate=_locate,
    block=fixed_block("mcpServers"),
    read_entry=_read_entry,
    syntax=Syntax.SHELL,
    shape=_shape,
    turned_off=_turned_off,
    extra=_allowed,
    filters_environment=True,  # it hides variables that look secret from servers unless their entry names them
)
