"""What the model reads back (and `--json` prints): search, list and describe payloads, and error texts."""

from __future__ import annotations

import json
from typing import Any

from mcp_gateway.catalog import ToolRecord
from mcp_gateway.errors import InvalidArgumentsError, UnknownToolError
from mcp_gateway.search import Confidence
from mcp_gateway.service.reports import SearchHit, SearchReport, ToolDefinition, ToolDescription, ToolPage
from mcp_gateway.service.views import (
    LIST_DESCRIPTION_CHARS,
    describe_payload,
    error_text,
    list_payload,
    search_payload,
    shorten,
)

READ_FILE = ToolRecord(
    name="read_file",
    description="Read the complete contents of a file.",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
WEAK_ADVICE = (
    "Matches are weak: search again with alternatives (action + object + service words), check a candidate "
    "with describe_tool, or browse a server with list_tools."
)


def found(server: str, tool: ToolRecord, confidence: Confidence, reasons: tuple[str, ...] = ()) -> SearchHit:
    return SearchHit(ToolDefinition(server, tool), confidence, reasons)


def report(*hits: SearchHit, **fields: Any) -> SearchReport:
    base: dict[str, Any] = {"query": "q", "hits": hits, "notes": (), "focused_server": None, "loading": ()}
    base.update(fields)
    return SearchReport(**base)


# ---- search ----


def test_a_search_hit_carries_qualified_name_confidence_why_description_and_schema() -> None:
    payload = search_payload(report(found("filesystem", READ_FILE, "high", ("name: read, file",))))
    assert payload == {
        "results": [
            {
                "tool": "filesystem.read_file",
                "confidence": "high",
                "why": "name: read, file",
                "description": "Read the complete contents of a file.",
                "inputSchema": READ_FILE.input_schema,
            }
        ]
    }


def test_several_reasons_are_joined_and_a_hit_without_reasons_says_so() -> None:
    payload = search_payload(
        report(found("fs", READ_FILE, "high", ("name: file", "synonym read: cat")), found("fs2", READ_FILE, "low")),
    )
    assert [entry["why"] for entry in payload["results"]] == ["name: file; synonym read: cat", "weak partial match"]


def test_a_low_confidence_top_hit_adds_the_describe_and_list_advice() -> None:
    payload = search_payload(report(found("fs", READ_FILE, "low")))
    assert payload["notes"] == [WEAK_ADVICE]


def test_a_confident_top_hit_adds_no_advice() -> None:
    for confidence in ("high", "medium"):
        payload = search_payload(report(found("fs", READ_FILE, confidence), found("x", READ_FILE, "low")))
        assert "notes" not in payload


def test_engine_notes_come_first_in_the_payload_notes() -> None:
    payload = search_payload(report(found("fs", READ_FILE, "low"), notes=("hint note",)))
    assert payload["notes"] == ["hint note", WEAK_ADVICE]


def test_loading_failed_and_unlisted_servers_are_each_noted() -> None:
    payload = search_payload(
        report(loading=("github", "slack"), failed={"jira": "it timed out"}, unlisted=("notes",)),
    )
    notes = payload["notes"]
    assert payload["results"] == []
    assert any("Still loading" in note and "github, slack" in note for note in notes)
    assert "Could not load the tools of 'jira': it timed out" in notes
    assert any("notes" in note and "startupMetadataCheck" in note and "server=" in note for note in notes)


def test_the_no_servers_hint_is_passed_through_as_a_note() -> None:
    payload = search_payload(report(no_servers_hint="No MCP servers are configured."))
    assert payload["notes"] == ["No MCP servers are configured."]


def test_a_huge_schema_in_a_search_hit_is_cut_and_flagged() -> None:
    huge = ToolRecord(
        name="huge",
        input_schema={
            "type": "object",
            "properties": {f"p{i}": {"type": "string", "description": "x" * 80} for i in range(40)},
        },
    )
    payload = search_payload(report(found("s", huge, "high")))
    (entry,) = payload["results"]
    assert entry["schemaShortened"] is True
    assert set(entry["inputSchema"]["properties"]) == {f"p{i}" for i in range(40)}
    assert "Some schemas are shortened; describe_tool shows them whole." in payload["notes"]


def test_a_long_description_in_a_search_hit_is_shortened_at_a_word_boundary() -> None:
    wordy = ToolRecord(name="wordy", description="word " * 400)
    (entry,) = search_payload(report(found("s", wordy, "high")))["results"]
    assert entry["description"].endswith("word …")
    assert len(entry["description"]) <= 402


# ---- list ----


def page(tools: int, *, offset: int, total: int, instructions: str | None = None) -> ToolPage:
    records = tuple(
        ToolDefinition("srv", ToolRecord(name=f"t{offset + i}", description=f"Tool {offset + i}."))
        for i in range(tools)
    )
    return ToolPage(server="srv", tools=records, total=total, offset=offset, instructions=instructions)


def test_a_list_page_with_more_tools_after_it_gives_the_next_offset() -> None:
    payload = list_payload(page(10, offset=0, total=25))
    assert payload["server"] == "srv"
    assert payload["total"] == 25
    assert payload["offset"] == 0
    assert payload["nextOffset"] == 10
    assert payload["tools"][0] == {"name": "t0", "description": "Tool 0."}


def test_the_last_list_page_has_no_next_offset() -> None:
    assert "nextOffset" not in list_payload(page(5, offset=20, total=25))
    assert "nextOffset" not in list_payload(page(0, offset=40, total=25))


def test_list_descriptions_are_short() -> None:
    long = ToolPage("srv", (ToolDefinition("srv", ToolRecord(name="t", description="x " * 500)),), 1, 0, None)
    assert len(list_payload(long)["tools"][0]["description"]) <= LIST_DESCRIPTION_CHARS + 2


def test_server_instructions_appear_whole_on_the_first_page_only() -> None:
    # Whole: the catalog bounded them when the server was listed; a page never cuts them again.
    instructions = "Use UTC. " * 300
    assert list_payload(page(1, offset=0, total=2, instructions=instructions))["serverInstructions"] == instructions
    assert "serverInstructions" not in list_payload(page(1, offset=1, total=2, instructions=instructions))


# ---- describe ----


def test_describe_keeps_every_field_of_the_tool() -> None:
    wire: dict[str, Any] = {
        "name": "create_issue",
        "title": "Create an issue",
        "description": "Opens an issue.",
        "inputSchema": {"type": "object", "properties": {"title": {"type": "string", "description": "Title"}}},
        "outputSchema": {"type": "object", "properties": {"url": {"type": "string"}}},
        "annotations": {"destructiveHint": False, "openWorldHint": True},
        "_meta": {"vendor.example/scope": ["repo"]},
        "icons": [{"src": "https://example.com/icon.png"}],
        "execution": {"taskSupport": "optional"},
    }
    payload = describe_payload(ToolDescription(ToolDefinition("github", ToolRecord.from_wire(wire)), None))
    assert payload["tool"] == "github.create_issue"
    assert payload["server"] == "github"
    assert "schemaShortened" not in payload
    assert "serverInstructions" not in payload
    for key, value in wire.items():
        if key != "name":
            assert payload[key] == value


def test_describe_carries_the_server_instructions_whole() -> None:
    instructions = "Use owner/repo form. " * 100  # 2,100 characters, longer than any other text a payload cuts
    description = ToolDescription(ToolDefinition("github", ToolRecord("create_issue")), instructions)
    assert describe_payload(description)["serverInstructions"] == instructions


# ---- errors and text ----


def test_an_error_text_is_the_message() -> None:
    text = error_text(UnknownToolError("No tool named 'x'; call search_tools to find the right tool."))
    assert text == "No tool named 'x'; call search_tools to find the right tool."


def test_an_invalid_arguments_error_text_includes_the_tool_schema() -> None:
    error = InvalidArgumentsError("Arguments for 'fs.read_file' do not match its schema: 'path' is required.", ["x"])
    text = error_text(error, ToolDefinition("fs", READ_FILE))
    first, second = text.split("\n")
    assert first == error.message
    assert second.startswith("Input schema: ")
    assert json.loads(second.removeprefix("Input schema: ")) == READ_FILE.input_schema


def test_an_invalid_arguments_error_with_a_huge_schema_says_the_schema_is_shortened() -> None:
    huge = ToolRecord(
        name="huge",
        input_schema={
            "type": "object",
            "properties": {f"p{i}": {"type": "string", "description": "y" * 100} for i in range(40)},
        },
    )
    text = error_text(InvalidArgumentsError("Bad.", []), ToolDefinition("s", huge))
    schema_line = text.split("\n")[1]
    assert schema_line.startswith("Input schema (shortened): ")
    json.loads(schema_line.removeprefix("Input schema (shortened): "))


def test_shorten_collapses_whitespace_and_cuts_at_a_word() -> None:
    assert shorten("a  b\n c", 10) == "a b c"
    assert shorten("alpha beta, gamma", 12) == "alpha beta …"
