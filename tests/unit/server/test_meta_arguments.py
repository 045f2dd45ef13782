"""The meta-tools' own arguments: common model mistakes accepted or explained in one sentence."""

from __future__ import annotations

import pytest

from mcp_gateway.server.arguments import (
    DescribeArguments,
    ExecuteArguments,
    ListArguments,
    SearchArguments,
    parse_arguments,
)
from mcp_gateway.service.surface import MAX_SEARCH_ALTERNATIVES

MISPLACED = "Put the tool's own arguments ({}) inside 'arguments'."


def test_execute_arguments_given_as_a_json_string_are_accepted() -> None:
    parsed = parse_arguments(ExecuteArguments, "execute_tool", {"tool": "fs.read_file", "arguments": '{"path": "/x"}'})
    assert isinstance(parsed, ExecuteArguments)
    assert parsed.arguments == {"path": "/x"}


@pytest.mark.parametrize("empty", [None, "", "  "])
def test_missing_or_empty_execute_arguments_mean_no_arguments(empty: str | None) -> None:
    parsed = parse_arguments(ExecuteArguments, "execute_tool", {"tool": "t", "arguments": empty})
    assert isinstance(parsed, ExecuteArguments)
    assert parsed.arguments == {}


@pytest.mark.parametrize("bad", ["not json", "[1, 2]", 5])
def test_execute_arguments_that_are_not_an_object_are_explained(bad: object) -> None:
    message = parse_arguments(ExecuteArguments, "execute_tool", {"tool": "t", "arguments": bad})
    assert message == "Invalid arguments for execute_tool: 'arguments' must be an object."


def test_tool_arguments_put_next_to_tool_are_named_and_not_guessed() -> None:
    message = parse_arguments(ExecuteArguments, "execute_tool", {"tool": "fs.read_file", "path": "/x", "limit": 3})
    assert isinstance(message, str)
    assert message.endswith(MISPLACED.format("limit, path"))


def test_stray_keys_are_named_along_with_other_problems() -> None:
    message = parse_arguments(ExecuteArguments, "execute_tool", {"path": "/x"})
    assert message == f"Invalid arguments for execute_tool: 'tool' is required. {MISPLACED.format('path')}"


def test_a_missing_query_is_explained() -> None:
    assert (
        parse_arguments(SearchArguments, "search_tools", {})
        == "Invalid arguments for search_tools: 'query' is required."
    )


@pytest.mark.parametrize("limit", [0, 21, 100])
def test_a_search_limit_out_of_range_is_explained(limit: int) -> None:
    message = parse_arguments(SearchArguments, "search_tools", {"query": "x", "limit": limit})
    assert isinstance(message, str)
    assert message.startswith("Invalid arguments for search_tools: 'limit': ")
    assert ("greater than or equal to 1" if limit < 1 else "less than or equal to 20") in message


def test_a_search_limit_given_as_a_numeric_string_is_accepted() -> None:
    parsed = parse_arguments(SearchArguments, "search_tools", {"query": " delete file ", "limit": "5"})
    assert isinstance(parsed, SearchArguments)
    assert parsed.limit == 5
    assert parsed.query == "delete file"


def test_a_blank_query_is_refused() -> None:
    message = parse_arguments(SearchArguments, "search_tools", {"query": "   "})
    assert isinstance(message, str)
    assert "'query'" in message


def test_a_negative_list_offset_is_explained() -> None:
    message = parse_arguments(ListArguments, "list_tools", {"server": "github", "offset": -1})
    assert message == "Invalid arguments for list_tools: 'offset': Input should be greater than or equal to 0."


def test_read_only_tools_ignore_unknown_extra_keys() -> None:
    parsed = parse_arguments(DescribeArguments, "describe_tool", {"tool": "gh.create_issue", "verbose": True})
    assert isinstance(parsed, DescribeArguments)
    assert parsed.tool == "gh.create_issue"


def test_no_arguments_at_all_is_a_missing_required_argument() -> None:
    assert parse_arguments(DescribeArguments, "describe_tool", None) == (
        "Invalid arguments for describe_tool: 'tool' is required."
    )


@pytest.mark.parametrize(
    ("alternatives", "expected"),
    [(None, []), ("list pods", ["list pods"]), ([" list pods ", "k8s pods"], ["list pods", "k8s pods"])],
)
def test_search_alternatives_may_be_one_phrasing_or_none(alternatives: object, expected: list[str]) -> None:
    parsed = parse_arguments(SearchArguments, "search_tools", {"query": "pods", "alternatives": alternatives})
    assert isinstance(parsed, SearchArguments)
    assert parsed.alternatives == expected


def test_too_many_search_alternatives_are_explained() -> None:
    many = ["pods"] * (MAX_SEARCH_ALTERNATIVES + 1)
    message = parse_arguments(SearchArguments, "search_tools", {"query": "pods", "alternatives": many})
    assert isinstance(message, str)
    assert f"'alternatives': List should have at most {MAX_SEARCH_ALTERNATIVES} items" in message
