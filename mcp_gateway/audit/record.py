"""One audited call: what is kept of it while it runs (`AuditedCall`), and the line it becomes (`line_of`).

A line says when, for which session (its client's name and version, its project directory), which server and
tool (or prompt, or resource URI), the arguments' shape (keys and JSON types, bounded in depth and breadth),
the outcome (`ok`, `tool-error`, `gateway-error`, `refused`, `cancelled`) and why, how long it took and how
large its result was. Argument values are kept only when `auditValues` asked for them, then with every secret
the gateway knows, every value under a key that declares a secret and every word shaped like a token masked.
The line is made in the writer's thread (`trail.py`): nothing here runs on the event loop but `AuditedCall`'s
bookkeeping.
"""

from __future__ import annotations

import datetime
import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from mcp_gateway.bounds import MAX_ECHOED_NAME_CHARS, clip
from mcp_gateway.errors import CallRefusedError, GatewayError
from mcp_gateway.masking import MASK, SecretMask, declares_secret, looks_like_token

Kind = Literal["tool", "prompt", "resource"]
Outcome = Literal["ok", "tool-error", "gateway-error", "refused", "cancelled"]
OUTCOMES: tuple[Outcome, ...] = ("ok", "tool-error", "gateway-error", "refused", "cancelled")
MAX_DEPTH = 4
"""Nesting kept of the arguments; deeper values are named by their type only."""
MAX_KEYS = 40
"""Keys kept of one object; the rest are counted."""
MAX_ITEMS = 20
"""Items of one array looked at (their distinct shapes, or their values)."""
MAX_VALUE_CHARS = 200
"""Characters kept of one string value (with `auditValues`)."""
MAX_REASON_CHARS = 500
EXACT_STRING_CHARS = 64 * 1024
_WORD = re.compile(r"[A-Za-z0-9_\-.=+/:]{8,}")


@dataclass(frozen=True)
class AuditSession:
    id: str
    client: str | None
    client_version: str | None
    project: str | None


@dataclass
class AuditedCall:
    """A call from its start: its server and name are completed as they are resolved, its end by `ended`."""

    kind: Kind
    name: str
    session: AuditSession
    arguments: Mapping[str, Any] | None
    values: bool
    """Whether the argument values are kept (`auditValues`, as set when the call started)."""
    server: str | None = None
    at: float = field(default_factory=time.time)
    started: float = field(default_factory=time.monotonic)
    outcome: Outcome = "ok"
    reason: str | None = None
    duration_ms: float = 0.0
    result: object = None

    def ended(self, result: object = None, error: BaseException | None = None) -> None:
        """Note how the call ended: its result (a tool's `isError` makes it a tool error), or the error it raised."""
        self.duration_ms = round((time.monotonic() - self.started) * 1000, 1)
        self.result = result
        if error is None:
            is_error = isinstance(result, dict) and cast(dict[str, Any], result).get("isError") is True
            self.outcome = "tool-error" if is_error else "ok"
        elif not isinstance(error, Exception):  # a cancellation (or an interrupt): the call was not finished
            self.outcome, self.reason = "cancelled", "the client cancelled the request, or its session ended"
        else:
            self.outcome = "refused" if isinstance(error, CallRefusedError) else "gateway-error"
            self.reason = error.message if isinstance(error, GatewayError) else f"{type(error).__name__}: {error}"


def line_of(call: AuditedCall, secrets: SecretMask) -> dict[str, Any]:
    """The JSON object `call` is written as (masked, bounded): its line in logs/audit.jsonl."""
    stamp = datetime.datetime.fromtimestamp(call.at, datetime.UTC).isoformat(timespec="milliseconds")
    line: dict[str, Any] = {
        "time": stamp.replace("+00:00", "Z"),
        "session": {
            "id": call.session.id,
            "client": _text(call.session.client, secrets),
            "clientVersion": _text(call.session.client_version, secrets),
            "project": call.session.project,
        },
        "kind": call.kind,
        "server": call.server,
        "name": _text(call.name, secrets),
    }
    if call.arguments is not None:
        line["arguments"] = shape_of(call.arguments, secrets)
        if call.values:
            line["values"] = values_of(call.arguments, secrets)
    line["outcome"] = call.outcome
    if call.reason is not None:
        line["reason"] = secrets.mask_clipped(call.reason, MAX_REASON_CHARS)
    line["durationMs"] = call.duration_ms
    line["resultBytes"] = json_size(call.result) if call.result is not None else 0
    return line


