"""One client entry into a gateway entry: typed field access, the readers most clients share, the client's own
OAuth block, and the pipeline every entry goes through (`convert_entry`).

Client entries are untrusted JSON: a field of the wrong type makes that one entry skipped with a reason
(`Skip`), never the whole import. Most clients share Claude's shape (`command`/`args`/`env` or `url`/`headers`,
an optional `type`): `standard` reads it with the per-client differences as parameters, such as what a `url`
without a type means (SSE for Cline and Roo, Streamable HTTP elsewhere; reference §0.5). The pipeline: the
gateway's own entry is recognised and never imported, the client's reader builds a gateway entry, the
client's variable syntax is translated, and the gateway's own models have the last word (`check_entry`), so an
entry the gateway would reject is skipped here and stays working in the client.

A client's OAuth block (`read_oauth`) says what a sign-in needs (a client id registered by hand, its secret,
scopes, a fixed loopback port), each client spelling it its own way (reference §2): it becomes the gateway's
`oauth`, marking the server as needing `mcp-gateway login`. The client's own sign-in cannot be reused.
Endpoints a client lets a person set are not carried: the gateway discovers them (RFC 9728, 8414). A client
secret written literally is not copied into config.json: it becomes a `${VAR}` reference named after the server.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import PurePosixPath, PureWindowsPath
from urllib.parse import urlsplit

from pydantic import ValidationError

from mcp_gateway.config import SERVER_MODELS, Transport, as_list, as_object, transport_named
from mcp_gateway.importing.clients.model import (
    GATEWAY_DISTRIBUTION,
    GATEWAY_NAME,
    NO_CREDENTIALS,
    ImportedServer,
    JsonObject,
    Launch,
    Scope,
    Skip,
    Where,
)
from mcp_gateway.importing.clients.variables import Context, Syntax, translate_entry

_CLIENT_TRANSPORTS: dict[str, Transport] = {"local": "stdio", "streamable": "http"}
_REFERENCE = re.compile(r"\$\{[^}]*\}")
PLACEHOLDER_URL = "http://placeholder.invalid"
PORTABLE_NAME = re.compile(r"[A-Za-z0-9_-]+")
_ABSOLUTE = re.compile(r"[/~$\\]|[A-Za-z]:[\\/]")
_GATEWAY_PROGRAMS = frozenset({"mcp-gateway", "mcp-meta-gateway"})
_UV_PROGRAMS = frozenset({"uvx", "uv"})
MS_PER_SECOND = 1000
ENV_FILE = "it loads variables from a file ('envFile'), which the gateway cannot; move them into 'env'"

EntryReader = Callable[[Mapping[str, object], list[str]], JsonObject]
"""A client's reading of one entry's fields into a gateway entry (with its `oauth`, if any); it may append
warnings to the list and raises `Skip` for an entry the gateway cannot run."""


# Typed field access.


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


def number(raw: Mapping[str, object], key: str, scale: float = 1) -> float | None:
    """A positive number (times `scale`: `MS_PER_SECOND` for a client that counts seconds), else None."""
    value = raw.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value:
        return None
    return float(value) * scale


# Gateway entries.


def transport(value: str) -> str:
    """The gateway transport for a client's spelling (`streamable-http`, `streamableHttp`, `local`, …)."""
    kind = transport_named(value, _CLIENT_TRANSPORTS)
    if kind is None:
        raise Skip(f"its type '{value}' is not one the gateway can run (stdio, http or sse)")
    return kind


def stdio_entry(
    command: str, args: Sequence[str] | None = None, env: Mapping[str, str] | None = None, cwd: str | None = None
) -> JsonObject:
    entry: JsonObject = {"type": "stdio", "command": command}
    fields = (("args", list(args or ())), ("env", dict(env or {})), ("cwd", cwd))
    entry.update({key: value for key, value in fields if value})
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
    """Claude's shape: `command`/`args`/`env`/`cwd` or `url`/`headers`; `url_default` is what a `url` without a
    type means in this client."""
    declared = next((text(raw, key) for key in type_keys if raw.get(key) is not None), None)
    url = next((text(raw, key) for key in url_keys if raw.get(key) is not None), None)
    command = text(raw, "command")
    kind = transport(declared) if declared else ("stdio" if command is not None else url_default)
    if kind == "stdio":
        if not command:
            raise Skip("it has no 'command' to start")
        return stdio_entry(command, strings(raw, "args"), string_map(raw, "env"), text(raw, "cwd"))
    if not url:
        raise Skip("it has neither a 'command' to start nor a 'url' to connect to")
    return remote_entry(kind, url, string_map(raw, "headers"))


