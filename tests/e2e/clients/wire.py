"""What the mock model API hands a wire module and what it gets back: plain data, no web framework.

A wire module (`anthropic_wire`, `chat_wire`, `responses_wire`, `gemini_wire`) is pure: `answer(call,
script)` reads one HTTP request in its protocol and returns the `Exchange` (what the request meant, the
turn the script chose, the reply to send), or None when the request is not one of its routes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from clients.conversation import ModelRequest, Turn
from clients.script import Script

STREAM_MEDIA_TYPE = "text/event-stream"


@dataclass(frozen=True)
class HttpCall:
    method: str
    path: str
    query: Mapping[str, str]
    headers: Mapping[str, str]
    body: Any
    """The JSON body, None when there is none or it is not JSON."""


@dataclass(frozen=True)
class Reply:
    status: int = 200
    json_body: Any = None
    events: Sequence[str] | None = None
    """Server-sent events, each already framed ("event: …\\ndata: …\\n\\n"); sent one chunk each."""
    headers: Mapping[str, str] = field(default_factory=dict[str, str])


@dataclass(frozen=True)
class Exchange:
    request: ModelRequest | None
    turn: Turn | None
    reply: Reply


class Wire(Protocol):
    def __call__(self, call: HttpCall, script: Script) -> Exchange | None: ...


def sse(data: Any, event: str | None = None) -> str:
    """One server-sent event carrying `data` as compact JSON (or a bare string such as "[DONE]")."""
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n"


def split_in_two(text: str) -> list[str]:
    """A string as two stream deltas, so a client has to join partial JSON the way it does for a real model."""
    middle = len(text) // 2
    return [part for part in (text[:middle], text[middle:]) if part]


def not_found(call: HttpCall) -> Reply:
    return Reply(
        404, {"error": {"type": "not_found", "message": f"the mock model API has no {call.method} {call.path}"}}
    )
