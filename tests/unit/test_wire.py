"""JSON-RPC lines: every line is either a message or an `Unreadable` naming its error code and its id."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pytest

from mcp_gateway import wire


def nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"down": value}
    return value


def line(**members: Any) -> bytes:
    return json.dumps(members).encode()


def test_a_valid_request_is_read_as_a_message() -> None:
    message = wire.decode(line(jsonrpc="2.0", id=1, method="ping"))
    assert isinstance(message, types.JSONRPCRequest)
    assert message.id == 1


def test_a_blank_line_is_nothing() -> None:
    assert wire.decode(b"  \r\n") is None


@pytest.mark.parametrize(
    ("raw", "code", "request_id", "kind"),
    [
        (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[1,2]}', types.INVALID_PARAMS, 7, "request"),
        (b'{"jsonrpc":"1.0","id":"a","method":"ping"}', types.INVALID_REQUEST, "a", "request"),
        (b'{"jsonrpc":"2.0","id":3,"method":5}', types.INVALID_REQUEST, 3, "request"),
        (b'{"jsonrpc":"2.0","id":9,"result":[1]}', types.INVALID_REQUEST, 9, "response"),
        (b'{"jsonrpc":"2.0","id":9,"error":"broken"}', types.INVALID_REQUEST, 9, "response"),
        (
            b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":[]}',
            types.INVALID_PARAMS,
            None,
            "notification",
        ),
        (b"[1, 2]", types.INVALID_REQUEST, None, "unknown"),
        (b"not json at all", types.PARSE_ERROR, None, "unknown"),
        (b'{"jsonrpc":"2.0","id":12,"method":"tools/ca', types.PARSE_ERROR, 12, "unknown"),
        (
            b'{"jsonrpc": "2.0", "id": "x\\"y", "method": "tools/call", "params": {"a": [1,',
            types.PARSE_ERROR,
            'x"y',
            "request",
        ),
    ],
)
def test_an_unusable_line_names_its_error_code_and_the_id_it_carries(
    raw: bytes, code: int, request_id: object, kind: str
) -> None:
    unreadable = wire.decode(raw)
    assert isinstance(unreadable, wire.Unreadable)
    assert (unreadable.code, unreadable.request_id, unreadable.kind) == (code, request_id, kind)
    assert unreadable.reason


def test_a_message_nested_past_the_sdk_validator_but_within_the_limit_is_accepted_and_written_back() -> None:
    arguments = nested(wire.MAX_DEPTH - 10)
    message = wire.decode(line(jsonrpc="2.0", id=1, method="tools/call", params={"name": "x", "arguments": arguments}))
    assert isinstance(message, types.JSONRPCRequest)
    assert message.params is not None
    assert json.loads(wire.encode(message)) == {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "x", "arguments": arguments},
    }


def test_a_message_nested_past_the_limit_is_refused_with_its_id() -> None:
    unreadable = wire.decode(line(jsonrpc="2.0", id=4, method="tools/call", params={"a": nested(wire.MAX_DEPTH + 5)}))
    assert isinstance(unreadable, wire.Unreadable)
    assert (unreadable.code, unreadable.request_id) == (types.INVALID_REQUEST, 4)
    assert str(wire.MAX_DEPTH) in unreadable.reason


def test_json_nested_past_what_the_standard_library_reads_is_a_parse_error() -> None:
    unreadable = wire.decode(b"[" * 5000)
    assert isinstance(unreadable, wire.Unreadable)
    assert unreadable.code == types.PARSE_ERROR


def test_encoding_a_plain_message_gives_one_compact_line() -> None:
    response = types.JSONRPCResponse(jsonrpc="2.0", id="r", result={"content": [], "x": "é"})
    assert wire.encode(response) == '{"jsonrpc":"2.0","id":"r","result":{"content":[],"x":"é"}}\n'.encode()


def test_a_deep_error_response_keeps_its_data_when_written_by_hand() -> None:
    error = wire.error_response(5, -32000, "deep", data=nested(400))
    assert json.loads(wire.encode(error))["error"] == {"code": -32000, "message": "deep", "data": nested(400)}


def test_a_message_too_deep_to_write_at_all_raises_unencodable() -> None:
    response = types.JSONRPCResponse(jsonrpc="2.0", id=1, result={"x": nested(3000)})
    with pytest.raises(wire.UnencodableError):
        wire.encode(response)


def test_a_size_estimate_says_small_for_small_data_and_stops_early_for_large() -> None:
    assert wire.fits_within({"message": "hello", "n": [1, 2.5, None, True]}, 100)
    assert not wire.fits_within({"text": "x" * 200}, 100)
    assert not wire.fits_within([{"a": 1}] * 1000, 100)
    wide = dict.fromkeys(range(10**6), 0)
    assert not wire.fits_within(wide, 1024), "a wide object is refused by its size, before its members are walked"
    assert not wire.fits_within({"model": object()}, 1024), "what is not plain JSON data has no known size"


def test_a_message_size_estimate_reads_what_the_message_carries() -> None:
    small = types.JSONRPCResponse(jsonrpc="2.0", id=1, result={"content": [{"type": "text", "text": "hi"}]})
    large = types.JSONRPCNotification(jsonrpc="2.0", method="m", params={"data": "x" * 5000})
    error = types.JSONRPCError(jsonrpc="2.0", id=1, error=types.ErrorData(code=-1, message="no", data="y" * 5000))
    assert wire.message_fits_within(small, 1024)
    assert not wire.message_fits_within(large, 1024)
    assert not wire.message_fits_within(error, 1024)
