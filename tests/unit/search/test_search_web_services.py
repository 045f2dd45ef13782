"""The web search offered after a weak best hit is of different services, not one service's wrappers."""

from __future__ import annotations

from search_catalog import engine_with as catalog_engine_with

from mcp_gateway.search import SearchEngine, SearchResult
from mcp_gateway.search.query import Vocabulary, parse_query
from mcp_gateway.search.ranking import scores_among
from mcp_gateway.search.web_search import MAX_WEB_SEARCH_HITS, WEB_SEARCH_REASON, services

# One service wrapped three times, with the fullest descriptions (so the best text matches for news), and three
# services each on their own server.
WEB_SEARCH: dict[str, list[tuple[str, str]]] = {
    "duckduckgo-search": [
        ("duckduckgo_web_search", "Performs a web search using DuckDuckGo, ideal for news, articles and queries.")
    ],
    "mcp-duckduckgo": [("duckduckgo_web_search", "Perform a web search using DuckDuckGo, for news and articles.")],
    "web-search-duckduckgo": [("search_and_fetch", "Search the web using DuckDuckGo and fetch news articles.")],
    "google-search": [("search", "Perform a web search query.")],
    "tavily-mcp": [("tavily-search", "A web search tool giving real-time results.")],
    "marginalia": [("search-marginalia", "Search the web using Marginalia Search.")],
}
NEWS = ("cryptonews", "get_latest_news", "Get the latest cryptocurrency news headlines.")


def engine_with(servers: dict[str, list[tuple[str, str]]]) -> SearchEngine:
    server, name, text = NEWS
    return catalog_engine_with({**servers, server: [(name, text)]})


def offered(result: SearchResult) -> list[str]:
    return [hit.server for hit in result.hits if WEB_SEARCH_REASON in hit.reasons]


def test_one_service_wrapped_by_several_servers_is_offered_once() -> None:
    result = engine_with(WEB_SEARCH).search("find the latest news about elections in Brazil")
    servers = offered(result)
    assert result.hits[0].server == "cryptonews"
    assert len(servers) == MAX_WEB_SEARCH_HITS
    duckduckgo = {"duckduckgo-search", "mcp-duckduckgo", "web-search-duckduckgo"}
    assert len(duckduckgo.intersection(servers)) == 1, servers
    # The wrappers match the request best, so one of them comes first; the others wait behind other services.
    assert servers[0] in duckduckgo
    ranked = [hit.server for hit in result.hits]
    waiting = [ranked.index(server) for server in duckduckgo - set(servers) if server in ranked]
    assert all(position > ranked.index(servers[-1]) for position in waiting)


def test_without_the_rule_the_wrappers_would_take_every_place() -> None:
    # What makes the test above able to fail: by text alone, the wrappers are the best matches among web searches.
    engine = engine_with(WEB_SEARCH)
    index = engine._index  # pyright: ignore[reportPrivateUsage]
    parsed = parse_query("find the latest news about elections in Brazil", lambda _: 1, lambda: Vocabulary([]))
    by_text = [index.tools[scored.doc_id].entry.server for scored in scores_among(index, parsed, index.web_search)]
    assert all("duckduckgo" in server for server in by_text[:MAX_WEB_SEARCH_HITS])


def test_two_web_searches_of_one_server_are_one_service() -> None:
    engine = engine_with(
        {
            "ddg": [
                ("ddg-text-search", "Search the web for news and text results."),
                ("ddg-news-search", "Search the web for news articles."),
            ],
            "google-search": [("search", "Perform a web search query.")],
        }
    )
    servers = offered(engine.search("find the latest news about elections in Brazil"))
    assert servers == ["ddg", "google-search", "ddg"]  # the server's second search waits behind another service


def test_words_most_web_searches_share_name_no_service() -> None:
    engine = engine_with(WEB_SEARCH)
    index = engine._index  # pyright: ignore[reportPrivateUsage]
    named = {index.tools[doc_id].entry.server: words for doc_id, words in services(index, index.web_search).items()}
    assert "duckduckgo" in named["mcp-duckduckgo"]
    assert "duckduckgo" in named["web-search-duckduckgo"]
    assert "googl" in named["google-search"]
    assert "tavili" in named["tavily-mcp"]
    assert all("search" not in words for words in named.values())
    assert named["google-search"].isdisjoint(named["tavily-mcp"])
