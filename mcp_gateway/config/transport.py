"""Which model validates a server entry: `type`, its alias `transport`, or a guess from `command`/`url`.

Clients spell the transports differently (`streamable-http`, `streamableHttp`, `streamable_http` all mean
Streamable HTTP, the model `http`), so spellings are compared with case, `-` and `_` ignored. A server
with only a `url` is assumed to be Streamable HTTP, with a warning, because some clients mean SSE by it.
Once the transport is known, fields of the other transports are dropped with a warning naming their owner.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from mcp_gateway.config.diagnostics import DiagnosticReport, did_you_mean
from mcp_gateway.config.models import HttpServer, SseServer, StdioServer
from mcp_gateway.config.normalize import Entry, drop_unknown_fields, field_names, normalize_keys, suggest_field

Transport = Literal["stdio", "http", "sse"]
ServerModel = type[StdioServer] | type[HttpServer] | type[SseServer]

SERVER_MODELS: dict[Transport, ServerModel] = {"stdio": StdioServer, "http": HttpServer, "sse": SseServer}
SERVER_FIELDS: dict[Transport, frozenset[str]] = {name: field_names(model) for name, model in SERVER_MODELS.items()}
ALL_SERVER_FIELDS = frozenset[str]().union(*SERVER_FIELDS.values())
TRANSPORT_KEY = "type"
TRANSPORT_ALIAS_KEY = "transport"
TRANSPORT_CHOICES = ("stdio", "http", "sse", "streamable-http")

_TRANSPORT_SPELLINGS: dict[str, Transport] = {"stdio": "stdio", "http": "http", "streamablehttp": "http", "sse": "sse"}
_TRANSPORT_HINT = 'expected "stdio", "http" (Streamable HTTP) or "sse"'


def normalize_server(
    raw: Mapping[str, object], json_path: str, report: DiagnosticReport
) -> tuple[Transport, Entry] | None:
    """The server's transport and its fields, or None (an error is logged) when no transport can be chosen."""
    entry = normalize_keys(raw, ALL_SERVER_FIELDS | {TRANSPORT_ALIAS_KEY}, json_path, report)
    transport = _choose_transport(entry, report)
    if transport is None:
        # Rejected, but every unknown key is still said, with its likely meaning: one round of fixes, not one per run.
        drop_unknown_fields(entry, ALL_SERVER_FIELDS | {TRANSPORT_ALIAS_KEY}, report)
        return None
    entry.fields.pop(TRANSPORT_ALIAS_KEY, None)
    entry.spelled.pop(TRANSPORT_ALIAS_KEY, None)
    entry.fields[TRANSPORT_KEY] = transport
    entry.spelled.setdefault(TRANSPORT_KEY, TRANSPORT_KEY)
    misplaced = {name: _misplaced_hint(name, transport) for name in ALL_SERVER_FIELDS - SERVER_FIELDS[transport]}
    drop_unknown_fields(entry, SERVER_FIELDS[transport], report, elsewhere=misplaced, hold_near_misses=True)
    return transport, entry


def _choose_transport(entry: Entry, report: DiagnosticReport) -> Transport | None:
    # `"type": null` is what some exporters write for "not set".
    declared = [key for key in (TRANSPORT_KEY, TRANSPORT_ALIAS_KEY) if entry.fields.get(key) is not None]
    chosen: list[Transport] = []
    for key in declared:
        value = entry.fields[key]
        transport = transport_named(value) if isinstance(value, str) else None
        if transport is None:
            written = entry.spelled[key]
            guess = did_you_mean(value, TRANSPORT_CHOICES) if isinstance(value, str) else None
            report.error(entry.path_of(key), f"'{written}' is not a known transport", guess or _TRANSPORT_HINT)
            return None
        chosen.append(transport)
    if len(chosen) == 2 and chosen[0] != chosen[1]:
        report.warning(
            entry.path_of(TRANSPORT_ALIAS_KEY),
            f"'transport' says \"{chosen[1]}\" but 'type' says \"{chosen[0]}\"; 'type' is used",
            "keep only 'type'",
        )
    if chosen:
        return chosen[0]
    if "command" in entry.fields:
        return "stdio"
    if "url" in entry.fields:
        report.warning(
            entry.json_path,
            "no 'type' given for a server with a 'url'; Streamable HTTP (\"http\") is assumed",
            'set "type": "http", or "sse" if the server uses the older SSE transport',
        )
        return "http"
    near = _near_miss(entry, frozenset({"command", "url"}))
    if near is None:
        fix, which = 'add "command" for a local server, or "url" and "type" for a remote one', ""
    else:
        fix, which = f"rename '{near[0]}' to '{near[1]}'", f" (it has '{near[0]}', which is probably '{near[1]}')"
    message = f"the server has neither 'command' nor 'url'{which}, so there is nothing to start or connect to"
    report.error(entry.json_path, message, fix)
    return None


def _near_miss(entry: Entry, wanted: frozenset[str]) -> tuple[str, str] | None:
    """The first unknown key (as written) that probably means one of `wanted`, and which one."""
    for key in entry.fields:
        if key not in ALL_SERVER_FIELDS and key != TRANSPORT_ALIAS_KEY:
            meant = suggest_field(key, wanted)
            if meant is not None:
                return entry.spelled.get(key, key), meant
    return None


def _misplaced_hint(name: str, transport: Transport) -> str:
    owners = [other for other, names in SERVER_FIELDS.items() if name in names and other != transport]
    if owners == ["stdio"]:
        return f'it belongs to stdio servers, and this one is "{transport}"; remove it or set "type": "stdio"'
    kinds = " or ".join(f'"{owner}"' for owner in owners)
    return f'it belongs to {kinds} servers, and this one is "{transport}"; remove it or set "type" accordingly'


def transport_named(spelling: str, more: Mapping[str, Transport] | None = None) -> Transport | None:
    """The transport `spelling` names, case, `-` and `_` aside; `more`: other folded spellings (a client's)."""
    folded = spelling.replace("-", "").replace("_", "").casefold()
    return _TRANSPORT_SPELLINGS.get(folded) or (more or {}).get(folded)
