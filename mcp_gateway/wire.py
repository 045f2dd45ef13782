"""JSON-RPC messages as lines of JSON: read without silently dropping any, written whatever their depth.

Both of the gateway's own line transports use this: the stdio server facing the AI client and the stdio
client facing each downstream server (and the SSE client, whose events carry one message each).

Reading: the SDK's validator is tried first (it is fast), but it refuses valid JSON nested deeper than
about 200 levels and says nothing about *which* request a bad line belongs to. A line it refuses is
therefore read again with the standard library and judged: what could not be used comes back as an
`Unreadable` that names the JSON-RPC error code it deserves and, when the line holds one, the request id,
so the caller can answer or fail exactly that request instead of leaving its peer waiting for a timeout.

Writing: pydantic refuses to serialize beyond about 250 levels; such a message is written by hand from its
fields with the standard library, which manages `MAX_DEPTH` levels. Anything deeper was refused on the way
in, so every message the gateway accepted can also be sent on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, cast

import mcp_types as types
from pydantic import ValidationError

from mcp_gateway.line_bounds import leading_members, usable_id

MAX_DEPTH = 512
"""Levels of nesting accepted in one message: far beyond any real tool argument or result, and well inside
what the standard library's JSON reader and writer handle (about 990)."""
MAX_RELAYED_DEPTH = 250
"""Levels of nesting a reply from a downstream server may have: the SDK's client checks each result by
serializing it with pydantic, which gives up at about 255 levels; deeper replies fail their request at once."""
PREVIEW_CHARS = 200
"""How much of an unreadable line a diagnostic quotes."""

Kind = Literal["request", "notification", "response", "unknown"]


@dataclass(frozen=True)
class Unreadable:
    """A line that is not a usable JSON-RPC message, with what could be recovered from it."""

    code: int
    """The JSON-RPC error it deserves: `PARSE_ERROR`, `INVALID_REQUEST` or `INVALID_PARAMS`."""
    reason: str
    request_id: types.RequestId | None
    """The id the line carries, when it carries a usable one."""
    kind: Kind
    """What the line tried to be: a request (has a method and an id), a notification, a response."""
    preview: str


class UnencodableError(ValueError):
    """A message nested too deeply to be written as JSON at all."""


def decode(line: bytes | str, *, max_depth: int = MAX_DEPTH) -> types.JSONRPCMessage | Unreadable | None:
    """The message on `line`, an `Unreadable` saying why there is none, or None for a blank line.

    A message nested more than `max_depth` levels deep is refused (the fast path reads only about 200).
    """
    text = line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
    text = text.strip()
    if not text:
        return None
    try:
        return types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except (ValidationError, ValueError):
        pass
    fields = _members(text)
    if isinstance(fields, Unreadable):
        return fields
    request_id = usable_id(fields.get("id"))
    kind = _kind_of(fields)
    if depth_exceeds(fields, max_depth):
        reason = f"the message is nested more than {max_depth} levels deep"
        return Unreadable(types.INVALID_REQUEST, reason, request_id, kind, text[:PREVIEW_CHARS])
    try:
        return types.jsonrpc_message_adapter.validate_python(fields, by_name=False)
    except ValidationError as exc:
        return Unreadable(_code_for(fields, kind), _reason(fields, kind, exc), request_id, kind, text[:PREVIEW_CHARS])


def _members(text: str) -> dict[str, Any] | Unreadable:
    """The line's JSON object, or why it is none; a line cut short still yields the id it began with."""
    preview = text[:PREVIEW_CHARS]
    try:
        raw: Any = json.loads(text)
    except RecursionError:
        return Unreadable(types.PARSE_ERROR, "the JSON is nested too deeply to read", None, "unknown", preview)
    except ValueError as exc:
        leading = leading_members(text)
        kind = _kind_of(leading)
        return Unreadable(types.PARSE_ERROR, f"not JSON ({exc})", usable_id(leading.get("id")), kind, preview)
    if not isinstance(raw, dict):
        return Unreadable(types.INVALID_REQUEST, "a JSON-RPC message must be an object", None, "unknown", preview)
    return cast(dict[str, Any], raw)


def encode(message: types.JSONRPCMessage) -> bytes:
    """One line of compact JSON (UTF-8, newline included), however deep the message is.

    Raises:
        UnencodableError: the message is nested deeper than JSON can be written here (far past `MAX_DEPTH`).
    """
    try:
        text = message.model_dump_json(by_alias=True, exclude_unset=True)
    except (ValueError, RecursionError):  # pydantic's serializer gives up at about 250 levels
        try:
            text = json.dumps(_envelope(message), separators=(",", ":"), ensure_ascii=False)
        except (ValueError, TypeError, RecursionError) as exc:
            raise UnencodableError(f"the message is nested too deeply to write ({exc})") from exc
    return (text + "\n").encode("utf-8")


