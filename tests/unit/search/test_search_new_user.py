"""A new user's first requests over the servers most setups start with (everything, filesystem, memory, time), as
their real listings give them (`new_user_servers.json`): the right tool first, and no note telling the model that
no tool fits when one does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from mcp_gateway.search import SearchEngine, SearchResult, ServerEntry, ToolEntry
from mcp_gateway.wording import said

LISTINGS = Path(__file__).with_name("new_user_servers.json")
NO_TOOL_FITS = "tell the user"


@pytest.fixture(scope="module")
def engine() -> SearchEngine:
    servers = cast(dict[str, list[dict[str, Any]]], json.loads(LISTINGS.read_text())["servers"])
    engine = SearchEngine()
    for server, tools in servers.items():
        entries = [
            ToolEntry(server, tool["name"], tool["description"], parameters=tuple(tool["parameters"].items()))
            for tool in tools
        ]
        engine.replace_server(ServerEntry(server), entries)
    engine.replace_server(ServerEntry("echoes"), [ToolEntry("echoes", "echo", "Echo the text back.")])
    return engine


def notes(result: SearchResult) -> str:
    return " ".join(said(note).for_model() for note in result.notes)


def test_adding_two_numbers_finds_the_sum_tool_first_and_says_it_plainly(engine: SearchEngine) -> None:
    result = engine.search("add two numbers")
    assert (result.hits[0].server, result.hits[0].tool) == ("everything", "get-sum")
    assert result.hits[0].confidence != "low"
    assert NO_TOOL_FITS not in notes(result)


def test_two_echo_tools_are_equal_alternatives_not_doubt(engine: SearchEngine) -> None:
    result = engine.search("echo hello")
    first, second = result.hits[:2]
    assert {first.tool, second.tool} == {"echo"}
    assert first.confidence == second.confidence != "low"
    assert any(reason.startswith("the same tool as") for reason in first.reasons)
    assert NO_TOOL_FITS not in notes(result)


def test_the_time_in_a_city_finds_the_current_time_tool_without_the_no_tool_note(engine: SearchEngine) -> None:
    result = engine.search("what time is it in Berlin")
    assert (result.hits[0].server, result.hits[0].tool) == ("time", "get_current_time")
    assert NO_TOOL_FITS not in notes(result)


def test_a_tool_name_typed_in_a_request_is_a_fast_path(engine: SearchEngine) -> None:
    result = engine.search("call everything.get-sum with 2 and 3")
    assert (result.hits[0].server, result.hits[0].tool, result.hits[0].confidence) == ("everything", "get-sum", "high")


def test_a_request_no_server_here_serves_is_low_and_says_so(engine: SearchEngine) -> None:
    for request in ("turn off the lights in the kitchen", "book a flight to Paris next Friday"):
        result = engine.search(request)
        assert result.hits[0].confidence == "low"
        assert NO_TOOL_FITS in notes(result)
