"""A tool named after another server of the catalog is ranked as that server's tool republished: below the original."""

from __future__ import annotations

from search_catalog import build_engine

from mcp_gateway.search import SearchEngine, ServerEntry, ToolEntry
from mcp_gateway.search.originality import republished

ORIGINAL = ("playwright", "playwright_hover", "Hover an element on the page")
COPY = ("ui-debug-agent", "playwright_hover", "Hover over an element on the page")
OWN_NAME = ("playwright-plus", "playwright_hover", "Hover an element on the page")


def engine_of(*tools: tuple[str, str, str]) -> SearchEngine:
    engine = build_engine()  # a catalog around them, so a word's rarity is judged as in a real one
    for server, name, description in tools:
        engine.replace_server(ServerEntry(server), [ToolEntry(server, name, description)])
    return engine


def ranked(engine: SearchEngine, query: str) -> list[str]:
    return [f"{hit.server}.{hit.tool}" for hit in engine.search(query).hits]


def test_the_original_ranks_above_a_copy_whose_longer_description_matches_more() -> None:
    engine = engine_of(ORIGINAL, COPY)
    query = "hover over the element on the page"
    assert ranked(engine_of(COPY, ("browser", "hover_link", "Hover a link")), query)[0].startswith("ui-debug-agent")
    assert ranked(engine, query) == ["playwright.playwright_hover", "ui-debug-agent.playwright_hover"]


def test_without_the_original_in_the_catalog_the_same_tool_is_no_copy() -> None:
    engine = engine_of(COPY, ("browser", "hover_link", "Hover a link"))
    assert ranked(engine, "hover over the element with the css selector")[0] == "ui-debug-agent.playwright_hover"
    assert republished(engine._index, 6) == frozenset()  # pyright: ignore[reportPrivateUsage]


def test_a_tool_named_after_its_own_server_is_no_copy_of_another() -> None:
    engine = engine_of(ORIGINAL, OWN_NAME)
    index = engine._index  # pyright: ignore[reportPrivateUsage]
    assert republished(index, 6) == frozenset()


def test_a_first_word_many_servers_use_is_language_not_a_server_name() -> None:
    servers = [(f"tools{i}", "browser_click", "Click an element in the browser") for i in range(8)]
    engine = engine_of(("browser", "open_page", "Open a page in the browser"), *servers)
    assert republished(engine._index, 6) == frozenset()  # pyright: ignore[reportPrivateUsage]
    copies = engine_of(("browser", "open_page", "Open a page in the browser"), *servers[:2])
    assert len(republished(copies._index, 6)) == 2  # pyright: ignore[reportPrivateUsage]
