"""What `doctor` says about a server's tool list: names clients reject, and what the list costs in tokens."""

from __future__ import annotations

import json

from mcp_gateway.catalog import ServerCatalog, ToolRecord
from mcp_gateway.service.doctor import name_problems, schema_tokens
from mcp_gateway.tokens import TokenCounter


def tool(name: str, **fields: object) -> ToolRecord:
    return ToolRecord.from_wire({"name": name, "inputSchema": {"type": "object"}, **fields})


def test_well_named_tools_have_no_problems() -> None:
    assert name_problems("github", [tool("create_issue"), tool("list-prs"), tool("repo.get")]) == ()


def test_a_tool_listed_twice_is_a_problem() -> None:
    [problem] = name_problems("github", [tool("search"), tool("search")])
    assert problem == "'search' is listed 2 times; clients keep only one of them"


def test_a_qualified_name_over_64_characters_is_a_problem_and_64_is_not() -> None:
    server = "s" * 40
    fits, too_long = "t" * (64 - 41), "t" * (65 - 41)
    problems = name_problems(server, [tool(fits), tool(too_long)])
    assert len(problems) == 1
    assert problems[0].startswith(f"'{server}.{too_long}' is 65 characters")


def test_spaces_and_other_characters_outside_the_specifications_advice_are_a_problem() -> None:
    problems = name_problems("x", [tool("get weather"), tool("天气")])
    assert [problem.split("'")[1] for problem in problems] == ["get weather", "天气"]


def test_the_token_count_covers_every_field_of_every_tool_in_compact_json() -> None:
    tools = (tool("a", description="first", annotations={"readOnlyHint": True}), tool("b", title="B"))
    entry = ServerCatalog("s", "fingerprint", 0.0, tools)
    seen: list[str] = []

    def count(text: str) -> int:
        seen.append(text)
        return len(text)

    tokens = schema_tokens(entry, TokenCounter(count, exact=True))
    [text] = seen
    assert tokens == len(text)
    assert json.loads(text) == [t.to_wire() for t in tools]
    assert " " not in text.replace("first", "")
