"""A key typed a letter wrong costs a sentence, not a minute: the real `mcp-gateway` on a config with `"arg"`.

`"arg"` for `"args"` starts a bare `python` that reads its stdin for ever, so the first the person heard of the typo
was a refresh ending 60 s later with "did not finish starting". Now an unknown key that means a field the entry
lacks keeps that server out, with the rename to make, at once; the other servers load. And a start that does time
out names the unknown keys of its entry that look like fields, the likeliest reason.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from e2e_gateway import run_cli_async
from gateway_testing import FAKE_SERVER
from workspaces import fake_server, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


async def test_arg_for_args_keeps_the_server_out_with_the_rename_and_the_others_refresh(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"py": {"command": sys.executable, "arg": [str(FAKE_SERVER)]}, "fine": fake_server()})

    checked = await run_cli_async("config", "check", home=tmp_path)
    refreshed = await run_cli_async("refresh", home=tmp_path)
    named = await run_cli_async("refresh", "py", home=tmp_path)

    assert checked.returncode == 1
    assert "error: " in checked.stderr
    assert "mcpServers.py.arg: unknown field 'arg' is probably 'args'" in checked.stderr
    assert "(rename 'arg' to 'args')" in checked.stderr
    assert refreshed.returncode == 0, refreshed.stdout + refreshed.stderr
    assert "rename 'arg' to 'args'" in refreshed.stderr
    assert "fine: " in refreshed.stdout
    assert "did not finish starting" not in refreshed.stdout + refreshed.stderr
    assert named.returncode != 0
    assert "invalid entry" in named.stderr
    assert "'arg' is probably 'args'" in named.stderr


async def test_a_start_that_times_out_names_the_unknown_keys_that_look_like_fields(tmp_path: Path) -> None:
    slow = {**fake_server(init_delay="30"), "arg": ["--verbose"], "connectTimeoutMs": 1500}
    write_workspace(tmp_path, {"slow": slow})

    refreshed = await run_cli_async("refresh", "slow", home=tmp_path)

    assert refreshed.returncode == 1
    assert (
        "did not finish starting within 1.5s (connectTimeoutMs); its entry has 'arg' (did you mean 'args'?), "
        "which the gateway ignores"
    ) in refreshed.stdout, refreshed.stdout
