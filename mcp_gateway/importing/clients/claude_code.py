"""Claude Code: `~/.claude.json` (user scope at the root, local scopes under `projects."<dir>"`) and a
project's `.mcp.json` (project scope).

Entries have `type` (`stdio`, `http`, `sse`), `command`/`args`/`env` or `url`/`headers`, and use
`${VAR}` / `${VAR:-default}`, the gateway's own syntax. `~/.claude.json` is a large state file Claude
Code rewrites while it runs; only the chosen scope's `mcpServers` object is edited. Local scopes are keyed
by the absolute project path, which Windows spells with either slash and any case.

Claude Code has no per-entry switch: its /mcp menu turns a server off per project (`disabledMcpServers`), and
a person declines a `.mcp.json` server (`disabledMcpjsonServers`). Such a server is imported disabled, as is one
whose entry says `"disabled": true`; once a server has moved into the gateway, the switches naming it go, unless
a server of that name is still there for that project.

The gateway's entry says `"alwaysLoad": true`: without it Claude Code does not wait for a server at start,
and a first turn sent while the gateway is still starting goes to the model without its tools (seen in about
one `claude -p` run in three on a busy machine).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mcp_gateway.config.jsonfile import as_list, as_object
from mcp_gateway.importing.clients.client import EntryContext, Launch
from mcp_gateway.importing.clients.entries import read_standard
from mcp_gateway.importing.clients.json_client import JsonClient, ValueChange, side_document
from mcp_gateway.importing.clients.jsonc import Node
from mcp_gateway.importing.clients.locate import env_path
from mcp_gateway.importing.clients.model import ClientReading, JsonObject, Scope, Skip, Where
from mcp_gateway.importing.clients.oauth_block import read_oauth
from mcp_gateway.importing.clients.variables import Syntax
from mcp_gateway.importing.launch import stdio_entry

STATE_FILE_NAME = ".claude.json"
SERVERS = "mcpServers"
PROJECTS = "projects"
DISABLED = "disabledMcpServers"
"""Per project in `~/.claude.json`: the servers Claude Code's /mcp menu turned off there, of any scope."""
DECLINED = "disabledMcpjsonServers"
"""Per project (in `~/.claude.json` or a settings file): the `.mcp.json` servers a person declined to run."""


def state_file(where: Where) -> Path:
    directory = env_path(where, "CLAUDE_CONFIG_DIR") or where.home
    return directory / STATE_FILE_NAME


def _locate(where: Where, scope: Scope) -> list[Path]:
    return [where.project / ".mcp.json"] if scope == "project" else [state_file(where)]


def project_key(document: Mapping[str, object], where: Where) -> str:
    """The key of `where.project` under `projects` (as Claude Code wrote it), else the plain path."""
    wanted = [str(where.project), str(where.project.resolve())]
    projects = as_object(document.get(PROJECTS)) or {}
    for key in projects:
        if key in wanted or (where.windows and _windows_form(key) in {_windows_form(w) for w in wanted}):
            return key
    return wanted[0]


def _windows_form(path: str) -> str:
    return path.replace("/", "\\").rstrip("\\").casefold()


def _block(root: Node, path: Path, scope: Scope, where: Where) -> tuple[str, ...]:
    if scope == "local":
        return (PROJECTS, project_key(as_object(root.value) or {}, where), SERVERS)
    return (SERVERS,)


ALWAYS_LOAD = "alwaysLoad"


def gateway_entry(launch: Launch) -> JsonObject:
    """The gateway's entry: a stdio entry that Claude Code waits for before the first turn."""
    return {**stdio_entry(launch), ALWAYS_LOAD: True}


def _read_entry(name: str, raw: Mapping[str, object], context: EntryContext) -> JsonObject:
    if raw.get("headersHelper") is not None:
        raise Skip("its headers come from a helper command ('headersHelper'), which the gateway cannot run")
    context.oauth = read_oauth(raw.get("oauth"))
    return read_standard(raw)


