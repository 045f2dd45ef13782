"""A connection's `Link` tells the server's own errors from the SDK's, and keeps unusable tool entries out."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from mcp_gateway import wire
from mcp_gateway.downstream.link import MARK, Link, MalformedReply, ServerError


def as_raised(message: SessionMessage | Exception) -> MCPError:
    """The `MCPError` the SDK raises for an error response, as `send_raw_request` builds it."""
    assert isinstance(message, SessionMessage)
    assert isinstance(message.message, types.JSONRPCError)
    error = message.message.error
    return MCPError(code=error.code, message=error.message, data=error.data)


def server_error(code: int, message: str, **data: Any) -> SessionMessage:
    error = (
        types.ErrorData(code=code, message=message, data=data) if data else types.ErrorData(code=code, message=message)
    )
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=1, error=error))


@pytest.mark.parametrize("code", [types.CONNECTION_CLOSED, types.REQUEST_TIMEOUT, types.INVALID_PARAMS])
def test_a_servers_error_is_its_own_whatever_its_code(code: int) -> None:
    link = Link()
    raised = as_raised(link.incoming(server_error(code, "Connection closed", detail=[1, 2])))
    assert link.origin(raised) == ServerError(code, "Connection closed", {"detail": [1, 2]})


def test_an_error_the_sdk_raised_itself_has_no_server_origin() -> None:
    assert Link().origin(MCPError(code=types.CONNECTION_CLOSED, message="Connection closed")) is None


def test_a_server_cannot_forge_the_mark_of_a_link() -> None:
    link = Link()
    forged = server_error(types.CONNECTION_CLOSED, "gone", **{MARK: "guessed", "malformed": "no"})
    origin = link.origin(as_raised(link.incoming(forged)))
    assert isinstance(origin, ServerError)
    assert origin.data == {MARK: "guessed", "malformed": "no"}


def test_another_links_mark_does_not_count() -> None:
    first, second = Link(), Link()
    assert second.origin(as_raised(first.incoming(server_error(-32000, "x")))) is None


def test_a_malformed_reply_fails_its_request_with_the_reason() -> None:
    link = Link()
    unreadable = wire.decode(b'{"jsonrpc":"2.0","id":7,"result":[1]}')
    assert isinstance(unreadable, wire.Unreadable)
    reply = link.incoming(link.malformed_reply(unreadable))
    assert isinstance(reply, SessionMessage)
    assert isinstance(reply.message, types.JSONRPCError)
    assert reply.message.id == 7
    assert link.origin(as_raised(reply)) == MalformedReply("the result must be an object")


def listing_reply(request_id: int, tools: list[Any]) -> SessionMessage:
    return SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result={"tools": tools}))


def test_unusable_entries_of_a_tools_list_page_are_left_out_and_noted() -> None:
    link = Link(protocol_version=lambda: "2025-11-25")
    link.outgoing(SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=3, method="tools/list")))
    good = {"name": "ok", "inputSchema": {"type": "object"}}
    page = listing_reply(
        3,
        [
            good,
            {"name": 42, "inputSchema": {"type": "object"}},
            {"inputSchema": {"type": "object"}},
            {"name": "s", "inputSchema": "x"},
            5,
        ],
    )
    cleaned = link.incoming(page)
    assert isinstance(cleaned, SessionMessage)
    assert isinstance(cleaned.message, types.JSONRPCResponse)
    assert cleaned.message.result["tools"] == [good]
    notes, count = link.take_skipped()
    assert count == 4
    assert notes[0].startswith("entry 2 (42): name")
    assert "entry 3 (no name)" in notes[1]
    assert "entry 4 ('s')" in notes[2]
    assert notes[3] == "entry 5 (no name): not an object"
    assert link.take_skipped() == ([], 0)


def test_only_replies_to_tools_list_are_cleaned() -> None:
    link = Link()
    page = listing_reply(9, [{"name": 42}])
    assert link.incoming(page) is page


@pytest.mark.anyio
async def test_the_end_of_the_servers_stream_closes_the_link() -> None:
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](1)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](1)
    link = Link()

    class Streams:
        async def __aenter__(
            self,
        ) -> tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]:
            return read_receive, write_send

        async def __aexit__(self, *exc: object) -> None:
            return None

    async with link.around(Streams()) as (read, write):
        await write.send(SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=1, method="ping")))
        sent = (await write_receive.receive()).message
        assert isinstance(sent, types.JSONRPCRequest)
        assert sent.method == "ping"
        await read_send.aclose()
        with pytest.raises(StopAsyncIteration):
            await read.__anext__()
        assert link.closed.is_set()


def test_a_modern_page_is_judged_whole_so_its_valid_entries_are_kept() -> None:
    link = Link(protocol_version=lambda: "2026-07-28")
    link.outgoing(SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=4, method="tools/list")))
    good = {"name": "ok", "inputSchema": {"type": "object"}}
    result = {"tools": [good, {"name": 7}], "resultType": "complete", "cacheScope": "public", "ttlMs": 1000}
    cleaned = link.incoming(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=4, result=result)))
    assert isinstance(cleaned, SessionMessage)
    assert isinstance(cleaned.message, types.JSONRPCResponse)
    assert cleaned.message.result == {**result, "tools": [good]}
    assert link.take_skipped()[1] == 1
