"""The Gemini API, as Gemini CLI speaks it: `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`,
`:generateContent` and `:countTokens`.

Requests: `tools` [{functionDeclarations: [{name, parametersJsonSchema, …}]}] and `contents` whose parts
carry the model's `functionCall`s and the client's `functionResponse`s (`{"output": …}` or
`{"error": …}`; an image comes as `inlineData` among the response's own `parts` or next to it). Each
streamed event is a whole `GenerateContentResponse`: a function call arrives in one event, text in two.

Gemini CLI asks a small model first which model should answer (a `generateContent` with a
`responseJsonSchema`): it gets the smallest instance of that schema, so the session goes on as it would.
"""

from __future__ import annotations

import json
import re
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
from clients.wire import Exchange, HttpCall, Reply, sse

ROUTE = re.compile(r"^/(?:v1beta|v1|v1alpha)/models/(?P<model>[^/:]+):(?P<method>[A-Za-z]+)$")
ERROR_KEY = "error"


def answer(call: HttpCall, script: Script) -> Exchange | None:
    match = ROUTE.match(call.path)
    if call.method != "POST" or match is None:
        return None
    body = as_dict(call.body)
    method, model = match["method"], match["model"]
    if method == "countTokens":
        return Exchange(None, None, Reply(200, {"totalTokens": len(str(body)) // 4}))
    if method not in ("generateContent", "streamGenerateContent"):
        return None
    request = read_request(body)
    schema = as_dict(body.get("generationConfig")).get("responseJsonSchema")
    if request.kind == "conversation":
        turn: Turn = script.next_turn(request)
    else:
        turn = Answer(_json_text(smallest_instance(schema)) if schema else "ok")
    if method == "streamGenerateContent":
        return Exchange(request, turn, Reply(200, events=stream(turn, model)))
    return Exchange(request, turn, Reply(200, response(turn, model, final=True)))


def read_request(body: dict[str, Any]) -> ModelRequest:
    tools: dict[str, dict[str, Any]] = {}
    for group in map(as_dict, as_list(body.get("tools"))):
        for declaration in map(as_dict, as_list(group.get("functionDeclarations"))):
            tools[str(declaration.get("name"))] = declaration
    calls: list[ToolCall] = []
    results: list[ToolResult] = []
    for content in map(as_dict, as_list(body.get("contents"))):
        parts = [as_dict(part) for part in as_list(content.get("parts"))]
        for part in parts:
            if "functionCall" in part:
                function = as_dict(part["functionCall"])
                call_id = str(function.get("id") or f"gemini-call-{len(calls) + 1}")
                calls.append(ToolCall(str(function.get("name")), as_dict(function.get("args")), call_id))
        responses = [as_dict(part["functionResponse"]) for part in parts if "functionResponse" in part]
        loose_images = [_image(part) for part in parts if "inlineData" in part]
        for index, function in enumerate(responses):
            call_id = str(function.get("id") or (calls[len(results)].call_id if len(results) < len(calls) else ""))
            images = [_image(as_dict(p)) for p in as_list(function.get("parts")) if "inlineData" in as_dict(p)]
            if index == len(responses) - 1:
                images += loose_images
            payload = as_dict(function.get("response"))
            said: list[Text | Image] = [Text(text) for text in strings_in(payload)]
            results.append(tool_result(call_id, [*said, *images], ERROR_KEY in payload))
    kind = "conversation" if tools else "side"
    texts = tuple(strings_in([body.get("systemInstruction"), body.get("contents")]))
    return ModelRequest(kind, tools, tuple(calls), tuple(results), texts)


def _image(part: dict[str, Any]) -> Image:
    data = as_dict(part.get("inlineData"))
    return Image(str(data.get("mimeType", "")), str(data.get("data", "")))


def smallest_instance(schema: object) -> Any:
    """The smallest value a JSON schema (Gemini's upper-case types included) accepts."""
    node = as_dict(schema)
    if enum := as_list(node.get("enum")):
        return enum[0]
    kind = str(node.get("type", "object")).lower()
    if kind == "object":
        properties = as_dict(node.get("properties"))
        return {str(name): smallest_instance(properties.get(name)) for name in as_list(node.get("required"))}
    minimum: Any = node.get("minimum", 1)
    smallest: dict[str, Any] = {
        "string": "scripted",
        "integer": minimum,
        "number": minimum,
        "boolean": False,
        "array": [],
    }
    return smallest.get(kind)


def _json_text(value: Any) -> str:
    return json.dumps(value)


def _candidate(parts: list[dict[str, Any]], final: bool) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if final:
        candidate["finishReason"] = "STOP"
    return candidate


def response(turn: Turn, model: str, *, final: bool, text: str | None = None) -> dict[str, Any]:
    if isinstance(turn, ToolCall):
        parts = [{"functionCall": {"id": turn.call_id, "name": turn.name, "args": dict(turn.arguments)}}]
    else:
        parts = [{"text": turn.text if text is None else text}]
    usage = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}
    return {"candidates": [_candidate(parts, final)], "usageMetadata": usage, "modelVersion": model}


def stream(turn: Turn, model: str) -> list[str]:
    if isinstance(turn, ToolCall):
        return [sse(response(turn, model, final=True))]
    middle = len(turn.text) // 2
    first, second = turn.text[:middle], turn.text[middle:]
    return [sse(response(turn, model, final=False, text=first)), sse(response(turn, model, final=True, text=second))]
