"""An open information request no tool covers well is offered the catalog's web search after its best hit."""

from __future__ import annotations

import re
import sys

import pytest
from search_catalog import engine_with, ranked

from mcp_gateway.search import SearchEngine, ServerEntry, ToolEntry
from mcp_gateway.search.documents import SEARCH_WORD, is_web_search
from mcp_gateway.search.web_search import MAX_WEB_SEARCH_HITS, WEB_SEARCH_BELOW_COVERAGE, WEB_SEARCH_REASON

TOOLS: dict[str, list[tuple[str, str]]] = {
    "cryptonews": [
        ("get_latest_news", "Get the latest cryptocurrency news headlines."),
        ("get_coin_price", "Get the current price of a coin."),
    ],
    "websearch": [("search", "Perform a web search query.")],
    "brave": [("brave_web_search", "Performs a search using the Brave API, for general queries and news.")],
    "docs": [("search_docs", "Search documentation using the probe search engine.")],
    "filesystem": [
        ("read_file", "Read the complete contents of a file."),
        ("write_file", "Create a new file or overwrite an existing file with new content."),
        ("list_directory", "List the files and directories in a path."),
    ],
    "calendar": [("create_event", "Create an event in the calendar."), ("list_events", "List calendar events.")],
}


@pytest.fixture
def engine() -> SearchEngine:
    return engine_with(TOOLS)


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("search", "Perform a web search query"),
        ("brave_web_search", "Performs a search using the Brave API."),
        ("ask", "Searches the internet and answers with sources."),
        ("duckduckgo", "Search the web using DuckDuckGo. Returns titles and links."),
    ],
)
def test_a_tool_that_says_it_searches_the_web_is_a_web_search(name: str, description: str) -> None:
    assert is_web_search(name, description)


def test_a_web_search_spelt_with_characters_that_only_match_ignoring_case_is_one() -> None:
    # U+017F (long s) matches `s` ignoring case but lowers to itself: the quick look for the word must casefold.
    assert is_web_search("ask", "\u017fearch the web for pages and return their titles.")


def test_every_character_matched_ignoring_case_folds_into_the_word_looked_for_first() -> None:
    """`is_web_search` reads no further than `SEARCH_WORD` in the casefolded text: that is exact only if every
    character the case-blind matching takes for one of the word's letters casefolds to that letter."""
    everything = "".join(map(chr, range(sys.maxunicode + 1)))
    for letter in set(SEARCH_WORD):
        for character in re.findall(letter, everything, re.IGNORECASE):
            assert letter in character.casefold(), (letter, hex(ord(character)))


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("search_docs", "Search documentation using the probe search engine."),
        ("search_code", "Fast code search across all repositories using GitHub's native search engine."),
        ("fetch", "Fetch a URL. It can also be used for a web search when combined with a search page."),
        ("get_latest_news", "Get the latest news from the web."),
    ],
)
def test_a_tool_that_only_mentions_a_search_engine_or_the_web_later_is_not(name: str, description: str) -> None:
    assert not is_web_search(name, description)


def test_an_information_request_on_a_subject_no_tool_covers_offers_web_search_after_the_best_hit(
    engine: SearchEngine,
) -> None:
    result = engine.search("find the latest news about elections in Brazil")
    names = ranked(result)
    first = result.hits[0].signals
    assert first is not None
    assert first.coverage < WEB_SEARCH_BELOW_COVERAGE
    assert names[0] == "cryptonews.get_latest_news"  # what the request's words point to keeps its place
    assert set(names[1:3]) == {"websearch.search", "brave.brave_web_search"}
    assert "docs.search_docs" not in names[1:3]
    assert all(WEB_SEARCH_REASON in hit.reasons for hit in result.hits[1:3])
    assert WEB_SEARCH_REASON not in result.hits[0].reasons
    assert all(hit.score <= result.hits[0].score for hit in result.hits[1:3])


def test_a_weak_request_to_do_something_is_not_offered_web_search(engine: SearchEngine) -> None:
    # On the same subject, but asking for something to be done: no search verb, no news word.
    result = engine.search("write a poem about elections in Brazil")
    assert [hit.confidence for hit in result.hits] != ["high"]
    assert ranked(result) == ["filesystem.write_file"]


def test_an_information_request_a_tool_covers_well_keeps_its_ranking(engine: SearchEngine) -> None:
    result = engine.search("find the files in a directory")
    assert result.hits[0].confidence != "low"
    assert ranked(result)[0] == "filesystem.list_directory"
    assert all(WEB_SEARCH_REASON not in hit.reasons for hit in result.hits)


def test_a_search_focused_on_one_server_is_not_offered_web_search(engine: SearchEngine) -> None:
    result = engine.search("find news about elections in Brazil", server="cryptonews")
    assert {hit.server for hit in result.hits} == {"cryptonews"}


def test_a_request_of_several_steps_is_not_offered_web_search(engine: SearchEngine) -> None:
    request = "find news about the elections in Brazil and then save the summary to a new file on disk"
    result = engine.search(request)
    assert all(WEB_SEARCH_REASON not in hit.reasons for hit in result.hits)


def test_at_most_a_few_web_search_tools_are_offered() -> None:
    engine = SearchEngine()
    engines = [f"engine{i}" for i in range(MAX_WEB_SEARCH_HITS + 3)]
    for server in engines:
        engine.replace_server(ServerEntry(server), [ToolEntry(server, "search", "Search the web.")])
    engine.replace_server(ServerEntry("news"), [ToolEntry("news", "get_news", "Get crypto news.")])
    result = engine.search("find news about elections in Brazil")
    offered = [hit for hit in result.hits if WEB_SEARCH_REASON in hit.reasons]
    assert len(offered) == MAX_WEB_SEARCH_HITS
    assert ranked(result)[0] == "news.get_news"


def test_a_catalog_without_web_search_changes_nothing() -> None:
    engine = SearchEngine()
    engine.replace_server(ServerEntry("news"), [ToolEntry("news", "get_news", "Get crypto news.")])
    result = engine.search("find news about elections in Brazil")
    assert ranked(result) == ["news.get_news"]
