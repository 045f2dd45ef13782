"""Anthropic Messages, as Claude Code speaks it: `POST /v1/messages` (streamed as server-sent events or
not), `POST /v1/messages/count_tokens`, and the `HEAD /api/hello` reachability probe.

Requests: `tools` [{name, input_schema, …}], `system`, and `messages` whose content blocks carry the
model's `tool_use` and the client's `tool_result` (text and base64 `image` blocks, `is_error`). A stream is
message_start, ping, then per content block start / delta(s) / stop, message_delta (stop_reason), and
message_stop; a tool call's input arrives as `input_json_delta` fragments.
"""

from __future__ import annotations

import json
from typing import Any

from clients.conversation import (
    Answer,
    Image,
    ModelRequest,
    Text,
    ToolCall,
    ToolResult,
    Turn,
    as_dict,
    as_list,
    strings_in,
    tool_result,
)
from clients.script import Script
from clients.wire import Exchange, HttpCall, Reply, split_in_two, sse

MODEL = "claude-scripted"
MESSAGE_ID = "msg_scripted"


def answer(call: HttpCall, script: Script) -> Exchange | None:
    if call.method == "HEAD" and call.path == "/api/hello":
        return Exchange(None, None, Reply(200))
    if call.method != "POST":
        return None
    body = as_dict(call.body)
    if call.path == "/v1/messages/count_tokens":
        return Exchange(None, None, Reply(200, {"input_tokens": len(json.dumps(body)) // 4}))
    if call.path != "/v1/messages":
        return None
    request = read_request(body)
    turn = script.next_turn(request) if request.kind == "conversation" else Answer("ok")
    model = str(body.get("model", MODEL))
    if body.get("stream"):
        return Exchange(request, turn, Reply(200, events=stream(turn, model)))
    return Exchange(request, turn, Reply(200, message(turn, model)))


def read_request(body: dict[str, Any]) -> ModelRequest:
    tools = {str(tool["name"]): tool for tool in map(as_dict, as_list(body.get("tools"))) if "name" in tool}
    calls: list[ToolCall] = []
    results: list[ToolResult] = []
    for entry in map(as_dict, as_list(body.get("messages"))):
        for block in map(as_dict, as_list(entry.get("content"))):
            if block.get("type") == "tool_use":
                calls.append(ToolCall(str(block.get("name")), as_dict(block.get("input")), str(block.get("id"))))
            elif block.get("type") == "tool_result":
                results.append(_result(block))
    kind = "conversation" if tools else "side"
    texts = tuple(strings_in([body.get("system"), body.get("messages")]))
    return ModelRequest(kind, tools, tuple(calls), tuple(results), texts)


def _result(block: dict[str, Any]) -> ToolResult:
    content = block.get("content")
    parts: list[Text | Image] = []
    if isinstance(content, str):
        parts.append(Text(content))
    for item in map(as_dict, as_list(content)):
        if item.get("type") == "text":
            parts.append(Text(str(item.get("text", ""))))
        elif item.get("type") == "image":
            source = as_dict(item.get("source"))
            parts.append(Image(str(source.get("media_type", "")), str(source.get("data", ""))))
    return tool_result(str(block.get("tool_use_id")), parts, bool(block.get("is_error", False)))


def _block(turn: Turn) -> dict[str, Any]:
    if isinstance(turn, ToolCall):
        return {"type": "tool_use", "id": turn.call_id, "name": turn.name, "input": dict(turn.arguments)}
    return {"type": "text", "text": turn.text}


def _stop_reason(turn: Turn) -> str:
    return "tool_use" if isinstance(turn, ToolCall) else "end_turn"


def _usage() -> dict[str, int]:
    return {"input_tokens": 1, "output_tokens": 1}


def message(turn: Turn, model: str) -> dict[str, Any]:
    return {
        "id": MESSAGE_ID,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [_block(turn)],
        "stop_reason": _stop_reason(turn),
        "stop_sequence": None,
        "usage": _usage(),
    }


def stream(turn: Turn, model: str) -> list[str]:
    start: dict[str, Any] = {**message(turn, model), "content": [], "stop_reason": None}
    events = [sse({"type": "message_start", "message": start}, "message_start"), sse({"type": "ping"}, "ping")]
    if isinstance(turn, ToolCall):
        opening: dict[str, Any] = {**_block(turn), "input": {}}
        deltas = [
            {"type": "input_json_delta", "partial_json": part} for part in split_in_two(json.dumps(turn.arguments))
        ]
    else:
        opening = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": part} for part in split_in_two(turn.text)]
    events.append(sse({"type": "content_block_start", "index": 0, "content_block": opening}, "content_block_start"))
    events += [sse({"type": "content_block_delta", "index": 0, "delta": d}, "content_block_delta") for d in deltas]
    events.append(sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
    delta = {"type": "message_delta", "delta": {"stop_reason": _stop_reason(turn), "stop_sequence": None}}
    events.append(sse({**delta, "usage": {"output_tokens": 1}}, "message_delta"))
    events.append(sse({"type": "message_stop"}, "message_stop"))
    return events
