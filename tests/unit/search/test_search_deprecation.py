"""Deprecated tools: read from their own text, ranked below their replacements, never `high` beside them.

The phrasings are those of real servers (the reference filesystem server, and tools in the bench catalogs);
the filesystem tools below are listed as @modelcontextprotocol/server-filesystem lists them.
"""

from __future__ import annotations

import re
import sys

import pytest

from mcp_gateway.search import SearchEngine, SearchResult, ServerEntry, ToolEntry
from mcp_gateway.search.documents import MARKER_WORD, deprecation_of

READ_FILE = ToolEntry(
    "filesystem",
    "read_file",
    "Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.",
    "Read File (Deprecated)",
    (("path", ""), ("tail", "If provided, returns only the last N lines of the file")),
)
READ_TEXT_FILE = ToolEntry(
    "filesystem",
    "read_text_file",
    "Read the complete contents of a file from the file system as text. Handles various text encodings and "
    "provides detailed error messages if the file cannot be read. Use this tool when you need to examine the "
    "contents of a single file. Use the 'head' parameter to read only the first N lines of a file, or the 'tail' "
    "parameter to read only the last N lines of a file. Operates on the file as text regardless of extension. "
    "Only works within allowed directories.",
    "Read Text File",
    (("path", ""), ("tail", "If provided, returns only the last N lines of the file")),
)
READ_MEDIA_FILE = ToolEntry(
    "filesystem",
    "read_media_file",
    "Read a file and return it as a base64-encoded content block with its MIME type. Image and audio files are "
    "returned as image/audio content; any other file type is returned as an embedded resource. Only works within "
    "allowed directories.",
    "Read Media File",
    (("path", ""),),
)
GET_FILE_INFO = ToolEntry(
    "filesystem",
    "get_file_info",
    "Retrieve detailed metadata about a file or directory. Returns comprehensive information including size, "
    "creation time, last modified time, permissions, and type. This tool is perfect for understanding file "
    "characteristics without reading the actual content. Only works within allowed directories.",
    "Get File Info",
    (("path", ""),),
)
WRITE_FILE = ToolEntry(
    "filesystem",
    "write_file",
    "Create a new file or completely overwrite an existing file with new content. Use with caution as it will "
    "overwrite existing files without warning. Handles text content with proper encoding. Only works within "
    "allowed directories.",
    "Write File",
    (("path", ""), ("content", "")),
)
SERVER = (READ_FILE, READ_TEXT_FILE, READ_MEDIA_FILE, GET_FILE_INFO, WRITE_FILE)


def filesystem(*tools: ToolEntry) -> SearchEngine:
    engine = SearchEngine()
    engine.replace_server(ServerEntry("filesystem"), list(tools))
    return engine


def order(result: SearchResult) -> list[str]:
    return [hit.tool for hit in result.hits]


@pytest.mark.parametrize(
    ("name", "title", "description", "replacements"),
    [
        (READ_FILE.name, READ_FILE.title, READ_FILE.description, ("read_text_file",)),
        (
            "defillama_get_protocols",
            None,
            "⚠️ DEPRECATED: Use defillama_get_top_protocols or defillama_get_protocols_paginated instead. Gets "
            "DeFi protocols (limited to prevent overwhelming responses).",
            ("defillama_get_top_protocols", "defillama_get_protocols_paginated"),
        ),
        ("browser_get_html", None, "Deprecated, please use browser_get_markdown instead", ("browser_get_markdown",)),
        ("ChattingController_getMessages", None, 'DEPRECATED. Use "GET /api/chats/{id}/messages" instead', ()),
        ("SessionsController_DEPRECATED_stop", None, "Stop session and Logout by default.", ()),
        ("list_items", None, "List the items. This tool is deprecated in favour of list_items_v2.", ("list_items_v2",)),
        ("fetch_page", "Fetch page (deprecated)", "Fetch a web page. Use fetch_url for new code.", ("fetch_url",)),
    ],
)
def test_a_tool_that_says_it_is_deprecated_is_read_as_deprecated_with_the_names_it_points_to(
    name: str, title: str | None, description: str, replacements: tuple[str, ...]
) -> None:
    deprecation = deprecation_of(name, title, description)
    assert deprecation is not None
    assert all(replacement in deprecation.replacements for replacement in replacements)


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("npmDeprecated", "Check if packages are deprecated"),
        ("list_packages", "Lists packages that are deprecated. Use the name parameter to filter them."),
        ("article_searcher", "Search articles. For genetic variant database records, use variant_searcher instead."),
        (
            "get_live_temp",
            "Legacy tool: Get current temperature for a city (for backward compatibility). Use "
            "get_current_weather_tool for more detailed information.",
        ),
        ("scan_all_keys", "Scan every key. For large-scale operations, consider using scan_keys() instead."),
    ],
)
def test_a_tool_that_only_mentions_deprecation_or_an_alternative_is_not_deprecated(name: str, description: str) -> None:
    assert deprecation_of(name, None, description) is None


