"""Large results passed on as they came: read once without models, and written to the client from the text they
arrived in rather than encoded again.

A server's answer of megabytes (an image, a file, a page) is, for the gateway, data to pass on. Reading it into
pydantic models and encoding them again held the interpreter for a tenth of a second per 10 MB image, twice, and
no session of a shared daemon moved meanwhile. So a downstream response line of at least `MIN_RELAYED_BYTES`
is read here, in the transport's worker thread, with the standard library (`read_response`): checked to be a
plain JSON-RPC response, its result kept beside the text it was written as. The SDK and the gateway see the
result as a dict, as always; when the client's transport writes a response whose result is that result
(compared by value, which costs little: its large strings are the very objects read), the text it came as is
written (`encode_response`), with whatever members the way added (`resultType`, a `_meta` stamp). A result
the way changed (an error's text masked, a member dropped for an older protocol) is encoded as usual.

Bounded: a kept text lives at most `KEPT_SECONDS` (a result the gateway never writes, as a cancelled call's, is
dropped then) and at most `MAX_KEPT` are kept at once, the oldest dropped first; both only cost speed.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

import mcp_types as types

from mcp_gateway import wire
from mcp_gateway.line_bounds import object_members

MIN_RELAYED_BYTES = 64 * 1024
"""Lines shorter than this are read the usual way: the models cost less than a millisecond for them."""
MAX_KEPT = 4
KEPT_SECONDS = 30.0
"""Longer than any answer takes from the transport to the client's writer, short of a call's timeout."""


@dataclass(frozen=True)
class _Kept:
    result: dict[str, Any]
    text: str
    """The result's JSON text as the server wrote it."""
    at: float


_kept: deque[_Kept] = deque()
_lock = threading.Lock()


def read_response(line: bytes) -> types.JSONRPCResponse | None:
    """`line` as the JSON-RPC response it is, its result kept for `encode_response`; None when it is anything
    else (a request, an error, not plain JSON), which the caller reads the usual way."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None
    members: dict[str, Any] = {}
    spans: dict[str, tuple[int, int]] = {}
    end = -1
    for key, value, start, end in object_members(text):
        members[key], spans[key] = value, (start, end)
    if end < 0 or text[end:].strip(" \t\r\n") != "}":
        return None  # not one whole object
    request_id, result = members.get("id"), members.get("result")
    plain_id = isinstance(request_id, str | int) and not isinstance(request_id, bool)
    if members.keys() != {"jsonrpc", "id", "result"} or members["jsonrpc"] != "2.0" or not plain_id:
        return None
    if not isinstance(result, dict) or not result:
        return None
    read = cast(dict[str, Any], result)
    if wire.depth_exceeds(read, wire.MAX_RELAYED_DEPTH):
        return None  # the usual reading says why it cannot be relayed
    start, end = spans["result"]
    _keep(_Kept(read, text[start:end], time.monotonic()))
    return types.JSONRPCResponse.model_construct(jsonrpc="2.0", id=request_id, result=read)


def encode_response(message: types.JSONRPCMessage) -> bytes | None:
    """The line for `message` written from the text its result came as, if it is a response carrying a result
    read by `read_response` (with members added on the way, never any removed or changed); None otherwise."""
    if not isinstance(message, types.JSONRPCResponse):
        return None
    result = message.result
    kept = _take(result)
    if kept is None:
        return None
    added = {key: value for key, value in result.items() if key not in kept.result}
    body = kept.text
    if added:
        body = body[: body.rindex("}")] + "," + json.dumps(added, separators=(",", ":"), ensure_ascii=False)[1:]
    head = json.dumps({"jsonrpc": "2.0", "id": message.id}, separators=(",", ":"))[:-1]
    return f'{head},"result":{body}}}\n'.encode()


def _keep(kept: _Kept) -> None:
    with _lock:
        _expire(kept.at)
        _kept.append(kept)
        while len(_kept) > MAX_KEPT:
            _kept.popleft()


def _take(result: Mapping[str, Any]) -> _Kept | None:
    with _lock:
        _expire(time.monotonic())
        for kept in _kept:
            if kept.result.keys() <= result.keys() and all(result[key] == kept.result[key] for key in kept.result):
                _kept.remove(kept)
                return kept
    return None


def _expire(now: float) -> None:
    while _kept and now - _kept[0].at > KEPT_SECONDS:
        _kept.popleft()
