"""What a newcomer reads from the real `mcp-gateway` when a name is wrong, a server is off or its program is missing.

Each message says what is true and the one command (or meta-tool) that helps: an unknown server is met with
`mcp-gateway list` (the servers there are), not a search for a tool; a disabled server with the command that
turns it on, at the shell and in what the model reads; a disabled server is no server a search names; a command
that could not be started has no stderr to point to. Every server is the real fake stdio server.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from e2e_gateway import gateway_session, notes_of, run_cli_async, search, text_of
from workspaces import fake_server, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

NOTHING_FITS = "book a flight to paris"


def workspace(home: Path) -> None:
    write_workspace(home, {"fake": fake_server(), "github": {**fake_server(), "disabled": True}})


async def test_refresh_of_an_unknown_server_names_the_command_that_lists_the_servers(tmp_path: Path) -> None:
    workspace(tmp_path)
    done = await run_cli_async("refresh", "nosuch", home=tmp_path)
    assert done.returncode == 1
    assert "No server named 'nosuch'" in done.stderr
    assert "search" not in done.stderr, done.stderr
    told = re.search(r"run (mcp-gateway .*? list) to see what exists", done.stderr)
    assert told is not None, done.stderr
    listed = await run_cli_async(*shlex.split(told.group(1))[1:])
    assert listed.returncode == 0, listed.stderr
    assert re.search(r"^fake\s", listed.stdout, re.MULTILINE), listed.stdout


async def test_enable_of_an_unknown_server_says_which_servers_there_are_in_one_clean_sentence(tmp_path: Path) -> None:
    workspace(tmp_path)
    done = await run_cli_async("enable", "fakr", home=tmp_path)
    assert done.returncode == 2
    said = done.stderr.splitlines()[-1]
    assert said == (
        f"mcp-gateway: no server named 'fakr' in {tmp_path / 'config.json'} (did you mean 'fake'?); "
        "its servers: fake, github"
    )


async def test_a_disabled_server_is_refused_with_the_command_that_enables_it_and_is_never_started(
    tmp_path: Path,
) -> None:
    workspace(tmp_path)
    enable = f"run mcp-gateway --home {tmp_path} config enable github to use its tools"
    for command in (("refresh", "github"), ("list", "github"), ("call", "github.echo", "--args", "{}")):
        done = await run_cli_async(*command, home=tmp_path)
        assert done.returncode == 1, (command, done.stderr)
        assert "Traceback" not in done.stderr
        assert enable in done.stderr, (command, done.stderr)
        assert "starting github" not in done.stderr
        assert '"disabled": true' not in done.stderr
    async with gateway_session(tmp_path) as client:
        result = await client.call_tool("execute_tool", {"tool": "github.echo", "arguments": {"message": "x"}})
    assert result.is_error
    assert "run `mcp-gateway config enable github` in a terminal to use its tools" in text_of(result)


async def test_a_server_disabled_after_its_listing_is_not_among_the_servers_a_search_names(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"fake": fake_server(), "github": fake_server()})
    refreshed = await run_cli_async("refresh", home=tmp_path)
    assert refreshed.returncode == 0, refreshed.stderr
    disabled = await run_cli_async("disable", "github", home=tmp_path)
    assert disabled.returncode == 0, disabled.stderr

    async with gateway_session(tmp_path) as client:
        notes = " ".join(notes_of(await search(client, NOTHING_FITS)))
    at_the_shell = await run_cli_async("search", NOTHING_FITS, home=tmp_path)

    assert "Servers: fake (" in notes, notes
    assert "github" not in notes, notes
    assert "Servers: fake (" in at_the_shell.stdout + at_the_shell.stderr
    assert "github" not in at_the_shell.stdout + at_the_shell.stderr


async def test_a_command_that_cannot_be_found_points_to_no_stderr_log(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"fetch": {"command": str(tmp_path / "no-uvx-here"), "args": ["mcp-server-fetch"]}})
    done = await run_cli_async("refresh", "fetch", home=tmp_path)
    assert done.returncode == 1
    assert "command not found" in done.stdout, done.stdout
    assert "stderr" not in done.stdout + done.stderr, done.stdout + done.stderr
