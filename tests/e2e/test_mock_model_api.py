"""The mock model API itself, over real HTTP: each wire reads a client's request the way the client wrote it
(shapes recorded from the real CLIs) and streams the scripted turn so that a client can put it together.

These run in well under a second and start no client: when an end-to-end client test fails, these say
whether the mock or the client is at fault.
"""

from __future__ import annotations

import json
from typing import Any, cast

import anyio
import httpx2
import pytest
from clients.conversation import ModelRequest, ToolCall, ToolResult
from clients.mock_api import MockApi, running_mock_api
from clients.script import FINAL_TEXT, MISSING_TOOL, SEARCH_QUERY, SUM_ARGUMENTS, AnswerAtOnce, GatewayTour

pytestmark = [pytest.mark.anyio]

HTTP_SECONDS = 10.0
HITS = json.dumps({"results": [{"tool": "everything.get-sum", "confidence": "high"}]})
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


async def post(mock: MockApi, path: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """POST `body`; the data of each server-sent event (a JSON object) in order, `[DONE]` left out."""
    with anyio.fail_after(HTTP_SECONDS):
        async with httpx2.AsyncClient(base_url=mock.base_url) as http:
            response = await http.post(path, json=body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    data = [line.removeprefix("data: ") for line in response.text.splitlines() if line.startswith("data: ")]
    return [cast(dict[str, Any], json.loads(item)) for item in data if item != "[DONE]"]


def last_request(mock: MockApi) -> ModelRequest:
    request = mock.recorded[-1].request
    assert request is not None
    return request


async def test_claude_code_gets_a_streamed_tool_call_it_can_put_together_then_the_call_the_result_asks_for() -> None:
    tools: list[dict[str, Any]] = [{"name": f"mcp__mcp-gateway__{t}"} for t in ("search_tools", "execute_tool")]
    asked: list[dict[str, Any]] = [{"role": "user", "content": "add"}]
    first: dict[str, Any] = {"model": "m", "stream": True, "tools": tools, "messages": asked}
    async with running_mock_api(GatewayTour()) as mock:
        events = await post(mock, "/v1/messages", first)
        use = next(e["content_block"] for e in events if e["type"] == "content_block_start")
        fragments = [e["delta"]["partial_json"] for e in events if e["type"] == "content_block_delta"]
        stop = next(e["delta"]["stop_reason"] for e in events if e["type"] == "message_delta")
        assistant = {"role": "assistant", "content": [{**use, "input": json.loads("".join(fragments))}]}
        result = {"type": "tool_result", "tool_use_id": use["id"], "content": [{"type": "text", "text": HITS}]}
        second = {**first, "messages": [*asked, assistant, {"role": "user", "content": [result]}]}
        events = await post(mock, "/v1/messages", second)

    assert (use["name"], json.loads("".join(fragments)), stop) == (
        tools[0]["name"],
        {"query": SEARCH_QUERY},
        "tool_use",
    )
    assert len(fragments) == 2  # a model streams a call's input in pieces; the client must join them
    follow = next(e["content_block"] for e in events if e["type"] == "content_block_start")
    fragments = [e["delta"]["partial_json"] for e in events if e["type"] == "content_block_delta"]
    assert follow["name"] == tools[1]["name"]
    assert json.loads("".join(fragments)) == {"tool": "everything.get-sum", "arguments": SUM_ARGUMENTS}


async def test_a_client_that_offers_no_gateway_tool_gets_a_final_answer_that_says_so() -> None:
    body = {"model": "m", "stream": True, "tools": [{"name": "Bash"}], "messages": [{"role": "user", "content": "x"}]}
    async with running_mock_api(GatewayTour()) as mock:
        events = await post(mock, "/v1/messages", body)

    text = "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta")
    assert text == MISSING_TOOL.format(tool="search_tools")


async def test_opencode_chat_completions_stream_a_call_and_read_an_image_sent_after_the_tool_message() -> None:
    names = [f"mcp-gateway_{t}" for t in ("search_tools", "execute_tool")]
    tools = [{"type": "function", "function": {"name": name}} for name in names]
    call = {"id": "c1", "type": "function", "function": {"name": names[1], "arguments": "{}"}}
    image = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}
    messages = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "Here's the image"},
        {"role": "user", "content": [{"type": "text", "text": "Attached media from tool result:"}, image]},
    ]
    body = {
        "model": "m",
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": tools,
        "messages": messages,
    }
    async with running_mock_api(AnswerAtOnce()) as mock:
        chunks = await post(mock, "/v1/chat/completions", body)
        request = last_request(mock)

    assert request.results == (ToolResult("c1", ("Here's the image",), request.results[0].images, None),)
    assert [(i.mime_type, i.data) for i in request.results[0].images] == [("image/png", PNG)]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == FINAL_TEXT
    assert chunks[-1]["usage"]["total_tokens"] > 0  # include_usage asked for a last chunk with usage


