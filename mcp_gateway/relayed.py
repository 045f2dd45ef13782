"""Large results passed on as they came: read once without models, and written to the client from the bytes they
arrived as rather than encoded again.

A server's answer of megabytes (an image, a file, a page) is, for the gateway, data to pass on. Reading it into
pydantic models and encoding them again held the interpreter for a tenth of a second per 10 MB image, twice, and
no session of a shared daemon moved meanwhile. So a downstream response line of at least `MIN_RELAYED_BYTES`
is read here, in the transport's worker thread, with the standard library (`read_response`): checked to be a
plain JSON-RPC response, its result kept beside the bytes it was written as. The SDK and the gateway see the
result as a dict, as always; when the client's transport writes a response whose result is that result
(compared by value, which costs little: its large strings are the very objects read), those bytes are written
(`encode_response`), with whatever members the way added (`resultType`, a `_meta` stamp). A result the way
changed (an error's text masked, a member dropped for an older protocol) is encoded as usual.

Even read without models, one long string is one call of the JSON decoder, and a worker thread holds the
interpreter through it (13 ms for 10 MB) while the event loop of every session waits. So the long strings of a
line are found by their quotes, decoded `PIECE_BYTES` at a time with the interpreter let go between pieces, and
the rest of the line, short, is decoded whole with each long string's place held (`_Skeleton`).

Bounded: a kept line lives at most `KEPT_SECONDS` (a result the gateway never writes, as a cancelled call's, is
dropped then) and at most `MAX_KEPT` are kept at once, the oldest dropped first; both only cost speed.
"""

from __future__ import annotations

import json
import secrets
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
LONG_STRING_BYTES = 16 * 1024
"""A string at least this long is decoded apart, in pieces; shorter ones go with the rest of the line."""
PIECE_BYTES = 512 * 1024
"""About half a millisecond of decoding: how long the event loop may wait for a worker reading a long string."""
MAX_SCANNED_QUOTES = 20_000
"""A line with more strings than this (structured data: its strings are short) is decoded whole."""
MAX_KEPT = 4
KEPT_SECONDS = 30.0
"""Longer than any answer takes from the transport to the client's writer, short of a call's timeout."""

_BACKSLASH, _QUOTE = 0x5C, 0x22


@dataclass(frozen=True)
class _Kept:
    result: dict[str, Any]
    line: bytes
    start: int
    end: int
    """Where the result's JSON is in `line`, as the server wrote it."""
    at: float


_kept: deque[_Kept] = deque()
_lock = threading.Lock()


def read_response(line: bytes) -> types.JSONRPCResponse | None:
    """`line` as the JSON-RPC response it is, its result kept for `encode_response`; None when it is anything
    else (a request, an error, not plain JSON), which the caller reads the usual way."""
    skeleton = _Skeleton.of(line)
    if skeleton is None:
        return None
    members: dict[str, Any] = {}
    spans: dict[str, tuple[int, int]] = {}
    end = -1
    for key, value, start, end in object_members(skeleton.text):
        members[key], spans[key] = value, (start, end)
    if end < 0 or skeleton.text[end:].strip(" \t\r\n") != "}":
        return None  # not one whole object
    request_id, result = members.get("id"), members.get("result")
    plain_id = isinstance(request_id, str | int) and not isinstance(request_id, bool)
    if members.keys() != {"jsonrpc", "id", "result"} or members["jsonrpc"] != "2.0" or not plain_id:
        return None
    read = _plain_result(result, skeleton)
    if read is None:
        return None
    start, end = (skeleton.in_line(position) for position in spans["result"])
    _keep(_Kept(read, line, start, end, time.monotonic()))
    return types.JSONRPCResponse.model_construct(jsonrpc="2.0", id=request_id, result=read)


def _plain_result(result: object, skeleton: _Skeleton) -> dict[str, Any] | None:
    """`result` with its long strings in place, if it is an object the usual reading would take."""
    if not isinstance(result, dict) or not result:
        return None
    if wire.depth_exceeds(cast(dict[str, Any], result), wire.MAX_RELAYED_DEPTH):
        return None  # the usual reading says why it cannot be relayed
    return skeleton.filled(cast(dict[str, Any], result))


def encode_response(message: types.JSONRPCMessage) -> bytes | None:
    """The line for `message` written from the bytes its result came as, if it is a response carrying a result
    read by `read_response` (with members added on the way, never any removed or changed); None otherwise."""
    if not isinstance(message, types.JSONRPCResponse):
        return None
    result = message.result
    kept = _take(result)
    if kept is None:
        return None
    head = json.dumps({"jsonrpc": "2.0", "id": message.id}, separators=(",", ":"))[:-1] + ',"result":'
    closing = kept.line.rindex(b"}", kept.start, kept.end)
    added = {key: value for key, value in result.items() if key not in kept.result}
    more = "," + json.dumps(added, separators=(",", ":"), ensure_ascii=False)[1:-1] if added else ""
    view = memoryview(kept.line)
    return b"".join((head.encode(), view[kept.start : closing], more.encode(), view[closing : kept.end], b"}\n"))


