"""One tool published unchanged on several servers shows once among the first places of a ranking."""

from __future__ import annotations

from mcp_gateway.search import SearchEngine, ServerEntry, ToolEntry
from mcp_gateway.search.identical import DISTINCT_PLACES, identical_groups

SELECT = "Select an option in a dropdown menu on the page."
# The same tool on two servers, and distinct tools that match a dropdown request less well.
CATALOG: dict[str, list[tuple[str, str]]] = {
    "e2e-testing": [("browser_select_option", SELECT)],
    "ui-automation": [("browser_select_option", SELECT)],
    "puppeteer": [("puppeteer_select", "Select an element on the page with a select tag.")],
    "forms": [("choose_option", "Choose an option of a form's dropdown.")],
    "menus": [("open_menu", "Open a dropdown menu.")],
    "pages": [("page_select_text", "Select text on the page.")],
    "widgets": [("option_list", "List the options of a widget.")],
}
REQUEST = "select the option from the dropdown menu"


def engine_with(servers: dict[str, list[tuple[str, str]]]) -> SearchEngine:
    engine = SearchEngine()
    for server, tools in servers.items():
        engine.replace_server(ServerEntry(server), [ToolEntry(server, name, text) for name, text in tools])
    return engine


def test_an_identical_copy_waits_below_the_first_places() -> None:
    hits = engine_with(CATALOG).search(REQUEST).hits
    ranked = [f"{hit.server}.{hit.tool}" for hit in hits]
    first = [hit.tool for hit in hits[:DISTINCT_PLACES]]
    assert first.count("browser_select_option") == 1, ranked
    # Still found, right after the first places, and scored no higher than the tool it follows.
    assert ranked.index("ui-automation.browser_select_option") == DISTINCT_PLACES, ranked
    scores = [hit.score for hit in hits]
    assert scores == sorted(scores, reverse=True)


def test_without_the_rule_the_copies_would_take_two_first_places() -> None:
    # What makes the test above able to fail: identical text scores identically, so the copies sit side by side.
    hits = engine_with(CATALOG).search(REQUEST).hits
    kept = next(hit for hit in hits if hit.tool == "browser_select_option")
    moved = next(hit for hit in hits if hit.server == "ui-automation")
    assert hits.index(kept) < DISTINCT_PLACES
    assert all(hit.score <= kept.score for hit in hits[hits.index(kept) + 1 : DISTINCT_PLACES])
    assert moved.score <= kept.score


def test_the_copy_whose_text_names_its_server_keeps_its_place() -> None:
    convert = ("convert_page", "Markdownify converts a web page to markdown.")
    engine = engine_with({"toolbox": [convert], "markdownify": [convert]})
    hits = engine.search("convert a web page to markdown").hits
    # The toolbox's copy is indexed first and ties on score, so without the evidence it would come first.
    assert [hit.server for hit in hits] == ["markdownify", "toolbox"]
    assert hits[0].score == hits[1].score


def test_tools_differing_in_text_are_no_identical_copies() -> None:
    engine = engine_with(
        {
            "one": [("browser_select_option", SELECT)],
            "two": [("browser_select_option", "Select an option in a dropdown.")],
            "three": [("browser_select_option", "  select an option in a DROPDOWN menu on the page. ")],
        }
    )
    groups, evidence = identical_groups(engine._index)  # pyright: ignore[reportPrivateUsage]
    index = engine._index  # pyright: ignore[reportPrivateUsage]
    grouped = {index.tools[doc_id].entry.server for doc_id in groups}
    assert grouped == {"one", "three"}  # spacing and case aside, the same text
    assert set(evidence) == set(groups)


def test_an_index_change_regroups_the_copies() -> None:
    engine = engine_with(CATALOG)
    assert engine.search(REQUEST).hits[DISTINCT_PLACES].server == "ui-automation"
    reworded = ToolEntry("ui-automation", "browser_select_option", "Select an option of a dropdown menu on the page.")
    engine.replace_server(ServerEntry("ui-automation"), [reworded])
    first = [hit.server for hit in engine.search(REQUEST).hits[:DISTINCT_PLACES]]
    assert {"e2e-testing", "ui-automation"} <= set(first), first
