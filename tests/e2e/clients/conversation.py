"""What a model request says and what the model answers, the same for every wire protocol.

Each wire module (`anthropic_wire`, `chat_wire`, `responses_wire`, `gemini_wire`) reads a client's request
into a `ModelRequest` and writes a `Turn` back in the client's own format. The script and the tests only
see these types, so one scenario drives every client and one assertion reads every client's requests.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

RequestKind = Literal["conversation", "side"]
"""A `conversation` request carries the session's tools and history; a `side` request is one a client
makes for itself (a title, a routing decision, a token count) and is answered with plain text."""


@dataclass(frozen=True)
class Image:
    mime_type: str
    data: str
    """Base64, as it travelled."""


@dataclass(frozen=True)
class ToolResult:
    """One tool result the client sent back to the model."""

    call_id: str
    texts: tuple[str, ...]
    images: tuple[Image, ...]
    is_error: bool | None
    """The protocol's own error flag; None when the protocol has none (the text must say it)."""

    @property
    def text(self) -> str:
        return "\n".join(self.texts)


@dataclass(frozen=True)
class ToolCall:
    """The model calls `name` (as the client named it) with `arguments`."""

    name: str
    arguments: Mapping[str, Any]
    call_id: str


@dataclass(frozen=True)
class Answer:
    """The model's final text: the session ends."""

    text: str


Turn = ToolCall | Answer


@dataclass(frozen=True)
class ModelRequest:
    """One request, as the model would understand it."""

    kind: RequestKind
    tools: Mapping[str, Mapping[str, Any]]
    """The tools offered, by the name the client gave each, with their definitions as sent."""
    calls: tuple[ToolCall, ...]
    """The model's earlier tool calls, in order, as the client replays them."""
    results: tuple[ToolResult, ...]
    """The tool results sent back so far, in order (the last one answers the latest call)."""
    texts: tuple[str, ...] = field(default=())
    """Every piece of text in the request (system prompt, instructions, messages), in order."""

    def tool_named(self, meta_tool: str) -> str | None:
        """The client's name for one of the gateway's meta-tools (`mcp__mcp-gateway__search_tools`, …)."""
        for name in self.tools:
            if name == meta_tool or name.endswith(("_" + meta_tool, "." + meta_tool, "/" + meta_tool)):
                return name
        return None

    def result_of(self, call: ToolCall) -> ToolResult | None:
        return next((result for result in self.results if result.call_id == call.call_id), None)


def first_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text`: clients may wrap a tool's text (Gemini CLI adds tags around it)."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start >= 0:
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return cast(dict[str, Any], value)
        start = text.find("{", start + 1)
    return None


def parse_arguments(raw: object) -> dict[str, Any]:
    """Tool-call arguments as an object: wires send them as an object or as a JSON string."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except ValueError:
            return {}
    return cast(dict[str, Any], raw) if isinstance(raw, dict) else {}


def as_list(value: object) -> list[Any]:
    return cast(list[Any], value) if isinstance(value, list) else []


def as_dict(value: object) -> dict[str, Any]:
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def strings_in(value: object) -> list[str]:
    """Every string inside a JSON value, depth first: the text of a request, whatever its shape."""
    found: list[str] = []
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(reversed(list(cast(dict[str, Any], item).values())))
        elif isinstance(item, list):
            stack.extend(reversed(cast(list[Any], item)))
    return found


def tool_result(call_id: str, parts: Sequence[Text | Image], is_error: bool | None) -> ToolResult:
    texts = tuple(part.text for part in parts if isinstance(part, Text))
    images = tuple(part for part in parts if isinstance(part, Image))
    return ToolResult(call_id, texts, images, is_error)


@dataclass(frozen=True)
class Text:
    text: str