async def test_a_title_request_without_tools_is_answered_with_text_and_not_played_as_a_turn() -> None:
    body = {"model": "m", "stream": True, "messages": [{"role": "system", "content": "You are a title generator."}]}
    async with running_mock_api(GatewayTour()) as mock:
        await post(mock, "/v1/chat/completions", body)

    assert mock.conversation() == []
    assert last_request(mock).kind == "side"


async def test_codex_responses_name_a_namespaced_tool_and_read_its_output_items() -> None:
    namespace = {
        "type": "namespace",
        "name": "mcp__mcp_gateway",
        "tools": [{"type": "function", "name": "search_tools"}],
    }
    async with running_mock_api(GatewayTour()) as mock:
        events = await post(mock, "/v1/responses", {"model": "m", "stream": True, "tools": [namespace], "input": []})
        done = next(e["item"] for e in events if e["type"] == "response.output_item.done")
        output = [
            {"type": "input_text", "text": "Output:"},
            {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"},
        ]
        replayed = [
            {**done, "type": "function_call"},
            {"type": "function_call_output", "call_id": done["call_id"], "output": output},
        ]
        await post(mock, "/v1/responses", {"model": "m", "stream": True, "tools": [namespace], "input": replayed})
        request = last_request(mock)

    assert (done["namespace"], done["name"], json.loads(done["arguments"])) == (
        "mcp__mcp_gateway",
        "search_tools",
        {"query": SEARCH_QUERY},
    )
    assert events[-1]["type"] == "response.completed"
    assert request.calls == (ToolCall("mcp__mcp_gateway/search_tools", {"query": SEARCH_QUERY}, done["call_id"]),)
    assert [(i.mime_type, i.data) for i in request.results[0].images] == [("image/png", PNG)]


async def test_gemini_routing_request_gets_the_smallest_answer_its_schema_allows() -> None:
    schema = {
        "type": "OBJECT",
        "properties": {"reasoning": {"type": "STRING"}, "score": {"type": "INTEGER", "minimum": 1}},
        "required": ["reasoning", "score"],
    }
    body = {
        "contents": [{"role": "user", "parts": [{"text": "x"}]}],
        "generationConfig": {"responseJsonSchema": schema},
    }
    async with running_mock_api(GatewayTour()) as mock, httpx2.AsyncClient(base_url=mock.base_url) as http:
        with anyio.fail_after(HTTP_SECONDS):
            response = await http.post("/v1beta/models/flash-lite:generateContent", json=body)

    text = response.json()["candidates"][0]["content"]["parts"][0]["text"]
    assert json.loads(text) == {"reasoning": "scripted", "score": 1}


async def test_gemini_function_responses_carry_the_error_flag_and_images_beside_them() -> None:
    declarations = [{"name": f"mcp_mcp-gateway_{t}"} for t in ("search_tools", "execute_tool")]
    contents: list[dict[str, Any]] = [
        {"role": "user", "parts": [{"text": "x"}]},
        {"role": "model", "parts": [{"functionCall": {"id": "g1", "name": declarations[1]["name"], "args": {}}}]},
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"id": "g1", "name": "execute_tool", "response": {"error": "bad arguments"}}},
                {"inlineData": {"mimeType": "image/png", "data": PNG}},
            ],
        },
    ]
    body: dict[str, Any] = {"contents": contents, "tools": [{"functionDeclarations": declarations}]}
    async with running_mock_api(AnswerAtOnce()) as mock:
        await post(mock, "/v1beta/models/pro:streamGenerateContent", body)
        request = last_request(mock)

    (result,) = request.results
    assert (result.call_id, result.is_error, result.texts) == ("g1", True, ("bad arguments",))
    assert [(i.mime_type, i.data) for i in result.images] == [("image/png", PNG)]


async def test_unknown_routes_are_404_and_recorded_and_the_proxy_refuses_and_records_what_it_was_asked() -> None:
    async with running_mock_api(AnswerAtOnce()) as mock:
        with anyio.fail_after(HTTP_SECONDS):
            async with httpx2.AsyncClient(base_url=mock.base_url) as http:
                missing = await http.get("/v1/nothing-here")
            stream = await anyio.connect_tcp("127.0.0.1", mock.proxy_port)
            async with stream:
                await stream.send(b"CONNECT telemetry.example:443 HTTP/1.1\r\nHost: telemetry.example:443\r\n\r\n")
                answer = await stream.receive()

    assert missing.status_code == 404
    assert mock.summary() == ["GET /v1/nothing-here -> 404"]
    assert answer.startswith(b"HTTP/1.1 403")
    assert mock.proxied == ["CONNECT telemetry.example:443 HTTP/1.1"]
