"""A tool that shares the request's verb but acts on something else ranks below the one acting on what is asked."""

from __future__ import annotations

from search_catalog import engine_with, ranked

from mcp_gateway.search.fits import OBJECT_FIT_FLOOR, ObjectFits, request_objects
from mcp_gateway.search.query import Vocabulary, parse_query

# The shapes of a new user's servers: a sum tool whose name shares no word with "add two numbers", and tools
# whose names start with "add" and whose text mentions numbers only as an issue's number.
SERVERS: dict[str, list[tuple[str, str]]] = {
    "everything": [
        ("get-sum", "Returns the sum of two numbers"),
        ("echo", "Echoes back the input string"),
        ("get-env", "Returns all environment variables"),
    ],
    "github": [
        (
            "add_issue_comment",
            "Add a comment to a specific issue in a GitHub repository. Pass a pull request number as issue_number.",
        ),
        ("add_reply_to_pull_request_comment", "Add a reply to a review comment. Give the pull request number."),
        ("issue_read", "Get information about a specific issue by its number."),
    ],
    "memory": [
        ("add_observations", "Add new observations to existing entities in the knowledge graph"),
        ("create_entities", "Create multiple new entities in the knowledge graph"),
    ],
}


def test_adding_numbers_finds_the_tool_that_sums_them_before_tools_that_add_comments_or_observations() -> None:
    names = ranked(engine_with(SERVERS).search("add two numbers"))
    assert names[0] == "everything.get-sum"


def test_the_request_keeps_its_objects_not_its_actions_generic_words_or_values() -> None:
    def objects(text: str) -> set[str]:
        query = parse_query(text, lambda _: 1, lambda: Vocabulary([]))
        return {word for readings, _ in request_objects(query, lambda _: 1.0) for word in readings if "~" not in word}

    assert objects("add two numbers") == {"number"}
    assert objects("delete the file /tmp/report.txt") == {"file"}
    assert objects("get the data") == set()


def test_a_tool_keeps_all_its_evidence_when_its_first_sentence_holds_the_objects_and_the_floor_when_none() -> None:
    engine = engine_with(SERVERS)
    index = engine._index  # pyright: ignore[reportPrivateUsage]
    ids = {index.tools[doc_id].entry.name: doc_id for doc_id in index.tools}
    query = parse_query("add two numbers", lambda word: index.doc_freq.get(word, 0), lambda: Vocabulary([]))
    fits = ObjectFits().of(
        index,
        query,
        [ids["get-sum"], ids["add_observations"], ids["add_issue_comment"]],
    )
    assert fits[ids["get-sum"]] == 1.0
    assert fits[ids["add_observations"]] == OBJECT_FIT_FLOOR
    # "number" is in the comment tool's description, but past the first sentence: how it is called, not what it is.
    assert fits[ids["add_issue_comment"]] == OBJECT_FIT_FLOOR


def test_a_request_with_no_object_leaves_every_tool_as_it_was() -> None:
    engine = engine_with(SERVERS)
    index = engine._index  # pyright: ignore[reportPrivateUsage]
    query = parse_query("run it", lambda word: index.doc_freq.get(word, 0), lambda: Vocabulary([]))
    fits = ObjectFits().of(index, query, list(index.tools))
    assert set(fits.values()) == {1.0}
