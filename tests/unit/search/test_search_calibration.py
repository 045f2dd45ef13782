"""Confidence that means what it says: namesakes are alike, a typed name is high, only the first hit can be high,
a probability is cut into levels, and a weak search names the servers that exist."""

from __future__ import annotations

import re

from search_catalog import SERVERS, Tool, add_server, build_engine

from mcp_gateway.search import SearchEngine, SearchResult
from mcp_gateway.search.calibration import HIGH_PROBABILITY, LOW_PROBABILITY, level
from mcp_gateway.search.engine import MAX_LISTED_SERVERS
from mcp_gateway.wording import counted, said

READ_FILE: list[Tool] = [("read_file", "Read the complete contents of a file.", (("path", "Path of the file"),))]


def levels(result: SearchResult) -> dict[str, str]:
    return {f"{hit.server}.{hit.tool}": hit.confidence for hit in result.hits}


def test_a_tool_on_one_server_only_is_high() -> None:
    engine = SearchEngine()
    add_server(engine, "filesystem", (), READ_FILE)
    assert levels(engine.search("read the contents of a file")) == {"filesystem.read_file": "high"}


def test_the_same_tool_on_two_servers_is_a_choice_of_server_not_doubt_each_at_the_first_ones_level() -> None:
    engine = SearchEngine()
    add_server(engine, "filesystem", (), READ_FILE)
    add_server(engine, "desktop", (), READ_FILE)
    alone = SearchEngine()
    add_server(alone, "filesystem", (), READ_FILE)
    result = engine.search("read the contents of a file")
    assert set(levels(result).values()) == {levels(alone.search("read the contents of a file"))["filesystem.read_file"]}
    by_name = {f"{hit.server}.{hit.tool}": hit for hit in result.hits}
    assert "the same tool as desktop.read_file" in by_name["filesystem.read_file"].reasons
    assert "the same tool as filesystem.read_file" in by_name["desktop.read_file"].reasons


def test_a_tool_named_outright_is_high_bare_qualified_or_inside_a_longer_request() -> None:
    engine = SearchEngine()
    add_server(engine, "filesystem", (), READ_FILE)
    add_server(engine, "desktop", (), READ_FILE)
    assert levels(engine.search("filesystem.read_file"))["filesystem.read_file"] == "high"
    longer = engine.search("please use desktop.read_file on the notes I saved yesterday")
    assert longer.hits[0].tool == "read_file"
    assert longer.hits[0].server == "desktop"
    assert longer.hits[0].confidence == "high"
    assert "the query names this tool" in longer.hits[0].reasons


def test_only_the_first_hit_and_its_namesakes_can_be_high() -> None:
    engine = build_engine()
    for query in ("delete a github repository", "filesystem.read_file", "list the pods in my cluster"):
        result = engine.search(query)
        first = result.hits[0].tool
        assert all(hit.confidence != "high" for hit in result.hits if hit.tool != first)


def test_a_probability_is_cut_into_levels_at_the_two_thresholds() -> None:
    assert level(HIGH_PROBABILITY) == "high"
    assert level(HIGH_PROBABILITY - 0.01) == "medium"
    assert level(LOW_PROBABILITY) == "medium"
    assert level(LOW_PROBABILITY - 0.01) == "low"


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
