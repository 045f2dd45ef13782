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


FILESYSTEM = [
    ("read_file", "Read a file"),
    ("directory_tree", "Tree of a directory"),
    ("get_file_info", "Metadata of a file"),
    ("list_directory", "List a directory"),
]
BUNDLE_EXTRAS = [
    ("create_game_object", "Create a game object in the open Unity scene"),
    ("run_unity_tests", "Run the Unity project's tests"),
    ("build_player", "Build the Unity player"),
]
RICHER = {"get_file_info": "Get detailed metadata of a file: size, times and permissions"}


def bundle_engine(files_on_bundle: list[tuple[str, str]]) -> SearchEngine:
    engine = build_engine()
    engine.replace_server(ServerEntry("fs"), [ToolEntry("fs", name, text) for name, text in FILESYSTEM])
    bundle = [(name, RICHER.get(name, text)) for name, text in files_on_bundle] + BUNDLE_EXTRAS
    engine.replace_server(ServerEntry("unity"), [ToolEntry("unity", name, text) for name, text in bundle])
    return engine


def test_a_server_carrying_half_of_a_smaller_servers_tools_under_their_names_ranks_them_below_the_originals() -> None:
    engine = bundle_engine(FILESYSTEM[2:])  # two of the four: half
    assert ranked(engine, "get detailed metadata of a file")[:2] == ["fs.get_file_info", "unity.get_file_info"]


def test_fewer_namesakes_than_half_are_no_bundle() -> None:
    engine = bundle_engine(FILESYSTEM[2:3])  # one of the four
    assert ranked(engine, "get detailed metadata of a file")[0] == "unity.get_file_info"
    assert republished(engine._index, 6) == frozenset()  # pyright: ignore[reportPrivateUsage]


def test_a_namesake_named_after_its_own_server_is_the_original_even_on_the_larger_server() -> None:
    engine = build_engine()
    agent = [("playwright_click", "Click"), ("playwright_hover", "Hover"), ("record_session", "Record")]
    engine.replace_server(ServerEntry("ui-agent"), [ToolEntry("ui-agent", name, text) for name, text in agent])
    original = [*agent[:2], ("playwright_drag", "Drag"), ("playwright_fill", "Fill"), ("playwright_close", "Close")]
    engine.replace_server(ServerEntry("playwright"), [ToolEntry("playwright", name, text) for name, text in original])
    index = engine._index  # pyright: ignore[reportPrivateUsage]
    entries = [index.tools[doc_id].entry for doc_id in republished(index, 6)]
    copies = {f"{entry.server}.{entry.name}" for entry in entries}
    assert copies == {"ui-agent.playwright_click", "ui-agent.playwright_hover"}