def _notes(root: Node, scope: Scope, where: Where) -> list[str]:
    """Other scopes of `~/.claude.json` that hold servers, with the command that imports them."""
    if scope == "project":
        return []
    document = as_object(root.value) or {}
    notes = [f"Claude Code rewrites {STATE_FILE_NAME} while it runs: quit it before --write-client-config"]
    if scope == "local" and as_object(document.get(SERVERS)):
        notes.append("the user scope has servers too: import them with --scope user")
    current = project_key(document, where) if scope == "local" else None
    for key, project in (as_object(document.get(PROJECTS)) or {}).items():
        servers = as_object((as_object(project) or {}).get(SERVERS)) or {}
        if servers and key != current:
            count = f"{len(servers)} server{'s' if len(servers) != 1 else ''}"
            notes.append(f"{count} in the local scope of {key}: import with --scope local --project {key}")
    return notes


def _turned_off(root: Node, scope: Scope, where: Where) -> dict[str, str]:
    """What Claude Code keeps off, by scope: `disabledMcpServers` of a project (its /mcp menu's switch, for a
    server of any scope) and, for `.mcp.json`, `disabledMcpjsonServers` (the servers a person declined, in
    `~/.claude.json` or a settings file). The gateway has one switch for every project, so a user-scope server
    turned off in any project is imported off."""
    state = side_document(state_file(where)) if scope == "project" else as_object(root.value) or {}
    projects = {key: as_object(value) or {} for key, value in (as_object(state.get(PROJECTS)) or {}).items()}
    here = project_key(state, where)
    places: list[tuple[str, object]] = [
        (f"{DISABLED} of {key}", project.get(DISABLED))
        for key, project in projects.items()
        if scope == "user" or key == here
    ]
    if scope == "project":
        places.append((f"{DECLINED} of {here}", projects.get(here, {}).get(DECLINED)))
        for settings in _settings_files(where):
            places.append((f"{DECLINED} in {settings}", side_document(settings).get(DECLINED)))
    off: dict[str, list[str]] = {}
    for place, names in places:
        for name in as_list(names) or []:
            if isinstance(name, str):
                off.setdefault(name, []).append(place)
    return {name: "; ".join(found) for name, found in off.items()}


def _settings_files(where: Where) -> list[Path]:
    """Claude Code's settings files that may decline a project's `.mcp.json` servers."""
    project = where.project / ".claude"
    return [project / "settings.local.json", project / "settings.json", where.home / ".claude" / "settings.json"]


def _forget_moved(root: Node, reading: ClientReading) -> list[ValueChange]:
    """Each `disabledMcpServers` list loses the servers moved into the gateway (which keeps them off itself), unless
    a server of that name is still there for that project. `.mcp.json`'s lists are in other files: left as they are."""
    if reading.scope == "project":
        return []
    document = as_object(root.value) or {}
    moved = {server.name for server in reading.imported}
    staying = {server.name for server in reading.servers if not server.imported}
    user = staying if reading.scope == "user" else set(as_object(document.get(SERVERS)) or {})
    changes: list[ValueChange] = []
    for key, value in (as_object(document.get(PROJECTS)) or {}).items():
        project = as_object(value) or {}
        listed = as_list(project.get(DISABLED))
        if listed is None or (reading.scope == "local" and key != reading.block[1]):
            continue
        local = staying if reading.scope == "local" else set(as_object(project.get(SERVERS)) or {})
        kept = [name for name in listed if name not in moved or name in user | local]
        if kept != listed:
            changes.append(ValueChange((PROJECTS, key, DISABLED), kept))
    return changes


CLIENT = JsonClient(
    name="claude-code",
    title="Claude Code",
    gui=False,
    scopes=("user", "local", "project"),
    locate=_locate,
    block=_block,
    read_entry=_read_entry,
    syntax=Syntax.GATEWAY,
    shape=gateway_entry,
    notes=_notes,
    turned_off=_turned_off,
    extra=_forget_moved,
)
