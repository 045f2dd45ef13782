"""The command line page (`docs/command-line.md`) shows what the commands really print, run after run.

Every command of the section runs with the real `mcp-gateway` in the setting the section describes (a fresh
workspace with the demo's two servers, a Claude Code config with one server), and what it prints must be
what the page shows, once scratch paths, durations and ages are put as the page puts them.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from readme_command_line import PAGE, Setting, comparable, run_session, section_commands

pytestmark = [pytest.mark.e2e]

SUBCOMMANDS = ("list", "refresh", "search", "describe", "call", "status", "doctor", "config", "import")


def test_the_section_shows_every_subcommand_once_or_more() -> None:
    commands = [shown.command for shown in section_commands(PAGE.read_text())]
    assert all(command.startswith("mcp-gateway ") for command in commands), commands
    assert {command.split()[1] for command in commands} >= set(SUBCOMMANDS), commands


@pytest.mark.anyio
async def test_each_command_prints_what_the_page_shows(tmp_path: Path) -> None:
    shown = section_commands(PAGE.read_text())
    setting = Setting.prepare(tmp_path)
    printed = await anyio.to_thread.run_sync(run_session, setting, [each.command for each in shown])
    for expected, actual in zip(shown, printed, strict=True):
        assert comparable(actual.lines) == comparable(expected.lines), (
            f"`{expected.command}` prints otherwise than docs/command-line.md shows; regenerate it with "
            "tests/e2e/readme_command_line.py"
        )