def seed_fields(
    entry: JsonObject,
    *,
    include: Sequence[str] | None = None,
    exclude: Sequence[str] | None = None,
    request_timeout_ms: float | None = None,
    connect_timeout_ms: float | None = None,
    description: str | None = None,
) -> JsonObject:
    """Gateway-side fields worth carrying over for a new server (never overwritten on re-import)."""
    seeds = {
        "includeTools": include,
        "excludeTools": exclude,
        "requestTimeoutMs": int(request_timeout_ms) if request_timeout_ms and request_timeout_ms > 0 else None,
        "connectTimeoutMs": int(connect_timeout_ms) if connect_timeout_ms and connect_timeout_ms > 0 else None,
        "description": description,
    }
    entry.update({key: list(value) if isinstance(value, list) else value for key, value in seeds.items() if value})
    return entry


def with_oauth(entry: JsonObject, oauth: JsonObject | None) -> JsonObject:
    return entry if oauth is None else {**entry, "oauth": oauth}


def standard(
    *,
    url_default: str = "http",
    url_keys: Sequence[str] = ("url",),
    oauth_key: str = "oauth",
    refused: Mapping[str, str] | None = None,
    disabled_tools: bool = False,
    timeout_seconds: bool = False,
) -> EntryReader:
    """The reader of a client in Claude's shape: `refused` fields (each with why) skip the entry;
    `disabledTools` and a `timeout` in seconds per call carry over where the client has them."""

    def read(raw: Mapping[str, object], warnings: list[str]) -> JsonObject:
        for key, reason in (refused or {}).items():
            if raw.get(key) is not None:
                raise Skip(reason)
        oauth = read_oauth(raw.get(oauth_key))
        entry = read_standard(raw, url_default=url_default, url_keys=url_keys)
        seed_fields(
            entry,
            exclude=strings(raw, "disabledTools") if disabled_tools else None,
            request_timeout_ms=number(raw, "timeout", MS_PER_SECOND) if timeout_seconds else None,
        )
        return with_oauth(entry, oauth)

    return read


def switched_off(raw: Mapping[str, object]) -> str | None:
    """How an entry says its client keeps it but does not start it: `"disabled": true` (Claude's shape, Cline,
    Roo, Windsurf, Kiro; by hand in Cursor, VS Code and Claude Desktop files too) or `"enabled": false`
    (OpenCode, Codex, Zed, Goose). Either way it is imported disabled: the gateway never starts it either."""
    if raw.get("disabled") is True:
        return 'its entry says "disabled": true'
    if raw.get("enabled") is False:
        return 'its entry says "enabled": false'
    return None


def check_entry(entry: JsonObject) -> None:
    """Validate with the gateway's model (references stand in for values), or skip with the first problem."""
    kind = entry.get("type", "stdio")
    if kind not in ("stdio", "http", "sse"):
        raise Skip(f"its type {kind!r} is not one the gateway can run")
    probe = dict(entry)
    url = probe.get("url")
    if isinstance(url, str) and _REFERENCE.match(url):
        probe["url"] = PLACEHOLDER_URL  # `${BASE_URL}/mcp` is valid once the variable is set
    try:
        SERVER_MODELS[kind].model_validate(probe)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "entry"
        raise Skip(f"the gateway cannot use it: {where}: {first['msg']}") from exc


def stdio_launch(launch: Launch) -> JsonObject:
    """The gateway as a typed stdio entry: the `mcpServers` shape most clients share."""
    return {"type": "stdio", **plain_launch(launch)}


def plain_launch(launch: Launch) -> JsonObject:
    """The gateway as a stdio entry without `type`, for clients that do not write one."""
    return {"command": launch.command, "args": list(launch.args), "env": dict(launch.env)}


# The pipeline.


