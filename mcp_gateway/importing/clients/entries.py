"""Building gateway entries from client entries: typed field access, transports, and the final check.

Client entries are untrusted JSON: a field of the wrong type makes that one entry skipped with a reason
(`Skip`), never the whole import. Most clients share Claude's shape (`command`/`args`/`env` or
`url`/`headers`, an optional `type`), so `read_standard` reads it with the per-client differences as
parameters: which keys may hold the URL, and what a `url` without a type means (SSE for Cline and Roo,
Streamable HTTP elsewhere; reference §0.5). `check_entry` validates the result with the gateway's own
models, so an entry the gateway would reject is skipped here and stays working in the client.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pydantic import ValidationError

from mcp_gateway.config.jsonfile import as_list, as_object
from mcp_gateway.config.transport import SERVER_MODELS
from mcp_gateway.importing.clients.model import JsonObject, Skip

_TRANSPORTS = {
    "stdio": "stdio",
    "local": "stdio",
    "http": "http",
    "streamablehttp": "http",
    "streamable": "http",
    "sse": "sse",
}
_REFERENCE = re.compile(r"\$\{[^}]*\}")
PLACEHOLDER_URL = "http://placeholder.invalid"


def entry_object(raw: object) -> Mapping[str, object]:
    entry = as_object(raw)
    if entry is None:
        raise Skip("the entry is not an object")
    return entry


def text(raw: Mapping[str, object], key: str) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise Skip(f"'{key}' is not a string")
    return value


def strings(raw: Mapping[str, object], key: str) -> list[str] | None:
    value = raw.get(key)
    if value is None:
        return None
    items = as_list(value)
    if items is None or not all(isinstance(item, str) for item in items):
        raise Skip(f"'{key}' is not a list of strings")
    return [str(item) for item in items]


def string_map(raw: Mapping[str, object], key: str) -> dict[str, str] | None:
    value = raw.get(key)
    if value is None:
        return None
    pairs = as_object(value)
    if pairs is None:
        raise Skip(f"'{key}' is not an object")
    result: dict[str, str] = {}
    for name, item in pairs.items():
        if isinstance(item, bool) or not isinstance(item, str | int | float):
            raise Skip(f"'{key}.{name}' is not a string")
        result[name] = item if isinstance(item, str) else str(item)
    return result


def number(raw: Mapping[str, object], key: str) -> float | None:
    value = raw.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def transport(value: str) -> str:
    """The gateway transport for a client's spelling (`streamable-http`, `streamableHttp`, `local`, …).

    Raises:
        Skip: an unknown transport (a websocket, a unix socket, a future type).
    """
    folded = value.replace("-", "").replace("_", "").casefold()
    if folded not in _TRANSPORTS:
        raise Skip(f"its type '{value}' is not one the gateway can run (stdio, http or sse)")
    return _TRANSPORTS[folded]


def stdio_entry(command: str, args: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> JsonObject:
    entry: JsonObject = {"type": "stdio", "command": command}
    if args:
        entry["args"] = list(args)
    if env:
        entry["env"] = dict(env)
    return entry


def remote_entry(kind: str, url: str, headers: Mapping[str, str] | None = None) -> JsonObject:
    entry: JsonObject = {"type": kind, "url": url}
    if headers:
        entry["headers"] = dict(headers)
    return entry


def read_standard(
    raw: Mapping[str, object],
    *,
    url_default: str = "http",
    url_keys: Sequence[str] = ("url",),
    type_keys: Sequence[str] = ("type",),
) -> JsonObject:
    """Claude's shape: `command`/`args`/`env`/`cwd` or `url`/`headers`, with an optional type.

    `url_default` is the transport of a `url` without a type in this client.
    """
    declared = next((text(raw, key) for key in type_keys if raw.get(key) is not None), None)
    url = next((text(raw, key) for key in url_keys if raw.get(key) is not None), None)
    command = text(raw, "command")
    kind = transport(declared) if declared else ("stdio" if command is not None else url_default)
    if kind == "stdio":
        if not command:
            raise Skip("it has no 'command' to start")
        entry = stdio_entry(command, strings(raw, "args"), string_map(raw, "env"))
        cwd = text(raw, "cwd")
        if cwd:
            entry["cwd"] = cwd
        return entry
    if not url:
        raise Skip("it has neither a 'command' to start nor a 'url' to connect to")
    return remote_entry(kind, url, string_map(raw, "headers"))


def switched_off(raw: Mapping[str, object]) -> str | None:
    """How an entry says its client keeps it but does not start it, or None: `"disabled": true` (Claude's shape,
    Cline, Roo, Windsurf, Kiro; written by hand in Cursor, VS Code and Claude Desktop files too) or `"enabled":
    false` (OpenCode, Codex, Zed, Goose). Either way it is imported disabled: the gateway never starts it either."""
    if raw.get("disabled") is True:
        return 'its entry says "disabled": true'
    if raw.get("enabled") is False:
        return 'its entry says "enabled": false'
    return None


def seed_fields(
    entry: JsonObject,
    *,
    exclude: Sequence[str] | None = None,
    include: Sequence[str] | None = None,
    request_timeout_ms: float | None = None,
    connect_timeout_ms: float | None = None,
    description: str | None = None,
) -> JsonObject:
    """Gateway-side fields worth carrying over for a new server (never overwritten on re-import)."""
    if include:
        entry["includeTools"] = list(include)
    if exclude:
        entry["excludeTools"] = list(exclude)
    if request_timeout_ms and request_timeout_ms > 0:
        entry["requestTimeoutMs"] = int(request_timeout_ms)
    if connect_timeout_ms and connect_timeout_ms > 0:
        entry["connectTimeoutMs"] = int(connect_timeout_ms)
    if description:
        entry["description"] = description
    return entry


def check_entry(entry: JsonObject) -> None:
    """Validate with the gateway's model (references stand in for values), or skip with the first problem.

    Raises:
        Skip: the gateway would reject the entry.
    """
    kind = entry.get("type", "stdio")
    if kind not in ("stdio", "http", "sse"):
        raise Skip(f"its type {kind!r} is not one the gateway can run")
    model = SERVER_MODELS[kind]
    probe = dict(entry)
    url = probe.get("url")
    if isinstance(url, str) and _REFERENCE.match(url):
        probe["url"] = PLACEHOLDER_URL  # `${BASE_URL}/mcp` is valid once the variable is set
    try:
        model.model_validate(probe)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "entry"
        raise Skip(f"the gateway cannot use it: {where}: {first['msg']}") from exc
