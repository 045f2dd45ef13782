"""How long one client line may be, and what a longer one gets: the one home of both, for the front (which
refuses such a line before it is sent anywhere) and the daemon (which refuses it from any other connection).

A line longer than its bound is never held whole, let alone parsed: it is read past keeping its first and last
`ID_SEARCH_BYTES` (`TooLong`), where its request's id is, and that request gets an error saying why, under
its own id (`refusal`). Standard library only: the front uses it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

MAX_PRIVATE_LINE_BYTES = 64 * 1024 * 1024
"""One message from a private daemon's client, as the gateway takes one from a remote server (`downstream.connect`):
no other session shares its event loop."""
MAX_SHARED_LINE_BYTES = 4 * 1024 * 1024
"""One message from a client of the shared daemon, whose event loop and memory every session of the workspace
shares: a larger line is refused unread (its request answered with an error) rather than parsed in one piece,
which would hold the interpreter for a moment per megabyte while the other sessions wait. A tool's arguments
are a few kilobytes; a file sent inline that large belongs in a path the tool reads."""
ID_SEARCH_BYTES = 64 * 1024
"""How much of each end of a line too long to read is kept to find its request's id."""
INVALID_REQUEST = -32600

RequestId = int | str


class TooLong(NamedTuple):  # not a dataclass: the front must not import dataclasses (15 ms of its start)
    """A line longer than its bound, read past: its beginning, its end, and its length."""

    head: bytes
    tail: bytes
    size: int

    def request_id(self) -> RequestId | None:
        """The id of the request the line was, when its beginning or its end shows it."""
        found = leading_id(self.head.decode("utf-8", errors="replace"))
        if found is None:  # written last, as the SDKs' clients write it
            found = trailing_id(self.tail.decode("utf-8", errors="replace"))
        return found


def refusal(line: TooLong, max_line_bytes: int) -> dict[str, Any]:
    """The JSON-RPC error response the request of `line` gets (a null id when none can be found)."""
    message = (
        f"Invalid request: this message is {line.size} bytes, more than the {max_line_bytes} the gateway reads in "
        "one, so nothing was run; send the data in smaller pieces, or give the tool a file path to read instead."
    )
    error = {"code": INVALID_REQUEST, "message": message}
    return {"jsonrpc": "2.0", "id": line.request_id(), "error": error}


def leading_id(text: str) -> RequestId | None:
    """The request id of a JSON object of which `text` is only the beginning (a line too long to read whole),
    when the id is among its first complete members, as clients write it."""
    return usable_id(leading_members(text).get("id"))


_TRAILING_ID = re.compile(r'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,256}")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$')


def trailing_id(text: str) -> RequestId | None:
    """The request id of a JSON object of which `text` is only the end, when the id is its last member (or
    the last but `"jsonrpc"`), as the official SDKs' clients write it."""
    found = _TRAILING_ID.search(text)
    if found is None:
        return None
    try:
        return usable_id(json.loads(found.group(1)))
    except ValueError:
        return None


def leading_members(text: str) -> dict[str, Any]:
    """The complete top-level members at the start of a broken JSON object (clients write the id early)."""
    return {key: value for key, value, _, _ in object_members(text)}


def object_members(text: str) -> Iterator[tuple[str, Any, int, int]]:
    """The top-level members of the JSON object `text` begins with, in order: each key, its value, and where the
    value's text starts and ends. It stops, raising nothing, at the first thing that is not one more complete
    member; what follows the last one (`text[end:]`) says whether the object was closed."""
    decoder = json.JSONDecoder()
    position = _skip_space(text, 0)
    if not text.startswith("{", position):
        return
    position += 1
    try:
        while True:
            position = _skip_space(text, position)
            if not text.startswith('"', position):
                return
            key, position = decoder.raw_decode(text, position)
            position = _skip_space(text, position)
            if not text.startswith(":", position):
                return
            start = _skip_space(text, position + 1)
            value, end = decoder.raw_decode(text, start)
            yield key, value, start, end
            position = _skip_space(text, end)
            if not text.startswith(",", position):
                return
            position += 1
    except (ValueError, RecursionError):
        return


def usable_id(value: object) -> RequestId | None:
    """`value` when it can be a JSON-RPC request id (a string or an integer, never a boolean)."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    return value


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position
