"""The search fields are one type: every table keyed by them covers each field, and the index stores them in order."""

from __future__ import annotations

from typing import get_args

from mcp_gateway.search.confidence import STRENGTH
from mcp_gateway.search.documents import (
    CONCEPT_FIELDS,
    SERVER_FIELDS,
    TOOL_FIELDS,
    ServerEntry,
    ServerField,
    ToolEntry,
    ToolField,
    index_server,
    index_tool,
)
from mcp_gateway.search.ranking import FIELD_SCORING, SERVER_FIELD_SCORING


def test_the_field_tuples_are_the_field_types_spelled_once() -> None:
    assert get_args(ToolField) == TOOL_FIELDS
    assert get_args(ServerField) == SERVER_FIELDS
    assert len(set(TOOL_FIELDS)) == len(TOOL_FIELDS)
    assert set(TOOL_FIELDS) > CONCEPT_FIELDS


def test_every_tool_field_has_a_bm25_weight_and_b_and_a_confidence_strength() -> None:
    assert tuple(FIELD_SCORING) == TOOL_FIELDS  # the order BM25F sums the fields in
    assert all(0.0 <= scoring.b <= 1.0 and scoring.weight > 0 for scoring in FIELD_SCORING.values())
    assert set(STRENGTH) == {*TOOL_FIELDS, "server"}
    assert set(SERVER_FIELD_SCORING) <= set(SERVER_FIELDS)


def test_an_indexed_tool_holds_each_fields_terms_under_that_fields_name() -> None:
    tool = index_tool(
        ToolEntry("github", "create_issue", "Open a ticket in a repository.", "New issue", (("owner", "Who owns it"),))
    )
    assert [field for field, _ in tool.by_field()] == list(TOOL_FIELDS)
    assert set(tool.field("name")) == {"creat", "issu"}
    assert set(tool.field("title")) == {"new", "issu"}
    assert "repositori" in tool.field("description")
    assert set(tool.field("param_names")) == {"owner"}
    assert "own" in tool.field("param_text")
    assert "~create" in tool.field("name_concepts")
    assert "~issue" in tool.field("concepts")


def test_an_indexed_server_holds_its_names_and_its_description_under_the_server_fields() -> None:
    fields = index_server(ServerEntry("github", ("gh",), "Code hosting"))
    assert tuple(fields) == SERVER_FIELDS
    assert {"github", "gh"} <= set(fields["server"])
    assert "code" in fields["server_text"]
