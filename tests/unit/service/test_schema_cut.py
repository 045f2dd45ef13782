"""Structural schema cutting: under budget untouched, over budget reduced step by step, never broken JSON."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from mcp_gateway.service.schema_cut import cut_schema, without_boilerplate
from mcp_gateway.tokens import compact_json


def big_schema() -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "title": "Create an issue",
        "description": "Everything needed to open an issue. " * 10,
        "properties": {
            "description": {"type": "string", "description": "The issue body, in Markdown. " * 5},
            "title": {"type": "string", "description": "A short summary.", "examples": ["Crash on start"]},
            "labels": {
                "type": "array",
                "description": "Labels to apply.",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "Label name."},
                        "color": {"type": "string", "pattern": "^[0-9a-f]{6}$", "description": "Hex colour."},
                    },
                    "required": ["name"],
                },
            },
            "priority": {"type": "string", "enum": ["low", "normal", "high"], "description": "How urgent."},
        },
        "required": ["title", "description"],
    }


def size(schema: dict[str, Any]) -> int:
    return len(compact_json(schema))


def keys_anywhere(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():  # pyright: ignore[reportUnknownVariableType]
            found.add(str(key))  # pyright: ignore[reportUnknownArgumentType]
            found |= keys_anywhere(value)
    elif isinstance(node, list):
        for item in node:  # pyright: ignore[reportUnknownVariableType]
            found |= keys_anywhere(item)
    return found


def test_compact_json_has_no_whitespace_between_tokens_and_keeps_unicode() -> None:
    assert compact_json({"a": [1, 2], "名": "值"}) == '{"a":[1,2],"名":"值"}'


def test_a_schema_under_budget_is_returned_unchanged_and_not_flagged() -> None:
    schema = big_schema()
    result, cut = cut_schema(schema, size(schema))
    assert result == big_schema()
    assert not cut


def test_over_budget_descriptions_are_dropped_first() -> None:
    schema = big_schema()
    without_prose_budget = size(schema) // 2
    result, cut = cut_schema(schema, without_prose_budget)
    assert cut
    assert size(result) <= without_prose_budget
    assert {"examples", "$schema"}.isdisjoint(keys_anywhere(result))
    assert "description" not in result
    assert "description" not in result["properties"]["title"]
    assert "description" not in result["properties"]["labels"]["items"]["properties"]["name"]
    # Structure other than prose is all still there.
    assert result["properties"]["labels"]["items"]["properties"]["color"]["pattern"] == "^[0-9a-f]{6}$"
    assert result["properties"]["priority"]["enum"] == ["low", "normal", "high"]
    assert result["required"] == ["title", "description"]


def test_a_property_literally_named_description_survives_the_cut() -> None:
    result, cut = cut_schema(big_schema(), size(big_schema()) // 2)
    assert cut
    assert result["properties"]["description"] == {"type": "string"}
    assert "title" in result["properties"]


def test_a_tighter_budget_reduces_nested_detail_to_types() -> None:
    schema = big_schema()
    result, cut = cut_schema(schema, 260)
    assert cut
    assert size(result) <= 260
    assert set(result["properties"]) == {"description", "title", "labels", "priority"}
    assert "properties" not in result["properties"]["labels"].get("items", {})


def test_the_tightest_budget_keeps_the_top_level_names_types_and_required() -> None:
    result, cut = cut_schema(big_schema(), 10)
    assert cut
    assert result == {
        "type": "object",
        "properties": {
            "description": {"type": "string"},
            "title": {"type": "string"},
            "labels": {"type": "array"},
            "priority": {"type": "string"},
        },
        "required": ["title", "description"],
    }


@pytest.mark.parametrize("budget", [1, 50, 120, 200, 300, 500, 800, 5000])
def test_every_cut_is_valid_json_and_never_larger_than_the_original(budget: int) -> None:
    schema = big_schema()
    result, _ = cut_schema(schema, budget)
    text = compact_json(result)
    assert json.loads(text) == result
    assert len(text) <= size(schema)


def test_cutting_does_not_modify_the_callers_schema() -> None:
    schema = big_schema()
    cut_schema(schema, 50)
    assert schema == big_schema()


def test_a_cut_schema_keeps_no_reference_to_definitions_it_dropped() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"label": {"$ref": "#/$defs/Label"}},
        "$defs": {
            "Label": {
                "type": "object",
                "properties": {
                    f"field{i}": {"type": "string", "enum": [f"v{j}" for j in range(10)]} for i in range(20)
                },
            }
        },
    }
    result, cut = cut_schema(schema, 300)
    assert cut
    kept = set(result.get("$defs", {}))
    referenced = set(re.findall(r'"\$ref":"#/\$defs/([^"]+)"', compact_json(result)))
    assert referenced <= kept


def test_boilerplate_that_tells_the_model_nothing_is_dropped_and_the_rest_kept() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "echoArguments",
        "type": "object",
        "properties": {
            "message": {"title": "Message", "type": "string"},
            "max_items": {"title": "Max Items", "type": "integer"},
            "mode": {"title": "How to search", "type": "string"},
            "title": {"type": "string"},
        },
        "required": ["message"],
        "additionalProperties": False,
    }
    assert without_boilerplate(schema) == {
        "type": "object",
        "properties": {
            "message": {"type": "string"},
            "max_items": {"type": "integer"},
            "mode": {"title": "How to search", "type": "string"},
            "title": {"type": "string"},
        },
        "required": ["message"],
        "additionalProperties": False,
    }
