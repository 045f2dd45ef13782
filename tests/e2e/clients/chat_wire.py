"""OpenAI chat completions, as OpenCode's `@ai-sdk/openai-compatible` provider speaks it:
`POST /v1/chat/completions` (streamed as `data:` chunks ending with `[DONE]`, or not) and `GET /v1/models`.

Requests: `tools` [{type: function, function: {name, parameters}}], `messages` with the model's
`tool_calls` on assistant messages and each result in a `tool` message (`tool_call_id`, text content).
The protocol has no error flag on a tool result, and no image in one: a client that passes a tool's image
sends it in a user message after the tool messages (`image_url` with a data URL), which is read here as
part of the result before it. A stream sends the call's arguments as string fragments, then a chunk with
`finish_reason`, then usage when `stream_options.include_usage` asks for it.
"""

from __future__ import annotations

import json
import time
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
    parse_arguments,
    strings_in,
    tool_result,
)
from clients.script import Script
from clients.wire import Exchange, HttpCall, Reply, split_in_two, sse

PATHS = ("/v1/chat/completions", "/chat/completions")
MODELS_PATHS = ("/v1/models", "/models")
COMPLETION_ID = "chatcmpl-scripted"
DATA_URL_PREFIX = "data:"


def answer(call: HttpCall, script: Script) -> Exchange | None:
    if call.method == "GET" and call.path in MODELS_PATHS:
        return Exchange(None, None, Reply(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]}))
    if call.method != "POST" or call.path not in PATHS:
        return None
    body = as_dict(call.body)
    request = read_request(body)
    turn = script.next_turn(request) if request.kind == "conversation" else Answer("Scripted title")
    model = str(body.get("model", ""))
    if body.get("stream"):
        usage = bool(as_dict(body.get("stream_options")).get("include_usage"))
        return Exchange(request, turn, Reply(200, events=stream(turn, model, usage=usage)))
    return Exchange(request, turn, Reply(200, completion(turn, model)))


def read_request(body: dict[str, Any]) -> ModelRequest:
    tools: dict[str, dict[str, Any]] = {}
    for tool in map(as_dict, as_list(body.get("tools"))):
        function = as_dict(tool.get("function"))
        if "name" in function:
            tools[str(function["name"])] = tool
    calls: list[ToolCall] = []
    results: list[ToolResult] = []
    for message in map(as_dict, as_list(body.get("messages"))):
        role = message.get("role")
        if role == "assistant":
            for entry in map(as_dict, as_list(message.get("tool_calls"))):
                function = as_dict(entry.get("function"))
                calls.append(
                    ToolCall(
                        str(function.get("name")), parse_arguments(function.get("arguments")), str(entry.get("id"))
                    )
                )
        elif role == "tool":
            results.append(tool_result(str(message.get("tool_call_id")), _parts(message.get("content")), None))
        elif (
            role == "user"
            and results
            and (images := [p for p in _parts(message.get("content")) if isinstance(p, Image)])
        ):
            last = results[-1]
            results[-1] = ToolResult(last.call_id, last.texts, (*last.images, *images), last.is_error)
    kind = "conversation" if tools else "side"
    return ModelRequest(kind, tools, tuple(calls), tuple(results), tuple(strings_in(body.get("messages"))))


def _parts(content: object) -> list[Text | Image]:
    if isinstance(content, str):
        return [Text(content)]
    parts: list[Text | Image] = []
    for part in map(as_dict, as_list(content)):
        if part.get("type") == "text":
            parts.append(Text(str(part.get("text", ""))))
        elif part.get("type") == "image_url":
            url = str(as_dict(part.get("image_url")).get("url", ""))
            if url.startswith(DATA_URL_PREFIX) and ";base64," in url:
                mime, data = url[len(DATA_URL_PREFIX) :].split(";base64,", 1)
                parts.append(Image(mime, data))
    return parts


def _chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {
        "id": COMPLETION_ID,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [choice],
    }


def _usage() -> dict[str, int]:
    return {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}


def stream(turn: Turn, model: str, *, usage: bool) -> list[str]:
    if isinstance(turn, ToolCall):
        opening = {"index": 0, "id": turn.call_id, "type": "function", "function": {"name": turn.name, "arguments": ""}}
        chunks = [_chunk(model, {"role": "assistant", "content": None, "tool_calls": [opening]})]
        fragments = split_in_two(_arguments(turn))
        chunks += [_chunk(model, {"tool_calls": [{"index": 0, "function": {"arguments": f}}]}) for f in fragments]
        chunks.append(_chunk(model, {}, "tool_calls"))
    else:
        chunks = [_chunk(model, {"role": "assistant", "content": ""})]
        chunks += [_chunk(model, {"content": part}) for part in split_in_two(turn.text)]
        chunks.append(_chunk(model, {}, "stop"))
    events = [sse(chunk) for chunk in chunks]
    if usage:
        events.append(sse({**_chunk(model, {}), "choices": [], "usage": _usage()}))
    return [*events, sse("[DONE]")]


def completion(turn: Turn, model: str) -> dict[str, Any]:
    if isinstance(turn, ToolCall):
        call = {"id": turn.call_id, "type": "function", "function": {"name": turn.name, "arguments": _arguments(turn)}}
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish = "tool_calls"
    else:
        message, finish = {"role": "assistant", "content": turn.text}, "stop"
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return {
        "id": COMPLETION_ID,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [choice],
        "usage": _usage(),
    }


def _arguments(turn: ToolCall) -> str:
    return json.dumps(dict(turn.arguments))
