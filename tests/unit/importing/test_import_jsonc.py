"""The tolerant JSON reader: comments, trailing commas, spans, and errors that name the place."""

from __future__ import annotations

import pytest

from mcp_gateway.importing.clients import jsonc
from mcp_gateway.importing.clients.jsonc import JsoncError


def test_parse_reads_comments_and_trailing_commas_like_vscode_does() -> None:
    text = '// head\n{\n  /* block */ "a": [1, 2,], // tail\n  "b": {"c": "d",},\n}\n'
    assert jsonc.parse(text).value == {"a": [1, 2], "b": {"c": "d"}}


def test_parse_records_the_span_of_each_member_and_value() -> None:
    text = '{"servers": {"x": {"command": "npx"}}, "other": true}'
    root = jsonc.parse(text)
    servers = root.find(["servers"])
    assert servers is not None
    assert text[servers.start : servers.end] == '{"x": {"command": "npx"}}'
    member = servers.member("x")
    assert member is not None
    assert text[member.key_start : member.value.end] == '"x": {"command": "npx"}'
    assert member.comma is None


def test_a_repeated_key_keeps_its_last_value_as_json_parse_does() -> None:
    root = jsonc.parse('{"a": 1, "b": 2, "a": 3}')
    assert root.value == {"b": 2, "a": 3}
    node = root.find(["a"])
    assert node is not None
    assert node.value == 3


def test_strings_with_escapes_and_comment_markers_are_read_as_text() -> None:
    root = jsonc.parse(r'{"url": "https://x//y", "q": "say \"hi\" /* not a comment */"}')
    assert root.value == {"url": "https://x//y", "q": 'say "hi" /* not a comment */'}


def test_find_returns_none_for_a_missing_step() -> None:
    root = jsonc.parse('{"a": {"b": 1}}')
    assert root.find(["a", "c"]) is None
    assert root.find(["a", "b", "c"]) is None


def test_a_byte_order_mark_is_skipped() -> None:
    assert jsonc.parse('\ufeff{"a": 1}').value == {"a": 1}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{\n  "a": 1\n  "b": 2\n}', "line 3, column 3"),
        ('{"a": }', "line 1, column 7"),
        ('{"a": 1} extra', "line 1, column 10"),
        ('{"a": "open', "line 1, column 7"),
        ('{"a": 1 /* never closed', "line 1, column 9"),
    ],
)
def test_broken_text_is_reported_with_its_line_and_column(text: str, where: str) -> None:
    with pytest.raises(JsoncError, match=where):
        jsonc.parse(text)
