"""Lines a raw benchmark session writes and reads, built and summarized without `json` on the big ones
(`benchmarks.raw_session`)."""

from __future__ import annotations

import json

from benchmarks.raw_session import PARSED_BYTES, Reply, request_line, summarize, tool_call_with_text


def test_a_request_line_is_one_compact_json_line() -> None:
    line = request_line(3, "tools/list")
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert json.loads(line) == {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}


def test_a_call_with_a_big_text_is_the_json_of_that_call_with_its_id_first() -> None:
    line = b"".join(tool_call_with_text(7, "loader.length", "text", b"y" * 1000))
    assert json.loads(line) == {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "execute_tool", "arguments": {"tool": "loader.length", "arguments": {"text": "y" * 1000}}},
    }
    assert line.index(b'"id":7') < 40  # where a gateway refusing the line unread looks for it


def test_a_short_reply_is_parsed_for_its_id_its_error_and_its_first_text() -> None:
    result = {"content": [{"type": "text", "text": "pong"}], "isError": False}
    answered = json.dumps({"jsonrpc": "2.0", "id": 2, "result": result}).encode()
    assert summarize(answered) == Reply(2, len(answered), False, "pong")
    failed = json.dumps({"jsonrpc": "2.0", "id": 4, "error": {"code": -32600, "message": "too long"}}).encode()
    assert summarize(failed) == Reply(4, len(failed), True, "too long")
    flagged = json.dumps({"jsonrpc": "2.0", "id": 5, "result": {"content": [], "isError": True}}).encode()
    assert summarize(flagged).error


def test_a_long_reply_is_read_where_its_id_and_error_flag_are() -> None:
    text = "x" * (PARSED_BYTES + 10)
    result = {"content": [{"type": "text", "text": text}], "isError": False}
    line = json.dumps({"jsonrpc": "2.0", "id": 9, "result": result}, separators=(",", ":")).encode() + b"\n"
    reply = summarize(line)
    assert (reply.request_id, reply.size, reply.error) == (9, len(line), False)
    flagged = line.replace(b'"isError":false', b'"isError":true')
    assert summarize(flagged).error


def test_a_line_that_is_no_json_is_an_error_without_an_id() -> None:
    assert summarize(b"not json\n") == Reply(None, 9, True, "not json\n")
