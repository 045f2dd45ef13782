"""The client-facing line transport over a socket pair, as a daemon's session has it: no line is dropped in
silence, none is held whole past the session's bound, no message is unwritable.

Lines go in through one end and the transport's output is read from the same end; the transport writes in
order, so "nothing was written for X" is proven by the next message's line coming first.
"""

from __future__ import annotations

import io
import json
import socket
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, cast

import anyio
import anyio.abc
import anyio.to_thread
import mcp_types as types
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from mcp_gateway import wire
from mcp_gateway.server.socket_streams import socket_streams

pytestmark = pytest.mark.anyio

STEP_SECONDS = 10.0
"""Generous bound for one line to go through the transport."""
UNWRITABLE_LEVELS = 3000
"""Deeper than the standard library's JSON writer can go."""
MAX_LINE_BYTES = 64 * 1024
"""The session's bound in these tests: small, so that a line past it is cheap to send."""


def nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"down": value}
    return value


@dataclass
class Wire:
    client: socket.socket
    client_reads: io.BufferedReader
    messages: MemoryObjectReceiveStream[SessionMessage | Exception]
    outgoing: MemoryObjectSendStream[SessionMessage]

    def send_line(self, line: bytes) -> None:
        self.client.sendall(line + b"\n")

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
    client, gateway = socket.socketpair()
    with client, client.makefile("rb") as reads:
        stream = await anyio.abc.UNIXSocketStream.from_socket(gateway)
        async with (
            stream,
            socket_streams(stream, BufferedByteReceiveStream(stream), anyio.Event(), MAX_LINE_BYTES) as (
                messages,
                outgoing,
            ),
        ):
            yield Wire(client, reads, messages, outgoing)


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


async def test_a_line_past_the_bound_is_read_past_and_its_request_answered_and_the_session_goes_on() -> None:
    arguments = {"blob": "x" * (4 * MAX_LINE_BYTES)}
    call = {"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": "n", "arguments": arguments}}
    async with transport() as lines:
        await anyio.to_thread.run_sync(lines.send_line, json.dumps(call).encode())
        answer = await lines.next_line()
        assert answer["id"] == 11
        assert answer["error"]["code"] == types.INVALID_REQUEST
        assert f"more than the {MAX_LINE_BYTES} the gateway reads" in answer["error"]["message"]
        lines.send_line(b'{"jsonrpc":"2.0","id":12,"method":"ping"}')
        item = await lines.next_message()
        assert isinstance(item, SessionMessage)
        assert isinstance(item.message, types.JSONRPCRequest)
        assert item.message.id == 12, "the line past the bound never reached the session, the next one did"


async def test_a_line_past_the_bound_with_its_id_last_as_the_sdks_write_it_gets_its_error_under_that_id() -> None:
    params = {"name": "n", "arguments": {"blob": "x" * (4 * MAX_LINE_BYTES)}}
    line = json.dumps({"method": "tools/call", "params": params, "jsonrpc": "2.0", "id": 21}).encode()
    async with transport() as lines:
        await anyio.to_thread.run_sync(lines.send_line, line)
        answer = await lines.next_line()
        assert answer["id"] == 21
        assert answer["error"]["code"] == types.INVALID_REQUEST
