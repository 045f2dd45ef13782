"""The commands as grouped: `config` holds what edits or reads config.json, `help` is a command, old spellings work.

`config path`, `check`, `enable`, `disable` and `reload` are one family; `mcp-gateway enable`, `disable` and
`reload` still run for one release, each with a note naming its new spelling, and are no longer listed. `help`
prints what `--help` prints, for the program or for any command. Every test runs the real `mcp-gateway`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from e2e_gateway import run_cli_async
from workspaces import fake_server, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

RENAMED = {"enable": "config enable", "disable": "config disable", "reload": "config reload"}


def listed(help_text: str) -> list[str]:
    return re.findall(r"^    (\w+)\s", help_text, re.MULTILINE)


async def test_help_is_a_command_that_prints_what_help_options_print() -> None:
    bare = await run_cli_async("help")
    assert bare.returncode == 0, bare.stderr
    assert bare.stdout == (await run_cli_async("--help")).stdout
    for command in (["import"], ["config"], ["config", "check"], ["serve"]):
        told = await run_cli_async("help", *command)
        assert told.returncode == 0, told.stderr
        assert told.stdout == (await run_cli_async(*command, "--help")).stdout
    unknown = await run_cli_async("help", "nosuch")
    assert unknown.returncode == 2
    assert "invalid choice: 'nosuch'" in unknown.stderr


async def test_config_holds_the_live_edits_and_the_old_spellings_are_no_longer_listed() -> None:
    top = listed((await run_cli_async("--help")).stdout)
    config = listed((await run_cli_async("config", "--help")).stdout)
    assert config == ["path", "check", "reload", "enable", "disable"]
    assert not set(RENAMED) & set(top), top
    assert "help" in top
    # 14 when `config` took in the live edits; issue 26 then named three commands of its own (review, trust, audit).
    assert len(top) <= 17, top


async def test_the_old_spellings_still_work_for_one_release_and_say_their_new_one(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"fake": fake_server()})
    config = tmp_path / "config.json"

    for old, new in [("disable", "config disable"), ("enable", "config enable")]:
        done = await run_cli_async(old, "fake", home=tmp_path)
        assert done.returncode == 0, done.stderr
        assert f"`mcp-gateway {old}` is now `mcp-gateway {new}`; the old spelling goes in the next release" in (
            done.stderr
        )
    reloaded = await run_cli_async("reload", home=tmp_path)
    assert reloaded.returncode == 0, reloaded.stderr
    assert "is now `mcp-gateway config reload`" in reloaded.stderr

    off = await run_cli_async("config", "disable", "fake", home=tmp_path)
    assert off.returncode == 0, off.stderr
    assert off.stderr == ""
    assert json.loads(config.read_text())["mcpServers"]["fake"]["disabled"] is True
    checked = await run_cli_async("config", "reload", home=tmp_path)
    assert checked.returncode == 0
    assert "disabled: fake" in checked.stdout
    on = await run_cli_async("config", "enable", "fake", home=tmp_path)
    assert on.returncode == 0, on.stderr
    assert "disabled" not in json.loads(config.read_text())["mcpServers"]["fake"]