def convert_entry(
    name: str,
    raw: object,
    read: EntryReader,
    syntax: Syntax,
    *,
    client: str,
    where: Where,
    scope: Scope,
    turned_off: Mapping[str, str],
) -> ImportedServer:
    """One client entry through the whole pipeline; never raises for a bad entry. `client` is the title, and
    `turned_off` the servers the client keeps off by a setting outside their entries, each with where it says so."""
    warnings: list[str] = []
    try:
        fields = _fields(raw)
        entry = read(fields, warnings)
    except Skip as skip:
        if name == GATEWAY_NAME:
            return ImportedServer(name, skipped="this is the gateway itself", itself=True)
        return ImportedServer(name, skipped=skip.reason)
    if entry.get("type") not in ("http", "sse"):
        entry.pop("oauth", None)
    if name == GATEWAY_NAME or is_gateway(entry):
        return ImportedServer(name, skipped="this is the gateway itself", itself=True, gateway=entry)
    off = turned_off.get(name) or switched_off(fields)
    if off is not None:
        entry["disabled"] = True
    project = str(where.project) if scope != "user" else None  # `${workspaceFolder}` means a project's own file
    try:
        entry = translate_entry(entry, syntax, Context(home=str(where.home), project=project, windows=where.windows))
        entry, secret_note = secret_as_reference(name, entry)
        check_entry(entry)
    except Skip as skip:
        return ImportedServer(name, skipped=skip.reason)
    warnings += [secret_note] if secret_note else []
    warnings += _notes(name, entry, off, client=client, scope=scope)
    cwd = entry.get("cwd")
    if isinstance(cwd, str) and not _ABSOLUTE.match(cwd) and scope != "user":
        entry["cwd"] = str(where.project / cwd)  # a project file's paths are relative to the project
    return ImportedServer(name, entry=entry, warnings=tuple(warnings))


def _fields(raw: object) -> Mapping[str, object]:
    fields = as_object(raw)
    if fields is None:
        raise Skip("the entry is not an object")
    return fields


def _notes(name: str, entry: JsonObject, off: str | None, *, client: str, scope: Scope) -> list[str]:
    """What to know of an imported entry: turned off, a relative working directory, a sign-in, an awkward name."""
    warnings: list[str] = []
    if off is not None:
        warnings.append(
            f"it is turned off in {client} ({off}): imported disabled, so the gateway never starts it; "
            f"`mcp-gateway config enable {name}` turns it on"
        )
    cwd = entry.get("cwd")
    if isinstance(cwd, str) and not _ABSOLUTE.match(cwd) and scope == "user":
        warnings.append(f"its working directory '{cwd}' is relative; the gateway resolves it from where it runs")
    if entry.get("oauth") is not None:
        warnings.append(
            f"it signs in with OAuth in {client}; the gateway cannot reuse that sign-in, so it is imported as "
            "needing its own (`login`, below)"
        )
    elif entry.get("type") in ("http", "sse") and not entry.get("headers"):
        warnings.append(f"{NO_CREDENTIALS}; if it signs in (OAuth) in {client}, the gateway cannot reuse that")
    if not PORTABLE_NAME.fullmatch(name):
        warnings.append(
            "its name has characters other than letters, digits, '-' and '_'; qualified tool names get awkward"
        )
    return warnings


def program_name(command: str) -> str:
    """The program a command runs, as a client on any OS names it: `C:\\bin\\npx.cmd` → `npx`."""
    path = PureWindowsPath(command) if "\\" in command else PurePosixPath(command)
    return path.name.lower().removesuffix(".exe").removesuffix(".cmd")


def is_gateway(entry: Mapping[str, object]) -> bool:
    """Whether a stdio entry starts this gateway (`mcp-gateway`, `uvx --from mcp-meta-gateway …`)."""
    command = entry.get("command")
    if not isinstance(command, str):
        return False
    args = [item for item in as_list(entry.get("args")) or [] if isinstance(item, str)]
    program = program_name(command)
    if program in _GATEWAY_PROGRAMS:
        return True
    if program.startswith("python") and args[:2] == ["-m", "mcp_gateway"]:
        return True
    if program in _UV_PROGRAMS:
        packages = [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == "--from"]
        packages += [arg.split("=", 1)[1] for arg in args if arg.startswith("--from=")]
        positional = [
            arg for i, arg in enumerate(args) if not arg.startswith("-") and (i == 0 or args[i - 1] != "--from")
        ]
        packages += positional[:1] if program == "uvx" else positional[1:2]
        return any(re.split(r"[=<>~!\[@ ]", package, maxsplit=1)[0] == GATEWAY_DISTRIBUTION for package in packages)
    return False


