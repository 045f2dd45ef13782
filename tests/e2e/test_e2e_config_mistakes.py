"""A config.json a client's session starts with but cannot use: the session still serves, says what to fix, and
picks the fix up live.

Through the real `mcp-gateway` as a client starts it (a front and the workspace's shared daemon), driven by the
SDK's client. One trailing comma used to end the gateway with status 2 before `initialize`, so the client showed
one failed server and the reason was only in its own MCP log.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from e2e_gateway import META_TOOLS, execute, gateway_session, notes_of, payload_of, ranked_tools, search, text_of
from process_leaks import TEST_RUN_ENV
from shared_daemons import stop_daemons
from test_e2e_live_config import until
from workspaces import fake_server, save_text, write_workspace

from mcp_gateway.service.home import LAST_GOOD_CONFIG

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

TRAILING_COMMA = '{"version": 1, "mcpServers": {"alpha": %s,}}'
WHERE = "line 1, column"


def broken(home: Path) -> None:
    save_text(home, TRAILING_COMMA % json.dumps(fake_server(name="alpha")))


async def test_a_session_started_on_a_config_it_cannot_use_serves_says_where_to_fix_it_and_follows_the_fix(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    broken(home)
    async with gateway_session(home) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == META_TOOLS
        found = await search(client, "echo a message")
        [note] = [note for note in notes_of(found) if "config.json cannot be used" in note]
        assert WHERE in note
        assert "trailing comma" in note
        assert "no servers" in note
        assert "config.json cannot be used" in " ".join(notes_of(await search(client, "anything else"))), "every time"
        called = await execute(client, "alpha.echo", {"message": "hi"})
        assert called.is_error
        assert WHERE in text_of(called), "a name the broken file may hold says why it is unknown"

        write_workspace(home, {"alpha": fake_server(name="alpha")})  # fixed

        async def echo_found() -> bool:
            return "alpha.echo" in ranked_tools(await search(client, "echo a message"))

        await until(echo_found, "the fixed config.json is served")
        assert text_of(await execute(client, "alpha.echo", {"message": "hi"})) == "hi"
        assert not [note for note in notes_of(await search(client, "echo")) if "cannot be used" in note]


async def test_a_session_started_after_the_config_broke_serves_its_last_good_version(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_workspace(home, {"alpha": fake_server(name="alpha")})
    async with gateway_session(home) as client:  # reads the file whole: kept as the last good one
        assert text_of(await execute(client, "alpha.echo", {"message": "first"})) == "first"
    assert (home / LAST_GOOD_CONFIG).stat().st_mode & 0o777 == 0o600, "it may hold secrets: private"
    assert not stop_daemons(os.environ[TEST_RUN_ENV]), "the daemon that read it stopped: the next one starts anew"

    broken(home)
    async with gateway_session(home) as client:
        assert text_of(await execute(client, "alpha.echo", {"message": "still"})) == "still"
        listed = await client.call_tool("list_tools", {"server": "alpha"})
        [note] = payload_of(listed)["notes"]
        assert WHERE in note
        assert "last version of the file it could use (alpha)" in note
