"""includeTools / excludeTools globs: `*` and `?` only, everything else literal."""

from __future__ import annotations

import pytest

from mcp_gateway.catalog import glob_match, tool_allowed


@pytest.mark.parametrize(
    ("name", "pattern", "matches"),
    [
        ("read_file", "read_*", True),
        ("read_file", "*_file", True),
        ("read_file", "*", True),
        ("read_file", "read_fil?", True),
        ("read_file", "read_fi?", False),
        ("read_file", "read", False),
        ("read_file", "file", False),
        ("read_file", "READ_*", False),
        ("a.b", "a?b", True),
        ("axb", "a.b", False),
    ],
)
def test_globs_support_star_and_question_mark_and_match_the_whole_name(name: str, pattern: str, matches: bool) -> None:
    assert glob_match(name, pattern) is matches


def test_a_bracket_in_a_pattern_is_literal() -> None:
    assert glob_match("get[all]", "get[all]")
    assert glob_match("get[all]", "get[*]")
    assert not glob_match("geta", "get[abc]")


def test_regex_characters_in_a_pattern_are_literal() -> None:
    assert glob_match("a+b", "a+b")
    assert not glob_match("aab", "a+b")
    assert not glob_match("x", "(x|y)")


def test_no_filters_allow_every_tool() -> None:
    assert tool_allowed("anything", (), ())


def test_include_globs_allow_only_the_tools_they_match() -> None:
    assert tool_allowed("read_file", ("read_*", "list_*"), ())
    assert tool_allowed("list_directory", ("read_*", "list_*"), ())
    assert not tool_allowed("write_file", ("read_*", "list_*"), ())


def test_exclude_globs_hide_the_tools_they_match() -> None:
    assert not tool_allowed("delete_file", (), ("delete_*",))
    assert tool_allowed("read_file", (), ("delete_*",))


def test_exclude_wins_over_include() -> None:
    include, exclude = ("*_file",), ("delete_*",)
    assert tool_allowed("read_file", include, exclude)
    assert not tool_allowed("delete_file", include, exclude)
    assert not tool_allowed("list_directory", include, exclude)
