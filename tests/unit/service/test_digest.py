"""The servers' digest in the gateway's instructions: its shape, and its bound whatever the number of servers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gateway_testing import load, write_workspace

from mcp_gateway.catalog import ServerSummary
from mcp_gateway.service.digest import (
    HEADING,
    MAX_ABOUT_CHARS,
    MAX_ALIASES_SHOWN,
    MAX_INSTRUCTIONS_BYTES,
    MAX_NAME_CHARS,
    SAMPLE_TOOLS_SHOWN,
    ServerLine,
    digest,
)
from mcp_gateway.service.surface import instructions

PREAMBLE = "How to use the gateway."
LINE = re.compile(r"- (?P<name>[^ :(]+)(?: \((?P<aliases>[^)]*)\))?(?:: (?P<about>.+))?")


def size(text: str) -> int:
    return len(text.encode("utf-8"))


def servers(count: int, *, long: bool = False) -> list[ServerLine]:
    """`count` servers; `long` ones carry the longest names, aliases and text a line can show, in Chinese."""
    if not long:
        return [ServerLine(f"srv{n}", (f"alias{n}",), f"Does task {n}.") for n in range(count)]
    wide = "工" * 400
    return [ServerLine(f"s{n}-{wide}", (wide, wide, wide), wide, (wide,)) for n in range(count)]


def accounted(text: str, total: int) -> tuple[list[str], list[str], int]:
    """The servers with a line, those only named, and how many are counted, checked to add up to `total`."""
    lined = [match["name"] for line in text.splitlines() if (match := LINE.fullmatch(line))]
    also = re.search(r"\nAlso: (?P<names>.*?)(?: and (?P<more>\d+) more \(search_tools finds their tools\))?\.$", text)
    named = also["names"].split(", ") if also else []
    counted = int(also["more"]) if also and also["more"] else 0
    if not also and (bare := re.search(r"\n(?P<more>\d+) servers \(search_tools finds their tools\)\.$", text)):
        counted = int(bare["more"])
    assert len(lined) + len(named) + counted == total, text
    return lined, named, counted


@pytest.mark.parametrize("count", [0, 1, 7, 24, 300, 1000])
@pytest.mark.parametrize("long", [False, True])
def test_the_instructions_stay_within_the_budget_whatever_the_servers(count: int, long: bool) -> None:
    text = digest(PREAMBLE, servers(count, long=long))
    assert size(text) <= MAX_INSTRUCTIONS_BYTES
    assert text.startswith(PREAMBLE)
    if count:
        accounted(text, count)


def test_every_server_gets_a_line_in_config_order_when_they_all_fit() -> None:
    text = digest(PREAMBLE, servers(7))
    assert text.splitlines()[:2] == [PREAMBLE, HEADING]
    lines = text.splitlines()[2:]
    assert lines == [f"- srv{n} (alias{n}): Does task {n}." for n in range(7)]


def test_a_line_shows_two_aliases_and_what_the_server_is_for_before_its_tools() -> None:
    line = ServerLine("github", ("gh", "hub", "代码仓库"), "Issues and code.", ("create_issue",))
    text = digest(PREAMBLE, [line])
    assert text.splitlines()[-1] == "- github (gh, hub): Issues and code."
    assert MAX_ALIASES_SHOWN == 2


def test_without_words_about_it_a_server_is_described_by_a_few_of_its_tools() -> None:
    line = ServerLine("fs", (), None, ("read_file", "write_file", "edit_file", "move_file"))
    assert digest(PREAMBLE, [line]).splitlines()[-1] == "- fs: tools such as read_file, write_file, edit_file"
    assert SAMPLE_TOOLS_SHOWN == 3


def test_a_server_not_listed_yet_is_named_with_its_aliases() -> None:
    assert digest(PREAMBLE, [ServerLine("fresh", ("new",))]).splitlines()[-1] == "- fresh (new)"


def test_long_names_and_text_are_cut_with_an_ellipsis() -> None:
    [line] = digest(PREAMBLE, [ServerLine("n" * 100, ("a" * 100,), "word " * 100)]).splitlines()[2:]
    match = LINE.fullmatch(line)
    assert match is not None
    assert len(match["name"]) == MAX_NAME_CHARS
    assert match["name"].endswith("…")
    assert match["about"] is not None
    assert len(match["about"]) <= MAX_ABOUT_CHARS
    assert match["about"].endswith("…")


def test_when_lines_do_not_all_fit_the_first_servers_keep_theirs_and_the_rest_are_named() -> None:
    many = [ServerLine(f"srv{n}", ("alias",), "x" * MAX_ABOUT_CHARS) for n in range(24)]
    text = digest(PREAMBLE, many)
    lined, named, counted = accounted(text, len(many))
    assert lined == [f"srv{n}" for n in range(len(lined))]
    assert named == [f"srv{n}" for n in range(len(lined), len(many))]
    assert (len(lined) > 0, len(named) > 0, counted) == (True, True, 0)


def test_with_300_servers_as_many_as_fit_are_named_in_order_and_the_rest_counted() -> None:
    text = digest(PREAMBLE, servers(300))
    lined, named, counted = accounted(text, 300)
    assert lined == []
    assert named == [f"srv{n}" for n in range(len(named))]
    assert counted == 300 - len(named) > 0
    assert len(named) > 100  # about 8 bytes a name: most of the 2 KB names servers


def test_each_piece_of_outside_text_is_masked_before_it_is_measured() -> None:
    secret = "sk-" + "z" * 40
    line = ServerLine("srv", (), f"Call with {secret} please.")
    text = digest(PREAMBLE, [line], mask=lambda text: text.replace(secret, "***"))
    assert secret not in text
    assert text.splitlines()[-1] == "- srv: Call with *** please."


# ---- from the config and the catalog's summaries ----


def test_the_config_description_wins_and_filtered_or_disabled_servers_and_tools_are_not_shown(tmp_path: Path) -> None:
    workspace = write_workspace(
        tmp_path,
        {
            "docs": {"command": "x", "description": "Our product docs.", "aliases": ["manual"]},
            "github": {"command": "x", "excludeTools": ["delete_*"]},
            "old": {"command": "x", "disabled": True},
        },
    )
    summaries = {
        "docs": ServerSummary("fp", "What the server says.", ("search",)),
        "github": ServerSummary("fp", None, ("delete_repo", "create_issue", "delete_file", "list_issues")),
        "old": ServerSummary("fp", "Retired.", ()),
    }
    text = instructions(load(workspace), summaries)
    assert "2 MCP servers" in text
    assert text.splitlines()[-2:] == [
        "- docs (manual): Our product docs.",
        "- github: tools such as create_issue, list_issues",
    ]
    assert "old" not in text.split(HEADING)[1]


def test_with_no_server_the_instructions_say_how_to_add_them(tmp_path: Path) -> None:
    text = instructions(load(write_workspace(tmp_path, {})))
    assert "no MCP servers yet" in text
    assert HEADING not in text