def test_the_replacement_ranks_above_the_deprecated_tool_whose_text_matches_the_request_somewhat_better() -> None:
    engine = SearchEngine()
    tools = [
        ToolEntry("browser", "fetch_page", "Fetch a web page and return its text. DEPRECATED: use fetch_url instead."),
        ToolEntry("browser", "fetch_url", "Fetch a web page by its URL and return its content."),
        ToolEntry("browser", "click", "Click an element of the page."),
    ]
    engine.replace_server(ServerEntry("browser"), tools)
    assert order(engine.search("fetch a web page"))[:2] == ["fetch_url", "fetch_page"]


def test_the_filesystem_servers_read_text_file_ranks_above_its_deprecated_read_file() -> None:
    result = filesystem(*SERVER).search("read a file")
    assert order(result).index("read_text_file") < order(result).index("read_file")


def test_a_deprecated_tool_is_not_high_beside_its_replacement_and_says_what_to_use() -> None:
    result = filesystem(*SERVER).search("read a file")
    hits = {hit.tool: hit for hit in result.hits}
    assert order(result).index("read_text_file") < order(result).index("read_file")
    assert hits["read_file"].confidence != "high"
    # Judged as a plain tool, read_file is high for this request: the demotion is what makes it medium.
    plain = ToolEntry("filesystem", "read_file", READ_FILE.description.split(" DEPRECATED")[0], "Read File")
    assert {hit.tool: hit for hit in filesystem(plain).search("read a file").hits}["read_file"].confidence == "high"
    assert any("read_text_file" in reason and "deprecated" in reason for reason in hits["read_file"].reasons)


def test_a_query_spelling_the_deprecated_tools_name_still_finds_it_first_and_names_the_replacement() -> None:
    result = filesystem(*SERVER).search("read_file")
    assert order(result)[0] == "read_file"
    assert result.hits[0].confidence == "medium"
    assert "read_text_file" in result.hits[0].reasons[0]


def test_a_deprecated_tool_without_its_replacement_in_the_results_keeps_its_place_and_says_it_is_deprecated() -> None:
    # Without read_text_file, read_file matches best, and says it is deprecated.
    result = filesystem(READ_FILE, READ_MEDIA_FILE, GET_FILE_INFO, WRITE_FILE).search("read a file as text")
    assert order(result)[0] == "read_file"
    # Its demoted score may bring a rival within reach (then medium), but it is still a match worth calling.
    assert result.hits[0].confidence != "low"
    assert result.hits[0].reasons[0].startswith("deprecated")


def test_a_server_that_drops_the_deprecation_gets_its_tool_ranked_as_any_other_again() -> None:
    engine = filesystem(*SERVER)
    plain = ToolEntry("filesystem", "read_file", READ_FILE.description.split(" DEPRECATED")[0], "Read File")
    engine.replace_server(ServerEntry("filesystem"), [plain, *SERVER[1:]])
    fresh = filesystem(plain, *SERVER[1:])
    result = engine.search("read a file")
    assert result.hits == fresh.search("read a file").hits
    assert not any("deprecated" in reason for hit in result.hits for reason in hit.reasons)


def test_every_character_a_marker_matches_ignoring_case_lowers_into_the_marker_word() -> None:
    """`deprecation_of` reads no further than `MARKER_WORD` in the lowered text: that is exact only if every
    character the markers' case-blind matching takes for one of the word's letters lowers to that letter."""
    everything = "".join(map(chr, range(sys.maxunicode + 1)))
    for letter in set(MARKER_WORD):
        for character in re.findall(letter, everything, re.IGNORECASE):
            assert letter in character.lower(), (letter, hex(ord(character)))


def test_a_marker_in_any_case_in_the_name_title_or_description_alone_is_read() -> None:
    assert deprecation_of("list_items", None, "List items. DePrEcAtEd: use list_all instead.") is not None
    assert deprecation_of("old_DEPRECATED_list", None, "List items.") is not None
    assert deprecation_of("list_items", "List Items (deprecated)", "List items.") is not None
    assert deprecation_of("list_items", "List Items", "List items, use list_all for more.") is None
