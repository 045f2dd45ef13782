"""Codex CLI: `~/.codex/config.toml` (or `$CODEX_HOME`) and a project's `.codex/config.toml` →
`[mcp_servers.<name>]` tables, and the line-level TOML edit that rewrites them.

There is no type: `command` means stdio, `url` Streamable HTTP (Codex has no SSE). Codex names variables
instead of templating them: `env_vars = ["X"]` passes X through, `bearer_token_env_var = "X"` sends
`Authorization: Bearer $X`, `env_http_headers = {H = "X"}` sends header H from X; they become `${X}` references.
Codex starts servers with a whitelisted environment, so the gateway's entry lists the variables the imported
servers use in `env_vars`, and allows a slow first start (uvx may download). It also says `required = true`:
without it `codex exec` sends its first request before the gateway's tools have arrived (measured with Codex
0.171: `startup_readiness` does not make it wait).

A TOML round-trip library attaches the comment above a table to the table before it, so deleting one server
would delete the comment of the next. Codex configs are simple (tables of keys), so the file is cut into
statements and table headers here, tracking multi-line strings and arrays, and a table owns the comment lines
directly above its header. A removed server takes its header, its keys, its sub-tables
(`[mcp_servers.x.env]`) and its comments; dotted keys for a server outside its own table
(`mcp_servers.x.command = …`) are removed statement by statement; every other byte stays, and the result is
checked with `tomllib`.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcp_gateway.config import as_list, as_object
from mcp_gateway.importing.clients.entries import (
    MS_PER_SECOND,
    convert_entry,
    number,
    remote_entry,
    seed_fields,
    stdio_entry,
    string_map,
    strings,
    text,
)
from mcp_gateway.importing.clients.json_client import read_text
from mcp_gateway.importing.clients.jsonc import newline_of
from mcp_gateway.importing.clients.model import (
    GATEWAY_NAME,
    ClientConfigError,
    ClientFormat,
    ClientReading,
    JsonObject,
    Launch,
    Scope,
    Skip,
    Where,
)
from mcp_gateway.importing.clients.variables import Syntax

SERVERS = "mcp_servers"
STARTUP_TIMEOUT_SECONDS = 60
"""Codex waits 10 s for a server to start by default; a first `uvx` run downloads the gateway first."""


def _read_entry(raw: Mapping[str, object], warnings: list[str]) -> JsonObject:
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
        entry = stdio_entry(command, strings(raw, "args"), env, text(raw, "cwd"))
    return seed_fields(
        entry,
        include=strings(raw, "enabled_tools"),
        exclude=strings(raw, "disabled_tools"),
        connect_timeout_ms=number(raw, "startup_timeout_sec", MS_PER_SECOND) or number(raw, "startup_timeout_ms"),
        request_timeout_ms=number(raw, "tool_timeout_sec", MS_PER_SECOND),
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


@dataclass(frozen=True, kw_only=True)
class CodexClient(ClientFormat):
    def read(self, path: Path, scope: Scope, where: Where) -> ClientReading:
        text = read_text(path)
        entries = as_object(_parse(text, path).get(SERVERS, {}))
        if entries is None:
            raise ClientConfigError(f"{path}: '{SERVERS}' is not a table of servers")
        servers = tuple(
            convert_entry(n, raw, _read_entry, Syntax.NONE, client=self.title, where=where, scope=scope, turned_off={})
            for n, raw in entries.items()
        )
        return ClientReading(self.name, path, scope, text, (SERVERS,), servers)

    def gateway_values(self, launch: Launch) -> JsonObject:
        values: JsonObject = {"command": launch.command, "args": list(launch.args), "env": dict(launch.env)}
        if launch.needed:
            values["env_vars"] = list(launch.needed)
        return {**values, "startup_timeout_sec": STARTUP_TIMEOUT_SECONDS, "required": True}

    def render_entry(self, launch: Launch) -> str:
        return table_text((SERVERS, GATEWAY_NAME), self.gateway_values(launch), "\n").rstrip("\n")

    def rewrite(self, reading: ClientReading, launch: Launch) -> str:
        original = _parse(reading.text, reading.path)
        drop = {server.name for server in reading.servers if server.imported or server.itself}
        newline = newline_of(reading.text)
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
        servers = {k: v for k, v in (as_object(original.get(SERVERS)) or {}).items() if k not in drop}
        expected = {**original, SERVERS: {**servers, GATEWAY_NAME: self.gateway_values(launch)}}
        if _parse(new_text, reading.path) != expected:
            raise ClientConfigError(
                f"{reading.path}: the rewrite would change more than the MCP servers; nothing was written. "
                "Edit the file by hand"
            )
        return new_text


CODEX = CodexClient(
    name="codex",
    title="Codex CLI",
    gui=False,
    scopes=("user", "project"),
    locate=lambda where, scope: [
        (where.project / ".codex" if scope == "project" else where.env_path("CODEX_HOME") or where.home / ".codex")
        / "config.toml"
    ],
    filters_environment=True,
)


# The TOML edit.

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_KEY_PART = re.compile(r'\s*(?:"(?:[^"\\]|\\.)*"|\'[^\']*\'|[A-Za-z0-9_-]+)\s*')


class TomlLayoutError(ValueError):
    """A layout this editor does not handle (the caller says to edit the file by hand)."""


@dataclass(frozen=True)
class Block:
    """Lines `[start, end)`: a table header with its keys, or one statement outside any header."""

    start: int
    end: int
    path: tuple[str, ...]
    """The table's key path, or the statement's full key path (table path + dotted key)."""
    header: bool


def blocks(lines: Sequence[str]) -> list[Block]:
    """Every table (from its header to the next) and every top-level statement, in order."""
    found: list[Block] = []
    table: tuple[str, ...] = ()
    header_at: int | None = None
    index = 0
    while index < len(lines):
        line = lines[index].strip()
        if line.startswith("["):
            if header_at is not None:
                found.append(Block(header_at, index, table, header=True))
            inner = line.lstrip("[")
            table = _key_path(inner[: _scan(inner, "]")])
            header_at = index
            index += 1
            continue
        end = _statement_end(lines, index)
        if header_at is None and line and not line.startswith("#"):
            found.append(Block(index, end, _statement_path(line), header=False))
        index = end
    if header_at is not None:
        found.append(Block(header_at, len(lines), table, header=True))
    return found


def remove_servers(text: str, names: Collection[str], root: str = "mcp_servers") -> tuple[str, int | None]:
    """`text` without the servers in `names`, and the line where the first removed table was (or None)."""
    lines = text.splitlines(keepends=True)
    doomed: set[int] = set()
    first: int | None = None
    for block in blocks(lines):
        path = block.path
        owned = len(path) >= 2 and path[0] == root and path[1] in names
        if not owned:
            if block.header and path == (root,):
                doomed |= _dotted_statements(lines, block, names)
            continue
        start = _comment_start(lines, block.start) if block.header else block.start
        if first is None and block.header:
            first = start
        doomed.update(range(start, _trim_end(lines, block)))
    kept = [line for number, line in enumerate(lines) if number not in doomed]
    position = None if first is None else first - sum(1 for number in doomed if number < first)
    return "".join(kept), position


def table_text(path: Sequence[str], values: Mapping[str, object], newline: str) -> str:
    """`[a.b]` and `key = value` lines (strings, lists of strings, numbers, one-level inline tables)."""
    lines = ["[" + ".".join(_key(part) for part in path) + "]"]
    lines += [f"{_key(key)} = {_value(value)}" for key, value in values.items()]
    return newline.join(lines) + newline


def _key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON escapes are valid TOML basic-string escapes
    items = as_list(value)
    if items is not None:
        return "[" + ", ".join(_value(item) for item in items) + "]"
    table = as_object(value)
    if table is not None:
        pairs = ", ".join(f"{_key(key)} = {_value(item)}" for key, item in table.items())
        return "{ " + pairs + " }" if pairs else "{}"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def _statement_path(line: str) -> tuple[str, ...]:
    return _key_path(line[: _scan(line, "=")])


def _key_path(text: str) -> tuple[str, ...]:
    parts: list[str] = []
    position = 0
    while position < len(text):
        match = _KEY_PART.match(text, position)
        if match is None:
            raise TomlLayoutError(f"cannot read the key {text.strip()!r}")
        token = match.group().strip()
        parts.append(json.loads(token) if token.startswith('"') else token.strip("'"))
        position = match.end()
        if position < len(text):
            if text[position] != ".":
                raise TomlLayoutError(f"cannot read the key {text.strip()!r}")
            position += 1
    return tuple(parts)


def _scan(text: str, stop: str) -> int:
    """The index of `stop` outside quoted strings (or len(text))."""
    position = 0
    while position < len(text):
        char = text[position]
        if char == stop:
            return position
        position = _string_end(text, position) if char in "\"'" else position + 1
    return position


def _escaped(text: str, index: int) -> bool:
    backslashes = 0
    while index - 1 - backslashes >= 0 and text[index - 1 - backslashes] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def _statement_end(lines: Sequence[str], start: int) -> int:
    """The line after a statement that may continue over several lines (arrays, multi-line strings)."""
    depth = 0
    quote: str | None = None
    index = start
    while index < len(lines):
        line = lines[index]
        position = 0
        while position < len(line):
            if quote is not None:
                end = line.find(quote, position)
                while end >= 0 and quote == '"""' and _escaped(line, end):
                    end = line.find(quote, end + 1)
                if end < 0:
                    break
                position, quote = end + len(quote), None
                continue
            char = line[position]
            if char == "#":
                break
            if line.startswith(('"""', "'''"), position):
                quote = line[position : position + 3]
                position += 3
            elif char in "\"'":
                position = _string_end(line, position)
            else:
                depth += char in "[{"
                depth -= char in "]}"
                position += 1
        index += 1
        if quote is None and depth <= 0:
            return index
    return index


def _string_end(line: str, start: int) -> int:
    char = line[start]
    end = line.find(char, start + 1)
    while char == '"' and end > 0 and _escaped(line, end):
        end = line.find(char, end + 1)
    return len(line) if end < 0 else end + 1


def _comment_start(lines: Sequence[str], header: int) -> int:
    """The first of the comment lines directly above a header: they describe that table."""
    start = header
    while start > 0 and lines[start - 1].lstrip().startswith("#"):
        start -= 1
    return start


def _trim_end(lines: Sequence[str], block: Block) -> int:
    """A table's end without the comment lines that introduce the next table (those belong to it)."""
    end = block.end
    if end < len(lines):
        end = _comment_start(lines, end)
    return max(end, block.start + 1)


def _dotted_statements(lines: Sequence[str], table: Block, names: Collection[str]) -> set[int]:
    """In `[mcp_servers]`, the lines of `name = {…}` and `name.key = …` statements of removed servers."""
    doomed: set[int] = set()
    index = table.start + 1
    while index < table.end:
        end = _statement_end(lines, index)
        line = lines[index].strip()
        if line and not line.startswith("#") and _statement_path(line)[0] in names:
            doomed.update(range(index, end))
        index = end
    return doomed
