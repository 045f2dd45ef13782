"""Codex CLI: `~/.codex/config.toml` (or `$CODEX_HOME`) and a project's `.codex/config.toml` →
`[mcp_servers.<name>]` tables.

There is no type: `command` means stdio, `url` Streamable HTTP (Codex has no SSE). Codex names
variables instead of templating them: `env_vars = ["X"]` passes X through, `bearer_token_env_var = "X"`
sends `Authorization: Bearer $X`, `env_http_headers = {H = "X"}` sends header H from X. They become
`${X}` references. Codex starts servers with a whitelisted environment, so the gateway's entry lists
the variables the imported servers use in `env_vars`, and allows a slow first start (uvx may download).
It also says `required = true`: without it `codex exec` sends its first request before the gateway's
tools have arrived (measured with Codex 0.171: `startup_readiness` does not make it wait).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mcp_gateway.config.jsonfile import as_list, as_object
from mcp_gateway.importing.clients.client import EntryContext, Launch, convert_entry
from mcp_gateway.importing.clients.entries import (
    number,
    remote_entry,
    seed_fields,
    stdio_entry,
    string_map,
    strings,
    text,
)
from mcp_gateway.importing.clients.json_client import read_text
from mcp_gateway.importing.clients.locate import env_path
from mcp_gateway.importing.clients.model import (
    GATEWAY_NAME,
    ClientConfigError,
    ClientReading,
    JsonObject,
    Scope,
    Skip,
    Where,
)
from mcp_gateway.importing.clients.toml_edit import TomlLayoutError, remove_servers, table_text
from mcp_gateway.importing.clients.variables import Syntax

SERVERS = "mcp_servers"
STARTUP_TIMEOUT_SECONDS = 60
"""Codex waits 10 s for a server to start by default; a first `uvx` run downloads the gateway first."""
MS_PER_SECOND = 1000


def _locate(where: Where, scope: Scope) -> list[Path]:
    if scope == "project":
        return [where.project / ".codex" / "config.toml"]
    return [(env_path(where, "CODEX_HOME") or where.home / ".codex") / "config.toml"]


def _read_entry(name: str, raw: Mapping[str, object], context: EntryContext) -> JsonObject:
    url = text(raw, "url")
    if url is not None:
        headers = string_map(raw, "http_headers") or {}
        for header, variable in (string_map(raw, "env_http_headers") or {}).items():
            headers[header] = "${" + variable + "}"
        bearer = text(raw, "bearer_token_env_var")
        inline = text(raw, "bearer_token")
        if bearer or inline:
            headers["Authorization"] = f"Bearer ${{{bearer}}}" if bearer else f"Bearer {inline}"
        elif not headers and (raw.get("scopes") is not None or raw.get("oauth_resource") is not None):
            raise Skip("it signs in with OAuth, and the gateway cannot reuse Codex's sign-in")
        entry = remote_entry("http", url, headers)
    else:
        command = text(raw, "command")
        if not command:
            raise Skip("it has neither a 'command' to start nor a 'url' to connect to")
        env = string_map(raw, "env") or {}
        for variable in _env_var_names(raw.get("env_vars")):
            env.setdefault(variable, "${" + variable + "}")
        entry = stdio_entry(command, strings(raw, "args"), env)
        cwd = text(raw, "cwd")
        if cwd:
            entry["cwd"] = cwd
    startup = number(raw, "startup_timeout_sec")
    startup_ms = startup * MS_PER_SECOND if startup else number(raw, "startup_timeout_ms")
    tool = number(raw, "tool_timeout_sec")
    return seed_fields(
        entry,
        include=strings(raw, "enabled_tools"),
        exclude=strings(raw, "disabled_tools"),
        connect_timeout_ms=startup_ms,
        request_timeout_ms=tool * MS_PER_SECOND if tool else None,
    )


def _env_var_names(value: object) -> list[str]:
    names: list[str] = []
    for item in as_list(value) or []:
        name = item if isinstance(item, str) else (as_object(item) or {}).get("name")
        if not isinstance(name, str):
            raise Skip("'env_vars' is not a list of names")
        names.append(name)
    return names


def _parse(text: str, path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ClientConfigError(f"{path}: not valid TOML: {exc}") from exc


@dataclass(frozen=True)
class CodexClient:
    name: str = "codex"
    title: str = "Codex CLI"
    gui: bool = False
    scopes: tuple[Scope, ...] = ("user", "project")
    filters_environment: bool = True

    def candidates(self, where: Where, scope: Scope) -> list[Path]:
        return _locate(where, scope)

    def read(self, path: Path, scope: Scope, where: Where) -> ClientReading:
        text = read_text(path)
        document = _parse(text, path)
        entries = as_object(document.get(SERVERS, {}))
        if entries is None:
            raise ClientConfigError(f"{path}: '{SERVERS}' is not a table of servers")
        context = EntryContext(self.title, where, scope, document)
        servers = tuple(convert_entry(n, raw, _read_entry, Syntax.NONE, context) for n, raw in entries.items())
        return ClientReading(self.name, path, scope, text, (SERVERS,), servers)

    def gateway_values(self, launch: Launch) -> JsonObject:
        values: JsonObject = {"command": launch.command, "args": list(launch.args), "env": dict(launch.env)}
        if launch.needed:
            values["env_vars"] = list(launch.needed)
        values["startup_timeout_sec"] = STARTUP_TIMEOUT_SECONDS
        values["required"] = True
        return values

    def render_entry(self, launch: Launch) -> str:
        return table_text((SERVERS, GATEWAY_NAME), self.gateway_values(launch), "\n").rstrip("\n")

    def rewrite(self, reading: ClientReading, launch: Launch) -> str:
        original = _parse(reading.text, reading.path)
        drop = {server.name for server in reading.servers if server.imported or server.itself}
        newline = "\r\n" if "\r\n" in reading.text else "\n"
        try:
            text, position = remove_servers(reading.text, drop, SERVERS)
        except TomlLayoutError as exc:
            raise ClientConfigError(f"{reading.path}: {exc}; edit the file by hand") from exc
        table = table_text((SERVERS, GATEWAY_NAME), self.gateway_values(launch), newline)
        lines = text.splitlines(keepends=True)
        if position is None:
            position = len(lines)
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += newline
        if position > 0 and lines[position - 1].strip():
            table = newline + table
        if position < len(lines) and lines[position].strip():
            table += newline
        new_text = "".join(lines[:position]) + table + "".join(lines[position:])
        expected = dict(original)
        servers = {k: v for k, v in (as_object(original.get(SERVERS)) or {}).items() if k not in drop}
        expected[SERVERS] = {**servers, GATEWAY_NAME: self.gateway_values(launch)}
        if _parse(new_text, reading.path) != expected:
            raise ClientConfigError(
                f"{reading.path}: the rewrite would change more than the MCP servers; nothing was written. "
                "Edit the file by hand"
            )
        return new_text


CLIENT = CodexClient()