@dataclass(frozen=True)
class _Skeleton:
    """A line with each long string's place held by a short stand-in: `text`, decoded, and the strings themselves."""

    text: str
    marker: str
    strings: list[str]
    moves: list[tuple[int, int]]
    """For each stand-in, where it ends in `text`'s bytes and how many bytes shorter the line is up to there."""
    ascii: bool

    @classmethod
    def of(cls, line: bytes) -> _Skeleton | None:
        spans = _long_strings(line)
        if spans is None:
            return None
        marker = f"\x00relayed {secrets.token_hex(8)} "
        parts: list[bytes] = []
        strings: list[str] = []
        moves: list[tuple[int, int]] = []
        done = shorter = length = 0
        for start, end in spans:
            decoded = _decoded_in_pieces(line, start + 1, end - 1)
            if decoded is None:
                return None
            stand_in = json.dumps(f"{marker}{len(strings)}").encode()
            parts += (line[done:start], stand_in)
            length += start - done + len(stand_in)
            shorter += end - start - len(stand_in)
            moves.append((length, shorter))
            strings.append(decoded)
            done = end
        parts.append(line[done:])
        try:
            text = b"".join(parts).decode("utf-8")
        except UnicodeDecodeError:
            return None
        return cls(text, marker, strings, moves, text.isascii())

    def in_line(self, position: int) -> int:
        """Where `text`'s character `position` (between stand-ins, never inside one) is in the line's bytes."""
        at = position if self.ascii else len(self.text[:position].encode("utf-8"))
        moved = 0
        for ends, shorter in self.moves:
            if ends > at:
                break
            moved = shorter
        return at + moved

    def filled(self, value: dict[str, Any]) -> dict[str, Any] | None:
        """`value` with every stand-in replaced by its string, in place; None if one is not where a value is
        (a key, say), which the usual reading then handles."""
        if not self.strings:
            return value
        found = 0
        stack: list[dict[str, Any] | list[Any]] = [value]
        while stack:
            container = stack.pop()
            items = container.items() if isinstance(container, dict) else enumerate(container)
            for key, item in list(items):
                if isinstance(item, str) and item.startswith(self.marker):
                    container[key] = self.strings[int(item[len(self.marker) :])]  # pyright: ignore[reportArgumentType, reportCallIssue]
                    found += 1
                elif isinstance(item, dict | list):
                    stack.append(cast(dict[str, Any] | list[Any], item))
        return value if found == len(self.strings) else None


def _long_strings(line: bytes) -> list[tuple[int, int]] | None:
    """Where each string of at least `LONG_STRING_BYTES` is in `line`, quotes included; None when a string is
    never closed. Strings are found quote by quote (a search in C), never character by character; none in a
    line of many strings."""
    spans: list[tuple[int, int]] = []
    if line.count(b'"') > MAX_SCANNED_QUOTES:
        return spans
    position = 0
    while (opening := line.find(b'"', position)) >= 0:
        closing = line.find(b'"', opening + 1)
        while closing >= 0 and _escaped(line, closing):
            closing = line.find(b'"', closing + 1)
        if closing < 0:
            return None
        if closing - opening - 1 >= LONG_STRING_BYTES:
            spans.append((opening, closing + 1))
        position = closing + 1
    return spans


def _escaped(line: bytes, quote: int) -> bool:
    backslashes = 0
    while line[quote - 1 - backslashes] == _BACKSLASH:
        backslashes += 1
    return backslashes % 2 == 1


def _decoded_in_pieces(line: bytes, start: int, end: int) -> str | None:
    """The JSON string whose body is `line[start:end]`, decoded a piece at a time, the interpreter let go between
    pieces; None when it is not a valid JSON string. A piece never ends inside an escape or a UTF-8 character."""
    pieces: list[str] = []
    while start < end:
        cut = min(start + PIECE_BYTES, end)
        while cut < end and (line[cut] == _BACKSLASH or 0x80 <= line[cut] < 0xC0 or _BACKSLASH in line[cut - 6 : cut]):
            cut += 1
        try:
            pieces.append(json.loads('"' + line[start:cut].decode("utf-8") + '"'))
        except ValueError:  # UnicodeDecodeError too
            return None
        start = cut
        time.sleep(0)  # lets a waiting event loop have the interpreter
    return "".join(pieces)


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