# A client's OAuth block.

_CLIENT_ID_KEYS = ("clientId", "client_id", "CLIENT_ID")
_CLIENT_SECRET_KEYS = ("clientSecret", "client_secret", "CLIENT_SECRET")
_PORT_KEYS = ("redirectPort", "callbackPort", "callback_port")
_REDIRECT_URI_KEYS = ("redirectUri", "redirect_uri")
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
_ONLY_REFERENCES = re.compile(r"(?:\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\})+")
_NOT_NAME = re.compile(r"[^A-Z0-9]+")
MAX_PORT = 65535


def read_oauth(value: object) -> JsonObject | None:
    """The gateway's `oauth` for a client's OAuth block; None when it says there is none (`oauth: false`, as in
    OpenCode, or `enabled: false`, as in Gemini CLI); `oauth: true` is OAuth with nothing configured."""
    if value is None or value is False:
        return None
    if value is True:
        return {}
    block = as_object(value)
    if block is None:
        raise Skip("its 'oauth' is neither an object nor true/false")
    if block.get("enabled") is False:
        return None
    settings: JsonObject = {}
    client_id = _first_text(block, _CLIENT_ID_KEYS)
    if client_id:
        settings["clientId"] = client_id
    secret = _first_text(block, _CLIENT_SECRET_KEYS)
    if secret:
        if not client_id:
            raise Skip("its OAuth block has a client secret but no client id; add the id, or remove the secret")
        settings["clientSecret"] = secret
    scopes = _scopes(block)
    if scopes:
        settings["scopes"] = scopes
    port = _port(block)
    if port is not None:
        settings["redirectPort"] = port
    return settings


def secret_as_reference(name: str, entry: JsonObject) -> tuple[JsonObject, str | None]:
    """`entry` with a literal `oauth.clientSecret` replaced by a `${VAR}` reference, and the note saying so.

    Run after the client's variable syntax is translated: only then is `$SECRET` known to be a reference.
    """
    oauth = as_object(entry.get("oauth"))
    secret = None if oauth is None else oauth.get("clientSecret")
    if oauth is None or not isinstance(secret, str) or _ONLY_REFERENCES.fullmatch(secret):
        return entry, None
    variable = f"{_NOT_NAME.sub('_', name.upper()).strip('_') or 'SERVER'}_OAUTH_CLIENT_SECRET"
    note = (
        f"its OAuth client secret is written in the client's file; config.json names it as ${{{variable}}} "
        f"instead: set {variable} to that secret in the gateway's environment before running login"
    )
    return {**entry, "oauth": {**oauth, "clientSecret": f"${{{variable}}}"}}, note


def _first_text(block: Mapping[str, object], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = block.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise Skip(f"its 'oauth.{key}' is not a string")
        return value.strip() or None
    return None


def _scopes(block: Mapping[str, object]) -> list[str]:
    value = block.get("scopes", block.get("scope"))
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()  # OAuth's own form: one space-separated string (RFC 6749 §3.3)
    items = as_list(value)
    if items is None or not all(isinstance(item, str) for item in items):
        raise Skip("its OAuth scopes are neither a list of strings nor one spaced string")
    return [str(item) for item in items if str(item).strip()]


def _port(block: Mapping[str, object]) -> int | None:
    for key in _PORT_KEYS:
        value = block.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_PORT:
            raise Skip(f"its 'oauth.{key}' is not a port number (1 to {MAX_PORT})")
        return value
    uri = _first_text(block, _REDIRECT_URI_KEYS)
    if uri is None:
        return None
    try:
        parts = urlsplit(uri)
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise Skip(f"its OAuth redirect '{uri}' is not a valid url") from exc
    if host not in _LOOPBACK_HOSTS:
        raise Skip(
            f"its OAuth redirect '{uri}' is not on this machine; the gateway's sign-in returns to 127.0.0.1, "
            "so register a loopback redirect for its client and add the server by hand"
        )
    return port
