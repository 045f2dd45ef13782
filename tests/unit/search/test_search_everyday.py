"""The English glossary read into a request: everyday words and phrases stand for the catalog's words."""

from __future__ import annotations

from search_catalog import engine_with, ranked

from mcp_gateway.search.lexicon import everyday_of
from mcp_gateway.search.query import Vocabulary, parse_query
from mcp_gateway.search.text import stem

DIRECTORY = stem("directory")
DELETE = stem("delete")


def test_a_request_in_everyday_words_finds_the_tool_in_the_catalogs_words() -> None:
    engine = engine_with(
        {
            "fs": [
                ("delete_directory", "Delete a directory and everything in it."),
                ("create_directory", "Create a new directory."),
                ("list_directory", "List the entries of a directory."),
            ]
        }
    )
    assert ranked(engine.search("get rid of the old folder"))[0] == "fs.delete_directory"


def test_an_everyday_word_is_read_as_a_catalog_word_the_catalog_uses_more() -> None:
    usage = {DIRECTORY: 40, DELETE: 90}.get
    assert set(everyday_of("wipe that folder", lambda word: usage(word) or 0)) == {DIRECTORY, DELETE}


def test_a_word_the_catalog_uses_as_much_as_its_synonym_is_not_read_again() -> None:
    # Tools say `folder` as often as `directory` here: reading it as directory too would only add noise.
    usage = {DIRECTORY: 40, "folder": 40, DELETE: 90}.get
    assert everyday_of("wipe that folder", lambda word: usage(word) or 0) == [DELETE]


def test_a_phrase_is_read_only_whole_and_in_order() -> None:
    assert DELETE in everyday_of("get rid of it", lambda _: 1)
    assert DELETE not in everyday_of("get it out of the way, rid of nothing", lambda _: 1)


def test_a_query_read_without_everyday_words_has_only_its_own() -> None:
    # The engine reads a request of several steps this way, and its everyday words in each step instead.
    def terms(everyday: bool) -> set[str]:
        parsed = parse_query("get rid of the folder", lambda _: 1, lambda: Vocabulary([]), everyday=everyday)
        return {term.term for term in parsed.terms}

    assert DELETE in terms(True)
    assert DELETE not in terms(False)
