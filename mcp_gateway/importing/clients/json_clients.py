"""The clients that keep their servers in JSON: Claude Code, Claude Desktop, the editors (Cursor, VS Code,
Windsurf, Roo Code, Cline, Zed) and the command-line agents OpenCode, Gemini CLI and epoch-agent (Codex keeps
TOML: `codex`). Each is one `JsonClient` value.

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

The editors are GUI apps, which do not inherit the shell's PATH, so the gateway command is absolute. The VS Code
family shares `${env:VAR}`, `${userHome}`, `${workspaceFolder}`; an `envFile` (variables loaded from a file) has
no gateway equivalent and is skipped. Cline and Zed have no variable syntax.

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
    ENV_FILE,
    MS_PER_SECOND,
    number,
    plain_launch,
    program_name,
    read_oauth,
    read_standard,
    remote_entry,
    seed_fields,
    standard,
    stdio_entry,
    stdio_launch,
    string_map,
    strings,
    text,
    with_oauth,
)
from mcp_gateway.importing.clients.json_client import JsonClient, ValueChange, side_document
from mcp_gateway.importing.clients.jsonc import Node
from mcp_gateway.importing.clients.model import GATEWAY_NAME, ClientReading, JsonObject, Scope, Skip, Where
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
    shape=lambda launch: {
        "source": "custom",
        "enabled": True,
        **plain_launch(launch),
    },  # legacy: old and new Zed take it
)


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
    shape=lambda launch: {**plain_launch(launch), "env": {**launch.env, **{n: f"${n}" for n in launch.needed}}},
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
