"""A large result is read without models and written from the text it came as, exactly when nothing changed it."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from mcp_gateway import relayed, wire

BIG = "x" * relayed.MIN_RELAYED_BYTES


def line(result: dict[str, Any], request_id: int = 7) -> bytes:
    # As a server may write it: its own member order and spacing, which the relayed text keeps.
    return f'{{"id": {request_id}, "result": {json.dumps(result)},  "jsonrpc": "2.0"}}\n'.encode()


def answer(request_id: int, result: dict[str, Any]) -> types.JSONRPCResponse:
    return types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result=result)


def test_a_large_result_is_written_from_its_own_text_under_the_clients_id_with_members_added_on_the_way() -> None:
    result = {"content": [{"type": "text", "text": BIG}], "isError": False}
    read = relayed.read_response(line(result))
    assert read is not None
    assert (read.id, read.result) == (7, result)
    # The SDK and the gateway pass it on: new containers, the same values, one member added for a modern client.
    passed = {**read.result, "content": list(read.result["content"]), "resultType": "complete"}
    written = relayed.encode_response(answer(42, passed))
    assert written is not None
    assert json.loads(written) == {"jsonrpc": "2.0", "id": 42, "result": passed}
    assert json.dumps(result)[:-1] in written.decode(), "the server's own text (spacing and all), not an encoding"
    assert relayed.encode_response(answer(43, passed)) is None, "taken once"


def test_a_result_changed_on_the_way_is_encoded_as_usual() -> None:
    result = {"content": [{"type": "text", "text": BIG}], "isError": True}
    read = relayed.read_response(line(result))
    assert read is not None
    masked = {**read.result, "content": [{"type": "text", "text": BIG.replace("x", "*", 1)}]}
    assert relayed.encode_response(answer(1, masked)) is None
    dropped = {"content": read.result["content"]}  # a member sieved out for an older protocol
    assert relayed.encode_response(answer(1, dropped)) is None


def test_what_is_not_a_plain_large_response_is_left_to_the_usual_reading() -> None:
    assert relayed.read_response(line({"content": []})[:-40]) is None, "cut short"
    error = {"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": BIG}}
    assert relayed.read_response(json.dumps(error).encode()) is None
    request = {"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"a": BIG}}
    assert relayed.read_response(json.dumps(request).encode()) is None
    deep: Any = BIG
    for _ in range(wire.MAX_RELAYED_DEPTH + 5):
        deep = [deep]
    assert relayed.read_response(line({"content": deep})) is None, "too deep: the usual reading fails it, saying why"


def test_at_most_a_few_results_are_kept_the_oldest_going_first() -> None:
    reads = [relayed.read_response(line({"content": [{"type": "text", "text": BIG + str(n)}]})) for n in range(6)]
    results = [read.result for read in reads if read is not None]
    assert relayed.encode_response(answer(1, results[0])) is None, "dropped to keep the bound"
    assert relayed.encode_response(answer(1, results[5])) is not None


def test_long_strings_are_decoded_in_pieces_exactly_whatever_falls_on_a_pieces_edge() -> None:
    # Escapes, surrogate pairs and multi-byte characters at every offset around the pieces' edges.
    unit = 'a\\"\n\t\u00e9\u4e2d\U0001f600\\u'
    text = (unit * (relayed.PIECE_BYTES // len(unit.encode()) * 3))[: relayed.PIECE_BYTES * 3]
    for shift in range(12):
        value = "z" * shift + text
        result = {"content": [{"type": "text", "text": value}], "structuredContent": {"k": [value, "short"]}}
        for ascii_only in (True, False):
            written = f'{{"jsonrpc":"2.0","id":3,"result":{json.dumps(result, ensure_ascii=ascii_only)}}}'.encode()
            read = relayed.read_response(written)
            assert read is not None
            assert read.result == result
            assert relayed.encode_response(answer(3, read.result)) == written + b"\n", "the server's own bytes"


def test_a_long_string_that_is_not_valid_json_is_left_to_the_usual_reading() -> None:
    for bad in (b"\x01", b"\\x", b"\xff", b"\\u12g"):
        body = b"a" * relayed.PIECE_BYTES + bad + b"a" * 10
        assert relayed.read_response(b'{"jsonrpc":"2.0","id":1,"result":{"text":"' + body + b'"}}') is None
    assert relayed.read_response(b'{"jsonrpc":"2.0","id":1,"result":{"' + b"k" * 70_000 + b'":1}}') is None, "a key"