def fits_within(value: object, limit_bytes: int) -> bool:
    """Whether `value` written as JSON takes at most about `limit_bytes` (strings by their length, every other
    item a few bytes): a walk that stops as soon as the estimate passes the limit, so it costs no more than the
    limit whatever `value` holds; False for anything but plain JSON data. For choosing work small enough to do
    on the event loop."""
    left = limit_bytes
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            left -= len(item) + 2
        elif isinstance(item, dict):
            members = cast(dict[str, Any], item)
            left -= 2 + 4 * len(members)  # counted before its members are taken on, however many they are
            if left >= 0:
                stack.extend(members.keys())
                stack.extend(members.values())
        elif isinstance(item, list | tuple):
            elements = cast(list[Any], item)
            left -= 2 + 2 * len(elements)
            if left >= 0:
                stack.extend(elements)
        elif item is None or isinstance(item, int | float):
            left -= 8
        else:
            return False  # not plain JSON data (a model, say): its size is not known without writing it
        if left < 0:
            return False
    return True


def message_fits_within(message: types.JSONRPCMessage, limit_bytes: int) -> bool:
    """`fits_within` for what a JSON-RPC message carries (its envelope is a few bytes)."""
    if isinstance(message, types.JSONRPCError):
        return fits_within([message.error.message, message.error.data], limit_bytes)
    return fits_within(message.result if isinstance(message, types.JSONRPCResponse) else message.params, limit_bytes)


def depth_exceeds(value: object, limit: int) -> bool:
    """Whether `value` nests containers more than `limit` levels deep (iterative: no recursion limit)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: list[Any] = list(cast(dict[str, Any], item).values())
        elif isinstance(item, list):
            children = cast(list[Any], item)
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def error_response(request_id: types.RequestId | None, code: int, message: str, data: Any = None) -> types.JSONRPCError:
    error = (
        types.ErrorData(code=code, message=message)
        if data is None
        else types.ErrorData(code=code, message=message, data=data)
    )
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


def _kind_of(fields: dict[str, Any]) -> Kind:
    if "method" in fields:
        return "request" if "id" in fields else "notification"
    if "result" in fields or "error" in fields:
        return "response"
    return "unknown"


def _code_for(fields: dict[str, Any], kind: Kind) -> int:
    if kind in ("request", "notification") and fields.get("jsonrpc") == "2.0" and isinstance(fields.get("method"), str):
        params = fields.get("params")
        if params is not None and not isinstance(params, dict):
            return types.INVALID_PARAMS
    return types.INVALID_REQUEST


def _reason(fields: dict[str, Any], kind: Kind, exc: ValidationError) -> str:  # noqa: PLR0911
    if fields.get("jsonrpc") != "2.0":
        return 'the "jsonrpc" member must be "2.0"'
    if "id" in fields and usable_id(fields["id"]) is None and fields["id"] is not None:
        return "the id must be a string or an integer"
    if kind in ("request", "notification"):
        if not isinstance(fields.get("method"), str):
            return "the method must be a string"
        if fields.get("params") is not None and not isinstance(fields.get("params"), dict):
            return "params must be an object"
    if kind == "response":
        if "result" in fields and not isinstance(fields["result"], dict):
            return "the result must be an object"
        if "error" in fields:
            return "the error must be an object with an integer code and a string message"
    first = exc.errors()[0] if exc.error_count() else None
    where = ".".join(str(part) for part in first["loc"][1:]) if first else ""
    return f"not a valid JSON-RPC message ({where}: {first['msg']})" if first else "not a valid JSON-RPC message"


def _envelope(message: types.JSONRPCMessage) -> dict[str, Any]:
    """The message as plain JSON values, field by field (what `exclude_unset` would write)."""
    envelope: dict[str, Any] = {"jsonrpc": "2.0"}
    for name in ("id", "method", "params", "result"):
        if name in message.model_fields_set:
            envelope[name] = getattr(message, name)
    if isinstance(message, types.JSONRPCError):
        error = message.error
        envelope["error"] = {"code": error.code, "message": error.message}
        if "data" in error.model_fields_set:
            envelope["error"]["data"] = error.data
    return envelope


def bare_initialize(client_name: str) -> dict[str, Any]:
    """An `initialize` request with no capabilities: what a probe sends a remote server to see whether it
    answers or asks for a sign-in (the import's check, and `login` finding where to sign in)."""
    client_info = {"name": client_name, "version": "1"}
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client_info}
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
