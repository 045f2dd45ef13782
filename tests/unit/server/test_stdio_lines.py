"""The client-facing line transport over two pipes: no line is dropped in silence, no message is unwritable.

Lines go in through one pipe and the transport's output is read from the other; the transport writes in
order, so "nothing was written for X" is proven by the next message's line coming first.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, cast

import anyio
import anyio.to_thread
import mcp_types as types
import pytest
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from mcp_gateway import wire
from mcp_gateway.front.client_lines import ClientLines
from mcp_gateway.server.stdio import line_streams

pytestmark = pytest.mark.anyio

STEP_SECONDS = 10.0
"""Generous bound for one line to go through the transport."""
UNWRITABLE_LEVELS = 3000
"""Deeper than the standard library's JSON writer can go."""


def nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"down": value}
    return value


@dataclass
class Wire:
    client_writes: int
    client_reads: io.BufferedReader
    messages: MemoryObjectReceiveStream[SessionMessage | Exception]
    outgoing: MemoryObjectSendStream[SessionMessage]

    def send_line(self, line: bytes) -> None:
        os.write(self.client_writes, line + b"\n")

    async def next_line(self) -> dict[str, Any]:
        with anyio.fail_after(STEP_SECONDS):
            line = await anyio.to_thread.run_sync(self.client_reads.readline, abandon_on_cancel=True)
        return cast(dict[str, Any], json.loads(line))

    async def next_message(self) -> SessionMessage | Exception:
        with anyio.fail_after(STEP_SECONDS):
            return await self.messages.receive()

    async def write(self, message: types.JSONRPCMessage) -> None:
        with anyio.fail_after(STEP_SECONDS):
            await self.outgoing.send(SessionMessage(message))


@asynccontextmanager
async def transport() -> AsyncGenerator[Wire]:
    gateway_reads, client_writes = os.pipe()
    client_reads, gateway_writes = os.pipe()
    with os.fdopen(client_reads, "rb") as reads:
        try:
            async with line_streams(ClientLines(gateway_reads, gateway_writes)) as (messages, outgoing):
                yield Wire(client_writes, reads, messages, outgoing)
        finally:
            with contextlib.suppress(OSError):
                os.close(client_writes)


def ping(request_id: int) -> types.JSONRPCResponse:
    return types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result={})


async def test_a_valid_line_reaches_the_session_as_a_message() -> None:
    async with transport() as lines:
        lines.send_line(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
        item = await lines.next_message()
        assert isinstance(item, SessionMessage)
        assert isinstance(item.message, types.JSONRPCRequest)
        assert item.message.id == 1


async def test_a_message_nested_past_the_sdk_validator_reaches_the_session() -> None:
    params = {"name": "x", "arguments": nested(300)}
    async with transport() as lines:
        lines.send_line(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}).encode())
        item = await lines.next_message()
        assert isinstance(item, SessionMessage)
        assert isinstance(item.message, types.JSONRPCRequest)
        assert item.message.params == params


@pytest.mark.parametrize(
    ("line", "code", "request_id"),
    [
        (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[1]}', types.INVALID_PARAMS, 7),
        (b'{"jsonrpc":"2.0","id":"seven","method":"tools/li', types.PARSE_ERROR, "seven"),
        (b'{"jsonrpc":"1.0","id":8,"method":"ping"}', types.INVALID_REQUEST, 8),
        (b"{not json", types.PARSE_ERROR, None),
    ],
)
async def test_an_unusable_request_line_is_answered_by_the_transport_and_never_reaches_the_session(
    line: bytes, code: int, request_id: types.RequestId | None
) -> None:
    async with transport() as lines:
        lines.send_line(line)
        answer = await lines.next_line()
        assert answer == {"jsonrpc": "2.0", "id": request_id, "error": answer["error"]}
        assert answer["error"]["code"] == code
        assert answer["error"]["message"].endswith("fix the message and send it again.")
        lines.send_line(b'{"jsonrpc":"2.0","id":9,"method":"ping"}')
        item = await lines.next_message()
        assert isinstance(item, SessionMessage)
        assert isinstance(item.message, types.JSONRPCRequest)
        assert item.message.id == 9, "the unusable line never reached the session"


async def test_an_unusable_notification_or_response_is_not_answered() -> None:
    async with transport() as lines:
        lines.send_line(b'{"jsonrpc":"2.0","method":"notifications/progress","params":"half"}')
        lines.send_line(b'{"jsonrpc":"2.0","id":5,"error":"it broke"}')
        lines.send_line(b'{"jsonrpc":"2.0","id":6,"method":"ping"}')
        item = await lines.next_message()
        assert isinstance(item, SessionMessage)
        assert isinstance(item.message, types.JSONRPCRequest)
        await lines.write(ping(6))
        assert await lines.next_line() == {"jsonrpc": "2.0", "id": 6, "result": {}}


async def test_a_response_past_what_pydantic_writes_is_written_whole() -> None:
    result: dict[str, Any] = {"content": [], "structuredContent": nested(400)}
    async with transport() as lines:
        await lines.write(types.JSONRPCResponse(jsonrpc="2.0", id=3, result=result))
        assert await lines.next_line() == {"jsonrpc": "2.0", "id": 3, "result": result}


async def test_a_response_too_deep_to_write_becomes_an_internal_error_for_the_same_request() -> None:
    async with transport() as lines:
        await lines.write(types.JSONRPCResponse(jsonrpc="2.0", id=4, result={"x": nested(UNWRITABLE_LEVELS)}))
        answer = await lines.next_line()
        assert answer["id"] == 4
        assert answer["error"]["code"] == types.INTERNAL_ERROR
        assert str(wire.MAX_DEPTH) in answer["error"]["message"]
        await lines.write(ping(5))
        assert await lines.next_line() == {"jsonrpc": "2.0", "id": 5, "result": {}}


async def test_a_notification_too_deep_to_write_is_dropped_and_writing_goes_on() -> None:
    params = {"progressToken": 1, "progress": 1, "deep": nested(UNWRITABLE_LEVELS)}
    async with transport() as lines:
        await lines.write(types.JSONRPCNotification(jsonrpc="2.0", method="notifications/progress", params=params))
        await lines.write(ping(6))
        assert await lines.next_line() == {"jsonrpc": "2.0", "id": 6, "result": {}}
