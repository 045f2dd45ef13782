"""Claude Code and Claude Desktop.

Claude Code: `~/.claude.json` (user scope at the root, local scopes under `projects."<dir>"`) and a project's
`.mcp.json` (project scope). Entries have `type` (`stdio`, `http`, `sse`) and use `${VAR}` / `${VAR:-default}`,
the gateway's own syntax. `~/.claude.json` is a large state file Claude Code rewrites while it runs; only the
chosen scope's `mcpServers` object is edited. Local scopes are keyed by the absolute project path, which Windows
spells with either slash and any case. Claude Code has no per-entry switch: its /mcp menu turns a server off per
project (`disabledMcpServers`), and a person declines a `.mcp.json` server (`disabledMcpjsonServers`). Such a
server is imported disabled; once it has moved into the gateway, the switches naming it go, unless a server of
that name is still there for that project. The gateway's entry says `"alwaysLoad": true`: without it Claude Code
does not wait for a server at start, and a first turn sent while the gateway is still starting goes to the
model without its tools (seen in about one `claude -p` run in three on a busy machine).

Claude Desktop: `claude_desktop_config.json` → `mcpServers`, stdio only. Remote servers are added in the app's
UI; in the file they appear wrapped in the `mcp-remote` bridge (`npx -y mcp-remote <url> --header "…"`). Such an
entry with headers is imported as a native remote server; without headers the bridge probably signs in with
OAuth, so it stays a stdio server the gateway starts as it is. Windows builds since 2026 are MSIX packages that
read a virtualised copy under `%LOCALAPPDATA%\\Packages\\Claude_*`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from mcp_gateway.config import as_list, as_object
from mcp_gateway.importing.clients.entries import (
    plain_launch,
    program_name,
    read_standard,
    remote_entry,
    standard,
    stdio_launch,
)
from mcp_gateway.importing.clients.json_client import (
    JsonClient,
    ValueChange,
    side_document,
)
from mcp_gateway.importing.clients.jsonc import Node
from mcp_gateway.importing.clients.model import ClientReading, JsonObject, Scope, Where
from mcp_gateway.importing.clients.variables import Syntax

STATE_FILE_NAME = ".claude.json"
SERVERS = "mcpServers"
PROJECTS = "projects"
DISABLED = "disabledMcpServers"
"""Per project in `~/.claude.json`: the servers Claude Code's /mcp menu turned off there, of any scope."""
DECLINED = "disabledMcpjsonServers"
"""Per project (in `~/.claude.json` or a settings file): the `.mcp.json` servers a person declined to run."""
HEADERS_HELPER = "its headers come from a helper command ('headersHelper'), which the gateway cannot run"
DESKTOP_FILE = "claude_desktop_config.json"
_RUNNERS = frozenset({"npx", "bunx", "pnpx"})
_REFERENCE = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}")
_BRIDGE_TRANSPORTS = {"sse-only": "sse", "sse-first": "sse", "http-only": "http", "http-first": "http"}


def state_file(where: Where) -> Path:
    return (where.env_path("CLAUDE_CONFIG_DIR") or where.home) / STATE_FILE_NAME


def project_key(document: Mapping[str, object], where: Where) -> str:
    """The key of `where.project` under `projects` (as Claude Code wrote it), else the plain path."""
    wanted = [str(where.project), str(where.project.resolve())]
    for key in as_object(document.get(PROJECTS)) or {}:
        if key in wanted or (where.windows and _windows_form(key) in {_windows_form(w) for w in wanted}):
            return key
    return wanted[0]


def _windows_form(path: str) -> str:
    return path.replace("/", "\\").rstrip("\\").casefold()


def _block(root: Node, path: Path, scope: Scope, where: Where) -> tuple[str, ...]:
    if scope == "local":
        return (PROJECTS, project_key(as_object(root.value) or {}, where), SERVERS)
    return (SERVERS,)


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
    """`disabledMcpServers` of a project (for a server of any scope) and, for `.mcp.json`,
    `disabledMcpjsonServers` (in `~/.claude.json` or a settings file). The gateway has one switch for every
    project, so a user-scope server turned off in any project is imported off."""
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
        local, shared = where.project / ".claude", where.home / ".claude"
        for settings in (local / "settings.local.json", local / "settings.json", shared / "settings.json"):
            places.append((f"{DECLINED} in {settings}", side_document(settings).get(DECLINED)))
    off: dict[str, list[str]] = {}
    for place, names in places:
        for name in as_list(names) or []:
            if isinstance(name, str):
                off.setdefault(name, []).append(place)
    return {name: "; ".join(found) for name, found in off.items()}


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