def json_size(value: object) -> int:
    """How many bytes `value` takes as compact JSON, exact but for the escapes of strings longer than
    `EXACT_STRING_CHARS` (counted by their UTF-8 length): writing a 10 MB result out again to measure it would
    hold the interpreter, in the writer's thread, for as long as every session's event loop can bear."""
    size = 0
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if len(item) > EXACT_STRING_CHARS:
                size += 2 + (len(item) if item.isascii() else len(item.encode("utf-8", "surrogatepass")))
            elif item.isascii() and item.isprintable() and '"' not in item and "\\" not in item:
                size += len(item) + 2  # nothing to escape: most keys and texts, at a fraction of dumps' cost
            else:
                size += len(json.dumps(item, ensure_ascii=False).encode())
        elif isinstance(item, Mapping):
            members = cast(Mapping[object, object], item)
            size += 1 + max(len(members), 1) + len(members)  # braces, commas and colons
            for key, member in members.items():
                stack += (str(key), member)
        elif isinstance(item, list | tuple):
            items = cast(list[object], item)
            size += 1 + max(len(items), 1)  # brackets and commas
            stack += items
        else:
            size += len(json.dumps(item))
    return size


def shape_of(value: object, secrets: SecretMask, depth: int = 0) -> object:
    """`value`'s keys and JSON types: `{"path": "string", "flags": ["boolean"]}`; never a value."""
    if isinstance(value, Mapping):
        if depth >= MAX_DEPTH:
            return "object"
        members = cast(Mapping[object, object], value)
        return _members(members, secrets, lambda item, _name: shape_of(item, secrets, depth + 1))
    if isinstance(value, list | tuple):
        if depth >= MAX_DEPTH:
            return "array"
        shapes: list[object] = []
        for item in cast(list[object], value)[:MAX_ITEMS]:
            shape = shape_of(item, secrets, depth + 1)
            if shape not in shapes:
                shapes.append(shape)
        return shapes
    return json_type(value)


def values_of(value: object, secrets: SecretMask, depth: int = 0, key: str = "") -> object:
    """`value` with each secret masked and each string cut at `MAX_VALUE_CHARS` (`auditValues`)."""
    if depth >= MAX_DEPTH and json_type(value) in ("object", "array"):
        return json_type(value)
    if isinstance(value, Mapping):
        members = cast(Mapping[object, object], value)
        return _members(members, secrets, lambda item, name: values_of(item, secrets, depth + 1, name))
    if isinstance(value, list | tuple):
        items = cast(list[object], value)
        kept = [values_of(item, secrets, depth + 1, key) for item in items[:MAX_ITEMS]]
        return kept + ([f"… {len(items) - MAX_ITEMS} more items"] if len(items) > MAX_ITEMS else [])
    if isinstance(value, str):
        masked = _WORD.sub(lambda word: MASK if looks_like_token(word[0]) else word[0], secrets.mask(value))
        return MASK if declares_secret(key) else clip(masked, MAX_VALUE_CHARS)
    return value if value is None or isinstance(value, bool | int | float) else json_type(value)


def json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    return "array" if isinstance(value, list | tuple) else type(value).__name__


def _members(
    members: Mapping[object, object], secrets: SecretMask, kept: Callable[[object, str], object]
) -> dict[str, object]:
    result: dict[str, object] = {}
    for index, (key, item) in enumerate(members.items()):
        if index == MAX_KEYS:
            result["…"] = f"{len(members) - MAX_KEYS} more keys"
            break
        name = str(key)
        result[_text(name, secrets) or ""] = kept(item, name)
    return result


def _text(text: str | None, secrets: SecretMask) -> str | None:
    """Outside text in a line: masked, and no longer than a name is."""
    return None if text is None else secrets.mask_clipped(text, MAX_ECHOED_NAME_CHARS)
