"""Confidence that means what it says: "high" is unrivalled, and a weak search names the servers that exist."""

from __future__ import annotations

import re

from search_catalog import SERVERS, Tool, add_server, build_engine

from mcp_gateway.search import SearchEngine, SearchResult
from mcp_gateway.search.confidence import RIVAL_MARGIN, rivals
from mcp_gateway.search.engine import MAX_LISTED_SERVERS, SearchHit, unrivalled
from mcp_gateway.wording import counted, said

READ_FILE: list[Tool] = [("read_file", "Read the complete contents of a file.", (("path", "Path of the file"),))]


def levels(result: SearchResult) -> dict[str, str]:
    return {f"{hit.server}.{hit.tool}": hit.confidence for hit in result.hits}


def test_a_tool_on_one_server_only_is_high() -> None:
    engine = SearchEngine()
    add_server(engine, "filesystem", (), READ_FILE)
    assert levels(engine.search("read the contents of a file")) == {"filesystem.read_file": "high"}


def test_the_same_tool_republished_on_two_servers_is_medium_on_both_and_each_names_the_other() -> None:
    engine = SearchEngine()
    add_server(engine, "filesystem", (), READ_FILE)
    add_server(engine, "desktop", (), READ_FILE)
    result = engine.search("read the contents of a file")
    assert levels(result) == {"filesystem.read_file": "medium", "desktop.read_file": "medium"}
    by_name = {f"{hit.server}.{hit.tool}": hit for hit in result.hits}
    assert "about as strong a match as desktop.read_file" in by_name["filesystem.read_file"].reasons
    assert "about as strong a match as filesystem.read_file" in by_name["desktop.read_file"].reasons


def test_naming_the_server_breaks_the_tie_and_its_tool_is_high_again() -> None:
    engine = SearchEngine()
    add_server(engine, "filesystem", (), READ_FILE)
    add_server(engine, "desktop", (), READ_FILE)
    assert levels(engine.search("filesystem.read_file"))["filesystem.read_file"] == "high"


def test_only_high_hits_within_the_margin_are_rivals() -> None:
    close = 1.0 - RIVAL_MARGIN / 2
    far = 1.0 - RIVAL_MARGIN * 2
    assert rivals([10.0, 10.0 * close, 5.0], ["high", "high", "high"]) == [1, 0, None]
    assert rivals([10.0, 10.0 * far], ["high", "high"]) == [None, None]
    assert rivals([10.0, 10.0], ["high", "medium"]) == [None, None]
    assert rivals([10.0, 10.0], ["medium", "medium"]) == [None, None]


def test_a_weak_search_names_every_server_with_its_tool_count() -> None:
    engine = build_engine()
    result = engine.search("turn off the living room lights")
    assert result.hits
    assert result.hits[0].confidence == "low"
    (note,) = (said(note).for_model() for note in result.notes)
    for server, (_, tools) in SERVERS.items():
        assert f"{server} ({counted(len(tools), 'tool')})" in note
    assert "tell the user" in note


def test_a_strong_search_or_one_focused_on_a_server_adds_no_server_listing() -> None:
    engine = build_engine()
    assert engine.search("delete a github repository").notes == ()
    focused = engine.search("turn off the living room lights", server="slack")
    assert all("Servers:" not in said(note).for_model() for note in focused.notes)


def test_a_weak_search_among_many_servers_names_those_of_its_hits_first_and_counts_the_rest() -> None:
    engine = build_engine()
    extra = MAX_LISTED_SERVERS + 5
    for number in range(extra):
        add_server(engine, f"extra{number:02d}", (), [("ping", f"Ping service number {number}.", ())])
    result = engine.search("turn off the living room lights")
    (note,) = (said(note).for_model() for note in result.notes)
    total = len(SERVERS) + extra
    listed = re.findall(r"([\w-]+) \(\d+ tools?\)", note)
    assert len(listed) == MAX_LISTED_SERVERS
    assert listed[: len({hit.server for hit in result.hits})] == list(dict.fromkeys(hit.server for hit in result.hits))
    assert f"and {total - MAX_LISTED_SERVERS} more" in note


def test_a_high_hit_ranked_below_one_that_is_not_high_is_medium_and_names_it() -> None:
    hits = [
        SearchHit("memory", "add_observations", 2.0, "medium", ("name: add",)),
        SearchHit("everything", "get-sum", 1.0, "high", ("name: sum", "description: add, numbers")),
        SearchHit("everything", "echo", 0.5, "low", ("description: numbers",)),
    ]
    settled = unrivalled(hits)
    assert [hit.confidence for hit in settled] == ["medium", "medium", "low"]
    assert settled[1].reasons[-1] == "ranked below memory.add_observations"
    assert unrivalled(hits[1:]) == tuple(hits[1:])  # at the top, nothing outranks it: high stays high
