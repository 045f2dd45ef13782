"""A tool whose name is about something the request does not ask for ranks below one whose name it asks for."""

from __future__ import annotations

from search_catalog import engine_with, ranked

from mcp_gateway.search.fits import NAME_FIT_FLOOR, NameFits

# Each price tool matches "current" and "price"; only the stock one is about what the request asks for, and its
# text matches less of the request's words.
SERVERS: dict[str, list[tuple[str, str]]] = {
    "bsv": [("bsv_getPrice", "Retrieves the current price of Bitcoin SV (BSV) in USD from a reliable exchange.")],
    "cars": [("search_car_price", "Search the current price of car models by brand name.")],
    "finance": [("get_stock_price", "Look up a listed company by its symbol.")],
    "playwright": [("playwright_click", "Click an element on the page.")],
    "browser": [("browser_hover", "Hover over an element on the page.")],
    "weather": [("get_forecast", "Get the weather forecast for a city.")],
}


def test_a_tool_named_for_another_object_ranks_below_the_one_named_for_what_is_asked() -> None:
    names = ranked(engine_with(SERVERS).search("what is the current share price of Amazon"))
    assert names.index("finance.get_stock_price") < names.index("bsv.bsv_getPrice")
    assert names.index("finance.get_stock_price") < names.index("cars.search_car_price")


def test_the_words_of_the_tools_own_server_in_its_name_count_for_nothing_against_it() -> None:
    engine = engine_with(SERVERS)
    index = engine._index  # pyright: ignore[reportPrivateUsage]
    ids = {index.tools[doc_id].entry.name: doc_id for doc_id in index.tools}
    fits = NameFits().of(
        index,
        [ids["playwright_click"], ids["browser_hover"], ids["get_forecast"]],
        {"click", "element", "~click"},
    )
    assert fits[ids["playwright_click"]] == 1.0  # `playwright` names its home: the name asks only to click
    assert fits[ids["browser_hover"]] == NAME_FIT_FLOOR  # `browser` is not its server's name: hover is not asked
    assert NAME_FIT_FLOOR <= fits[ids["get_forecast"]] < 1.0


def test_a_concept_of_the_request_accounts_for_a_name_word() -> None:
    engine = engine_with(SERVERS)
    index = engine._index  # pyright: ignore[reportPrivateUsage]
    stock = next(doc_id for doc_id in index.tools if index.tools[doc_id].entry.name == "get_stock_price")
    fits = NameFits().of(index, [stock], {"get", "share", "price", "~stock"})
    assert fits[stock] == 1.0  # `share` is not `stock`, but both are the lexicon's ~stock
