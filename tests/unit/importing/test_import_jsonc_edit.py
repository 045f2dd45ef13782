"""Splicing one object of a JSON(C) document: only that object changes, in the style of the file."""

from __future__ import annotations

import json

from mcp_gateway.importing.clients import jsonc
from mcp_gateway.importing.clients.jsonc import Edit, apply_edits, replace_value, splice_members

GATEWAY = ("mcp-gateway", {"command": "uvx", "args": ["mcp-gateway"]})


def splice(
    text: str,
    path: list[str],
    changes: dict[str, tuple[str, object] | None],
    append: list[tuple[str, object]] | None = None,
) -> str:
    root = jsonc.parse(text)
    node = root.find(path)
    assert node is not None
    return apply_edits(text, [splice_members(text, node, changes, append or [], root=root)])


def test_a_dropped_member_takes_its_comments_and_a_kept_one_keeps_its_exact_text() -> None:
    text = (
        "{\n"
        '  "servers": {\n'
        "    // GitHub needs a token\n"
        '    "github": {"command": "npx"}, // imported\n'
        "    /* stays */\n"
        '    "oauth":   { "url" : "https://x" }\n'
        "  }\n"
        "}\n"
    )
    result = splice(text, ["servers"], {"github": GATEWAY})
    assert result == (
        "{\n"
        '  "servers": {\n'
        '    "mcp-gateway": {"command": "uvx", "args": ["mcp-gateway"]},\n'
        "    /* stays */\n"
        '    "oauth":   { "url" : "https://x" }\n'
        "  }\n"
        "}\n"
    )


def test_an_indented_object_gets_the_new_member_indented_with_the_files_unit() -> None:
    text = '{\n    "servers": {\n        "a": {\n            "command": "x"\n        }\n    }\n}\n'
    result = splice(text, ["servers"], {"a": GATEWAY})
    expected_body = json.dumps(GATEWAY[1], indent=4).replace("\n", "\n        ")
    assert result == '{\n    "servers": {\n        "mcp-gateway": ' + expected_body + "\n    }\n}\n"


def test_a_trailing_comma_stays_where_the_file_had_one_and_is_never_added() -> None:
    with_comma = '{"s": {\n  "a": 1,\n  "b": 2,\n}}'
    assert splice(with_comma, ["s"], {"b": None}) == '{"s": {\n  "a": 1,\n}}'
    without = '{"s": {\n  "a": 1,\n  "b": 2\n}}'
    assert splice(without, ["s"], {"b": None}) == '{"s": {\n  "a": 1\n}}'


def test_a_one_line_object_stays_on_one_line() -> None:
    text = '{"s": {"a": {"command": "x"}, "b": 1}, "z": 2}'
    assert splice(text, ["s"], {"a": GATEWAY}) == (
        '{"s": {"mcp-gateway": {"command": "uvx", "args": ["mcp-gateway"]}, "b": 1}, "z": 2}'
    )
    assert splice(text, ["s"], {}, [GATEWAY]) == (
        '{"s": {"a": {"command": "x"}, "b": 1, "mcp-gateway": {"command": "uvx", "args": ["mcp-gateway"]}}, "z": 2}'
    )


def test_appending_to_an_empty_object_indents_like_the_rest_of_the_file() -> None:
    text = '{\n  "x": 1,\n  "s": {}\n}\n'
    result = splice(text, ["s"], {}, [("a", 1)])
    assert result == '{\n  "x": 1,\n  "s": {\n    "a": 1\n  }\n}\n'


def test_windows_line_endings_are_kept_in_the_new_text() -> None:
    text = '{\r\n  "s": {\r\n    "a": {\r\n      "command": "x"\r\n    }\r\n  }\r\n}\r\n'
    result = splice(text, ["s"], {"a": GATEWAY})
    assert "\n" not in result.replace("\r\n", "")
    assert json.loads(result) == {"s": {"mcp-gateway": GATEWAY[1]}}


def test_replace_value_writes_a_short_list_on_one_line() -> None:
    text = '{"mcp": {"allowed": [\n  "a",\n  "b"\n]}}'
    node = jsonc.parse(text).find(["mcp", "allowed"])
    assert node is not None
    assert apply_edits(text, [replace_value(node, ["gw", "b"])]) == '{"mcp": {"allowed": ["gw", "b"]}}'


def test_apply_edits_applies_non_overlapping_edits_from_the_end() -> None:
    assert apply_edits("abcdef", [Edit(0, 1, "X"), Edit(4, 6, "YZ!")]) == "XbcdYZ!"
