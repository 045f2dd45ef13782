"""Claude Desktop: `claude_desktop_config.json` → `mcpServers` (stdio only: `command`, `args`, `env`).

Remote servers are added in the app's UI and are not in the file; in the file they appear wrapped in the
`mcp-remote` bridge (`npx -y mcp-remote <url> --header "Authorization: Bearer …"`). Such an entry with
headers is imported as a native remote server, so the gateway connects directly; without headers the
bridge probably signs in with OAuth, so it stays a stdio server the gateway starts as it is. Servers
installed as Desktop Extensions live elsewhere and cannot be imported. Windows builds since 2026 are
MSIX packages that read a virtualised copy under `%LOCALAPPDATA%\\Packages\\Claude_*`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath

from mcp_gateway.config.jsonfile import as_list, as_object
from mcp_gateway.importing.clients.client import EntryContext
from mcp_gateway.importing.clients.entries import read_standard, remote_entry
from mcp_gateway.importing.clients.json_client import JsonClient, fixed_block
from mcp_gateway.importing.clients.locate import app_support, config_home, local_app_data
from mcp_gateway.importing.clients.model import JsonObject, Scope, Where
from mcp_gateway.importing.clients.variables import Syntax
from mcp_gateway.importing.launch import plain_stdio_entry

FILE_NAME = "claude_desktop_config.json"
_RUNNERS = frozenset({"npx", "bunx", "pnpx"})
_REFERENCE = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}")
_TRANSPORTS = {"sse-only": "sse", "sse-first": "sse", "http-only": "http", "http-first": "http"}


def _locate(where: Where, scope: Scope) -> list[Path]:
    if where.windows:
        packages = local_app_data(where) / "Packages"
        msix = sorted(packages.glob("Claude_*")) if packages.is_dir() else []
        virtual = [package / "LocalCache" / "Roaming" / "Claude" / FILE_NAME for package in msix]
        return [*virtual, app_support(where, "Claude") / FILE_NAME]
    if where.macos:
        return [app_support(where, "Claude") / FILE_NAME]
    return [config_home(where) / "Claude" / FILE_NAME, config_home(where) / "claude" / FILE_NAME]


def _read_entry(name: str, raw: Mapping[str, object], context: EntryContext) -> JsonObject:
    entry = read_standard(raw)
    remote = unwrap_mcp_remote(entry)
    if remote is None:
        return entry
    context.warnings.append("it ran through the mcp-remote bridge; the gateway connects to the URL directly")
    return remote


def unwrap_mcp_remote(entry: Mapping[str, object]) -> JsonObject | None:
    """`npx -y mcp-remote URL --header "K: V"` as a native remote entry, or None when unsure."""
    command = entry.get("command")
    args = _bridge_args(command, [str(arg) for arg in as_list(entry.get("args")) or []])
    if not isinstance(command, str) or args is None or not args or not re.match(r"https?://", args[0]):
        return None
    env = {key: str(value) for key, value in (as_object(entry.get("env")) or {}).items()}
    options = _bridge_options(args[1:], env)
    if options is None:
        return None
    kind, headers = options
    if not headers:
        return None  # no credentials given: the bridge signs in with OAuth, which only it can do
    return remote_entry(kind, args[0], headers)


def _bridge_args(command: object, args: list[str]) -> list[str] | None:
    """The arguments after `mcp-remote` (run directly or through npx/bunx), or None for another program."""
    if not isinstance(command, str):
        return None
    program = (PureWindowsPath(command) if "\\" in command else PurePosixPath(command)).name.lower()
    program = program.removesuffix(".cmd").removesuffix(".exe")
    if program == "mcp-remote":
        return args
    if program not in _RUNNERS:
        return None
    while args and args[0] in ("-y", "--yes"):
        args = args[1:]
    if not args or not re.fullmatch(r"mcp-remote(@[\w.\-^~]+)?", args[0]):
        return None
    return args[1:]


def _bridge_options(rest: list[str], env: Mapping[str, str]) -> tuple[str, dict[str, str]] | None:
    """The transport and headers from `--transport` and `--header` flags; None for any other flag."""
    headers: dict[str, str] = {}
    kind = "http"
    while rest:
        flag = rest[0]
        if len(rest) < 2 or flag not in ("--header", "--transport"):
            return None  # a flag we do not know: keep the bridge, which still works behind the gateway
        value, rest = rest[1], rest[2:]
        if flag == "--transport":
            if value not in _TRANSPORTS:
                return None
            kind = _TRANSPORTS[value]
            continue
        header, colon, content = value.partition(":")
        if not colon:
            return None
        # mcp-remote's documented trick: the header names ${VAR} and the entry's env holds the value.
        headers[header.strip()] = _REFERENCE.sub(lambda m: env.get(m.group("name"), m.group()), content.strip())
    return kind, headers


CLIENT = JsonClient(
    name="claude-desktop",
    title="Claude Desktop",
    gui=True,
    scopes=("user",),
    locate=_locate,
    block=fixed_block("mcpServers"),
    read_entry=_read_entry,
    syntax=Syntax.NONE,
    shape=plain_stdio_entry,
)
