"""OpenAI Responses, as Codex speaks it: `POST /v1/responses`, streamed as server-sent events.

Requests: `tools` (functions, and `namespace` entries that group functions: a namespaced tool is named
`<namespace>/<name>` here and called back with both fields), and `input` items: messages, the model's
`function_call`s and the client's `function_call_output`s (a string, or `input_text` / `input_image`
items). A stream is response.created, then per output item `response.output_item.added`, its deltas and
`response.output_item.done`, then response.completed with the whole output and usage.
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
    parse_arguments,
    strings_in,
    tool_result,
)
from clients.script import Script
from clients.wire import Exchange, HttpCall, Reply, split_in_two, sse

PATHS = ("/v1/responses", "/responses")
RESPONSE_ID = "resp_scripted"
ITEM_ID = "item_scripted"
NAMESPACE_SEPARATOR = "/"
DATA_URL_PREFIX = "data:"


def answer(call: HttpCall, script: Script) -> Exchange | None:
    if call.method != "POST" or call.path not in PATHS:
        return None
    body = as_dict(call.body)
    request = read_request(body)
    turn = script.next_turn(request) if request.kind == "conversation" else Answer("ok")
    model = str(body.get("model", ""))
    if body.get("stream"):
        return Exchange(request, turn, Reply(200, events=stream(turn, model)))
    return Exchange(request, turn, Reply(200, response(turn, model)))


def read_request(body: dict[str, Any]) -> ModelRequest:
    tools: dict[str, dict[str, Any]] = {}
    for tool in map(as_dict, as_list(body.get("tools"))):
        if tool.get("type") == "namespace":
            for inner in map(as_dict, as_list(tool.get("tools"))):
                tools[f"{tool.get('name')}{NAMESPACE_SEPARATOR}{inner.get('name')}"] = inner
        elif "name" in tool:
            tools[str(tool["name"])] = tool
    calls: list[ToolCall] = []
    results: list[ToolResult] = []
    for item in map(as_dict, as_list(body.get("input"))):
        if item.get("type") == "function_call":
            name = str(item.get("name"))
            if item.get("namespace"):
                name = f"{item['namespace']}{NAMESPACE_SEPARATOR}{name}"
            calls.append(ToolCall(name, parse_arguments(item.get("arguments")), str(item.get("call_id"))))
        elif item.get("type") == "function_call_output":
            output: object = item.get("output")
            wrapped = as_dict(output)  # {"content": …, "success": …} in some versions, a bare string or list in others
            success = wrapped.get("success")
            parts = _parts(wrapped.get("content") if wrapped else output)
            results.append(tool_result(str(item.get("call_id")), parts, None if success is None else not success))
    kind = "conversation" if tools else "side"
    return ModelRequest(
        kind, tools, tuple(calls), tuple(results), tuple(strings_in([body.get("instructions"), body.get("input")]))
    )


def _parts(output: object) -> list[Text | Image]:
    if isinstance(output, str):
        return [Text(output)]
    parts: list[Text | Image] = []
    for item in map(as_dict, as_list(output)):
        if item.get("type") in ("input_text", "output_text", "text"):
            parts.append(Text(str(item.get("text", ""))))
        elif item.get("type") == "input_image":
            url = str(item.get("image_url", ""))
            if url.startswith(DATA_URL_PREFIX) and ";base64," in url:
                mime, data = url[len(DATA_URL_PREFIX) :].split(";base64,", 1)
                parts.append(Image(mime, data))
    return parts


def _item(turn: Turn) -> dict[str, Any]:
    if isinstance(turn, ToolCall):
        namespace, _, name = turn.name.rpartition(NAMESPACE_SEPARATOR)
        item: dict[str, Any] = {"type": "function_call", "id": ITEM_ID, "call_id": turn.call_id, "name": name}
        if namespace:
            item["namespace"] = namespace
        return {**item, "arguments": json.dumps(dict(turn.arguments)), "status": "completed"}
    content: list[dict[str, Any]] = [{"type": "output_text", "text": turn.text, "annotations": []}]
    return {"type": "message", "id": ITEM_ID, "role": "assistant", "status": "completed", "content": content}


def response(turn: Turn, model: str, status: str = "completed") -> dict[str, Any]:
    usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
    output = [_item(turn)] if status == "completed" else []
    return {"id": RESPONSE_ID, "object": "response", "status": status, "model": model, "output": output, "usage": usage}


def stream(turn: Turn, model: str) -> list[str]:
    events = [sse({"type": "response.created", "response": response(turn, model, "in_progress")}, "response.created")]
    done = _item(turn)
    if isinstance(turn, ToolCall):
        added: dict[str, Any] = {**done, "arguments": "", "status": "in_progress"}
        deltas = [
            {"type": "response.function_call_arguments.delta", "item_id": ITEM_ID, "output_index": 0, "delta": part}
            for part in split_in_two(done["arguments"])
        ]
    else:
        added = {**done, "content": [], "status": "in_progress"}
        deltas = [
            {
                "type": "response.output_text.delta",
                "item_id": ITEM_ID,
                "output_index": 0,
                "content_index": 0,
                "delta": part,
            }
            for part in split_in_two(turn.text)
        ]
    events.append(
        sse({"type": "response.output_item.added", "output_index": 0, "item": added}, "response.output_item.added")
    )
    events += [sse(delta, str(delta["type"])) for delta in deltas]
    events.append(
        sse({"type": "response.output_item.done", "output_index": 0, "item": done}, "response.output_item.done")
    )
    events.append(sse({"type": "response.completed", "response": response(turn, model)}, "response.completed"))
    return events
