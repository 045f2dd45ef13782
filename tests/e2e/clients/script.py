"""The scripted model: what it answers to each conversation request, decided from what the client sent.

The step is the number of tool calls already in the conversation the client replays, so the script holds
no state of its own and a client that retries a request gets the same answer. Every step after the first
reads the previous tool result as the client sent it back: the tool to execute is the top hit of the
`search_tools` result, so a session that gets through proves the result reached the model.

`GatewayTour` is the session the end-to-end tests run: search "add two numbers", execute the top hit
with 2 and 3, execute the same server's `get-tiny-image`, execute the top hit with an argument of the
wrong type, then answer. `ExecuteOnce` runs one given tool, then answers. `AnswerAtOnce` answers the first
request with text (for measuring it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from clients.conversation import Answer, ModelRequest, ToolCall, ToolResult, Turn, as_dict, as_list, first_json_object

SEARCH_QUERY = "add two numbers"
SUM_ARGUMENTS = {"a": 2, "b": 3}
WRONG_SUM_ARGUMENTS = {"a": "two", "b": 3}
"""`a` must be a number: the gateway refuses the call before waking the server."""
IMAGE_TOOL = "get-tiny-image"
FINAL_TEXT = "Scripted session over."
MISSING_TOOL = "Stopped: the client did not offer the gateway's {tool}."


class Script(Protocol):
    def next_turn(self, request: ModelRequest) -> Turn: ...


class ExecuteOnce:
    """Calls `execute_tool` once with a given tool and arguments, then answers."""

    def __init__(self, tool: str, arguments: dict[str, Any]) -> None:
        self.tool = tool
        self.arguments = arguments

    def next_turn(self, request: ModelRequest) -> Turn:
        if request.calls:
            return Answer(FINAL_TEXT)
        name = request.tool_named("execute_tool")
        if name is None:
            return Answer(MISSING_TOOL.format(tool="execute_tool"))
        return ToolCall(name, {"tool": self.tool, "arguments": self.arguments}, call_id="call_1_execute_tool")


class AnswerAtOnce:
    """Answers every request with text: the first request is all a measurement needs."""

    def next_turn(self, request: ModelRequest) -> Turn:
        return Answer(FINAL_TEXT)


@dataclass(frozen=True)
class Step:
    meta_tool: str
    arguments: Callable[[ModelRequest, ToolResult | None], dict[str, Any] | str]
    """The call's arguments, or a sentence saying why the script cannot go on."""


def _search(request: ModelRequest, previous: ToolResult | None) -> dict[str, Any] | str:
    return {"query": SEARCH_QUERY}


def top_hit(request: ModelRequest) -> str | None:
    """The qualified name of the first `search_tools` hit, read from the result the client sent back."""
    return top_hit_of(request.results[0]) if request.results else None


def top_hit_of(result: ToolResult) -> str | None:
    payload = first_json_object(result.text) or {}
    hits = as_list(payload.get("results"))
    first = as_dict(hits[0]) if hits else {}
    return str(first["tool"]) if "tool" in first else None


def _execute_top_hit(request: ModelRequest, previous: ToolResult | None) -> dict[str, Any] | str:
    tool = top_hit(request)
    if tool is None:
        text = previous.text if previous else ""
        return f"Stopped: the search result that came back has no hit: {text[:400]}"
    return {"tool": tool, "arguments": SUM_ARGUMENTS}


def _execute_image(request: ModelRequest, previous: ToolResult | None) -> dict[str, Any] | str:
    tool = top_hit(request) or ""
    server, _, _ = tool.rpartition(".")
    return {"tool": f"{server}.{IMAGE_TOOL}", "arguments": {}}


def _execute_wrong_arguments(request: ModelRequest, previous: ToolResult | None) -> dict[str, Any] | str:
    return {"tool": top_hit(request) or "", "arguments": WRONG_SUM_ARGUMENTS}


class GatewayTour:
    """search_tools, then execute_tool three times (a sum, an image, wrong arguments), then a final answer."""

    steps = (
        Step("search_tools", _search),
        Step("execute_tool", _execute_top_hit),
        Step("execute_tool", _execute_image),
        Step("execute_tool", _execute_wrong_arguments),
    )

    def next_turn(self, request: ModelRequest) -> Turn:
        done = len(request.calls)
        if done >= len(self.steps):
            return Answer(FINAL_TEXT)
        step = self.steps[done]
        name = request.tool_named(step.meta_tool)
        if name is None:
            return Answer(MISSING_TOOL.format(tool=step.meta_tool))
        previous = request.results[-1] if request.results else None
        arguments = step.arguments(request, previous)
        if isinstance(arguments, str):
            return Answer(arguments)
        return ToolCall(name, arguments, call_id=f"call_{done + 1}_{step.meta_tool}")
