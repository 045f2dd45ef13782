"""Which client lines are answered before the SDK is imported, and with what; everything else waits for it.

The rule is "in doubt, later, never differently": a line is answered early only when it is plainly the
handshake (`initialize` first, then `tools/list`), and the first line that is anything else ends early
answering for good.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from mcp_gateway import __version__
from mcp_gateway.front.early_answers import (
    HANDSHAKE_VERSIONS,
    MAX_EARLY_LINE_BYTES,
    SERVER_NAME,
    EarlyAnswers,
    Handshake,
)
from mcp_gateway.service.surface import meta_tool_definitions

HANDSHAKE = Handshake("Use search_tools.", meta_tool_definitions())
CLIENT = {"name": "claude-code", "version": "2.1.0"}


def line(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n"


def initialize(request_id: Any = 1, **params: Any) -> bytes:
    sent = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": CLIENT} | params
    return line({"id": request_id, "method": "initialize", "params": sent})


INITIALIZED = line({"method": "notifications/initialized"})
TOOLS_LIST = line({"id": 2, "method": "tools/list"})


def answered(early: EarlyAnswers, sent: bytes) -> dict[str, Any] | None:
    reply = early.answer(sent)
    return None if reply is None else json.loads(reply)


def test_the_versions_negotiated_early_are_the_sdks() -> None:
    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


def test_initialize_then_tools_list_are_answered_and_then_nothing_more() -> None:
    early = EarlyAnswers(HANDSHAKE)
    first = answered(early, initialize(request_id="a"))
    assert first is not None
    assert first["id"] == "a"
    assert first["result"]["serverInfo"] == {"name": SERVER_NAME, "title": "MCP gateway", "version": __version__}
    assert first["result"]["instructions"] == "Use search_tools."
    assert answered(early, INITIALIZED) is None
    assert not early.over, "notifications/initialized comes between the two answers"
    second = answered(early, TOOLS_LIST)
    assert second == {"jsonrpc": "2.0", "id": 2, "result": {"tools": meta_tool_definitions()}}
    assert early.over
    assert answered(early, line({"id": 3, "method": "tools/list"})) is None


@pytest.mark.parametrize(("asked", "negotiated"), [*((v, v) for v in HANDSHAKE_VERSIONS), ("2099-01-01", "2025-11-25")])
def test_the_version_asked_for_is_negotiated_as_the_sdk_negotiates_it(asked: str, negotiated: str) -> None:
    reply = answered(EarlyAnswers(HANDSHAKE), initialize(protocolVersion=asked))
    assert reply is not None
    assert reply["result"]["protocolVersion"] == negotiated


@pytest.mark.parametrize(
    "capabilities",
    [
        {"roots": {"listChanged": True}, "elicitation": {"form": {}, "url": {}}},
        {"sampling": {"context": {}, "tools": {}}, "experimental": {"x": {"on": 1}}, "extensions": {"io.y": {}}},
    ],
)
def test_every_plain_capability_is_answered_early(capabilities: dict[str, Any]) -> None:
    assert answered(EarlyAnswers(HANDSHAKE), initialize(capabilities=capabilities)) is not None


@pytest.mark.parametrize(
    ("first", "why"),
    [
        (line({"id": 1, "method": "ping"}), "another first request"),
        (TOOLS_LIST, "tools/list before initialize"),
        (initialize(request_id=True), "a bool id"),
        (initialize(request_id=1.5), "a float id"),
        (initialize(request_id=None), "a null id"),
        (initialize(_meta={"progressToken": 1}), "params with _meta"),
        (initialize(capabilities={"tasks": {"list": {}}}), "a capability left to the SDK"),
        (initialize(capabilities={"roots": None}), "a null capability"),
        (initialize(capabilities={"roots": {"listChanged": "yes"}}), "a capability of the wrong type"),
        (initialize(capabilities={"sampling": {"tools": True}}), "a capability that is no object"),
        (initialize(capabilities={"brandNew": {}}), "a capability this gateway does not know"),
        (initialize(clientInfo={"name": "x"}), "clientInfo without a version"),
        (initialize(clientInfo={**CLIENT, "icons": [{"src": "data:,"}]}), "clientInfo with icons"),
        (initialize(protocolVersion=20250618), "a version that is no string"),
        (initialize(extra=1), "an unknown parameter"),
        (line({"id": 1, "method": "initialize"}), "initialize without params"),
        (initialize().replace(b'"2.0"', b'"1.0"'), "JSON-RPC 1.0"),
        (initialize().replace(b"{", b'{"id": 0, ', 1), "a repeated member"),
        (initialize(capabilities={"experimental": {"x": {"n": float("nan")}}}), "NaN"),
        (initialize().rstrip(b"\n}"), "JSON cut short"),
        (b"\xff" + initialize(), "not UTF-8"),
        (line({"id": 1, "result": {}}), "a response"),
        (initialize(clientInfo={**CLIENT, "title": "x" * MAX_EARLY_LINE_BYTES}), "a line over the bound"),
    ],
)
def test_anything_else_first_is_left_to_the_sdk_and_ends_early_answering(first: bytes, why: str) -> None:
    early = EarlyAnswers(HANDSHAKE)
    assert early.answer(first) is None, why
    assert early.over, why
    assert early.answer(initialize(request_id=9)) is None, why


def test_a_request_between_the_two_answers_ends_early_answering() -> None:
    early = EarlyAnswers(HANDSHAKE)
    assert early.answer(initialize()) is not None
    assert early.answer(line({"id": 2, "method": "ping"})) is None
    assert early.over
    assert early.answer(TOOLS_LIST) is None


@pytest.mark.parametrize("params", [{}, None])
def test_tools_list_with_empty_or_null_params_is_answered_as_the_sdk_answers_it(params: Any) -> None:
    early = EarlyAnswers(HANDSHAKE)
    assert early.answer(initialize()) is not None
    assert answered(early, line({"id": 2, "method": "tools/list", "params": params})) is not None


def test_tools_list_with_params_is_left_to_the_sdk() -> None:
    early = EarlyAnswers(HANDSHAKE)
    assert early.answer(initialize()) is not None
    assert early.answer(line({"id": 2, "method": "tools/list", "params": {"cursor": "x"}})) is None


def test_blank_lines_and_notifications_change_nothing() -> None:
    early = EarlyAnswers(HANDSHAKE)
    assert early.answer(b"\n") is None
    assert early.answer(line({"method": "notifications/cancelled", "params": {"requestId": 7}})) is None
    assert not early.over
    assert early.answer(initialize()) is not None


def test_the_sdks_answer_to_a_request_answered_early_is_settled_once_and_compared(
    caplog: pytest.LogCaptureFixture,
) -> None:
    early = EarlyAnswers(HANDSHAKE)
    reply = early.answer(initialize(request_id=7))
    assert reply is not None
    caplog.set_level(logging.DEBUG, logger="mcp_gateway.front.early_answers")
    assert not early.settle("7", reply), "the request '7' is not the request 7"
    assert early.settle(7, reply)
    assert not early.settle(7, reply), "settled once: a later answer with that id goes out"
    assert [record.levelno for record in caplog.records] == [logging.DEBUG]


def test_a_different_answer_from_the_sdk_is_logged_as_a_gateway_bug(caplog: pytest.LogCaptureFixture) -> None:
    early = EarlyAnswers(HANDSHAKE)
    assert early.answer(initialize()) is not None
    caplog.set_level(logging.DEBUG, logger="mcp_gateway.front.early_answers")
    theirs = line({"id": 1, "error": {"code": -32602, "message": "Invalid request parameters"}})
    assert early.settle(1, theirs)
    [record] = caplog.records
    assert record.levelno == logging.ERROR
    assert "gateway bug" in record.getMessage()
    assert "Invalid request parameters" in record.getMessage()


def test_an_answer_that_cannot_be_encoded_is_left_to_the_sdk() -> None:
    early = EarlyAnswers(Handshake("a lone surrogate \ud800 from a config", meta_tool_definitions()))
    assert early.answer(initialize()) is None
    assert early.over