def _desktop_files(where: Where, scope: Scope) -> list[Path]:
    if where.windows:
        packages = where.app_data("LOCALAPPDATA", "Local") / "Packages"
        msix = sorted(packages.glob("Claude_*")) if packages.is_dir() else []
        virtual = [package / "LocalCache" / "Roaming" / "Claude" / DESKTOP_FILE for package in msix]
        return [*virtual, where.app_support("Claude") / DESKTOP_FILE]
    if where.macos:
        return [where.app_support("Claude") / DESKTOP_FILE]
    return [where.config_home() / "Claude" / DESKTOP_FILE, where.config_home() / "claude" / DESKTOP_FILE]


def _desktop_entry(raw: Mapping[str, object], warnings: list[str]) -> JsonObject:
    entry = read_standard(raw)
    remote = unwrap_mcp_remote(entry)
    if remote is not None:
        warnings.append("it ran through the mcp-remote bridge; the gateway connects to the URL directly")
    return remote or entry


def unwrap_mcp_remote(entry: Mapping[str, object]) -> JsonObject | None:
    """`npx -y mcp-remote URL --header "K: V"` as a native remote entry, or None when unsure."""
    args = _bridge_args(entry)
    if not args or not re.match(r"https?://", args[0]):
        return None
    env = {key: str(value) for key, value in (as_object(entry.get("env")) or {}).items()}
    headers: dict[str, str] = {}
    kind = "http"
    rest = args[1:]
    while rest:
        flag = rest[0]
        if len(rest) < 2 or flag not in ("--header", "--transport"):
            return None  # a flag we do not know: keep the bridge, which still works behind the gateway
        value, rest = rest[1], rest[2:]
        if flag == "--transport":
            if value not in _BRIDGE_TRANSPORTS:
                return None
            kind = _BRIDGE_TRANSPORTS[value]
            continue
        header, colon, content = value.partition(":")
        if not colon:
            return None
        # mcp-remote's documented trick: the header names ${VAR} and the entry's env holds the value.
        headers[header.strip()] = _REFERENCE.sub(lambda m: env.get(m.group("name"), m.group()), content.strip())
    if not headers:
        return None  # no credentials given: the bridge signs in with OAuth, which only it can do
    return remote_entry(kind, args[0], headers)


def _bridge_args(entry: Mapping[str, object]) -> list[str] | None:
    """The arguments after `mcp-remote` (run directly or through npx/bunx), or None for another program."""
    command = entry.get("command")
    args = [str(arg) for arg in as_list(entry.get("args")) or []]
    program = program_name(command) if isinstance(command, str) else None
    if program == "mcp-remote":
        return args
    if program not in _RUNNERS:
        return None
    while args and args[0] in ("-y", "--yes"):
        args = args[1:]
    return args[1:] if args and re.fullmatch(r"mcp-remote(@[\w.\-^~]+)?", args[0]) else None


CLAUDE_CODE = JsonClient(
    name="claude-code",
    title="Claude Code",
    gui=False,
    scopes=("user", "local", "project"),
    locate=lambda where, scope: [where.project / ".mcp.json"] if scope == "project" else [state_file(where)],
    block=_block,
    read_entry=standard(refused={"headersHelper": HEADERS_HELPER}),
    syntax=Syntax.GATEWAY,
    shape=lambda launch: {**stdio_launch(launch), "alwaysLoad": True},
    notes=_notes,
    turned_off=_turned_off,
    extra=_forget_moved,
)
CLAUDE_DESKTOP = JsonClient(
    name="claude-desktop",
    title="Claude Desktop",
    gui=True,
    scopes=("user",),
    locate=_desktop_files,
    read_entry=_desktop_entry,
    syntax=Syntax.NONE,
    shape=plain_launch,
)
