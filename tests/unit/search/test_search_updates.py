"""Incremental updates: replacing or removing one server's tools leaves the others alone."""

from __future__ import annotations

import pytest
from search_catalog import SERVERS, add_server, build_engine

from mcp_gateway.search import Resolved, SearchEngine, ServerEntry, ToolEntry
from mcp_gateway.search.index import FieldPostings
from mcp_gateway.wording import said

QUERIES = ["create issue", "list pull requests", "delete", "search code", "repository"]


def github_results(engine: SearchEngine) -> list[list[tuple[str, str, str]]]:
    return [
        [(hit.server, hit.tool, hit.confidence) for hit in engine.search(query, server="github").hits]
        for query in QUERIES
    ]


@pytest.fixture
def engine() -> SearchEngine:
    return build_engine()


def test_replace_server_swaps_that_servers_tools(engine: SearchEngine) -> None:
    add_server(engine, "filesystem", ("fs",), [("move_file", "Move or rename a file.", (("source", ""),))])
    assert engine.tool_count("filesystem") == 1
    assert [(hit.server, hit.tool) for hit in engine.search("move a file").hits][:1] == [("filesystem", "move_file")]
    assert all(hit.tool != "read_file" for hit in engine.search("read_file").hits)
    assert all(hit.tool != "delete_file" for hit in engine.search("delete file").hits)


def test_replace_server_leaves_other_servers_results_unchanged(engine: SearchEngine) -> None:
    before = github_results(engine)
    add_server(engine, "filesystem", ("fs",), [("move_file", "Move or rename a file.", ())])
    assert github_results(engine) == before


def test_replacing_a_server_with_the_same_tools_changes_nothing(engine: SearchEngine) -> None:
    before = [engine.search(query) for query in QUERIES]
    aliases, tools = SERVERS["slack"]
    add_server(engine, "slack", aliases, tools)
    assert [engine.search(query).hits for query in QUERIES] == [result.hits for result in before]


def test_replace_server_updates_the_aliases_used_for_server_intent(engine: SearchEngine) -> None:
    add_server(engine, "github", ("octo",), SERVERS["github"][1])
    assert engine.resolve_server("octo") == Resolved("github", "alias")
    assert engine.search("delete", server="gh").focused_server is None


def test_remove_server_removes_its_tools_from_every_search(engine: SearchEngine) -> None:
    engine.remove_server("github")
    assert "github" not in engine.server_names()
    assert engine.tool_count("github") == 0
    assert engine.tool_count() == sum(len(tools) for _, tools in SERVERS.values()) - len(SERVERS["github"][1])
    for query in [*QUERIES, "create_issue", "github.create_issue", "gh"]:
        assert all(hit.server != "github" for hit in engine.search(query).hits)


def test_a_removed_server_is_no_longer_listed_when_nothing_matches(engine: SearchEngine) -> None:
    engine.remove_server("github")
    (note,) = engine.search("quantum entanglement").notes
    assert "github" not in said(note).for_model()
    assert "filesystem (4 tools)" in said(note).for_model()


def test_removing_an_unknown_server_is_harmless(engine: SearchEngine) -> None:
    engine.remove_server("nope")
    assert engine.tool_count() == sum(len(tools) for _, tools in SERVERS.values())


def test_a_removed_server_can_be_added_again() -> None:
    engine = SearchEngine()
    entry = ServerEntry("notes")
    tools = [ToolEntry("notes", "create_note", "Create a note.")]
    engine.replace_server(entry, tools)
    engine.remove_server("notes")
    assert engine.search("create note").hits == ()
    engine.replace_server(entry, tools)
    assert [hit.tool for hit in engine.search("create note").hits] == ["create_note"]


def test_re_indexing_every_server_scores_every_query_exactly_as_a_fresh_build() -> None:
    fresh = build_engine()
    churned = build_engine()
    for _ in range(3):  # each round gives every server new document ids, far from its old ones
        for name, (aliases, tools) in SERVERS.items():
            add_server(churned, name, aliases, tools)
    queries = [*QUERIES, "send a message to a channel", "read a file", "发送消息"]
    assert [churned.search(query).hits for query in queries] == [fresh.search(query).hits for query in queries]


def test_removing_scattered_documents_from_a_field_keeps_the_others_and_their_counts() -> None:
    postings = FieldPostings()
    for doc_id in range(1, 11):
        postings.add(doc_id, {"file": doc_id, "read": 1} if doc_id % 2 else {"file": doc_id}, 2)
    postings.remove({2, 3, 7, 10}, {"file", "read"})
    assert list(postings.entries("file")) == [(1, 1), (4, 4), (5, 5), (6, 6), (8, 8), (9, 9)]
    assert list(postings.entries("read")) == [(1, 1), (5, 1), (9, 1)]
    postings.remove({4, 5, 6}, {"file", "read"})
    assert list(postings.entries("file")) == [(1, 1), (8, 8), (9, 9)]
    assert list(postings.entries("read")) == [(1, 1), (9, 1)]
    postings.remove({1, 9}, {"read"})
    assert "read" not in postings
