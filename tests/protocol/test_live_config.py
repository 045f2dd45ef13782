"""Live config in-process: what `status()` and search say of an edit the gateway cannot use, and the fix.

The downstream servers are in-process SDK servers; the edits are real writes of config.json, which the
gateway's watcher (started by `start_background`, as when serving) picks up within a poll.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest
from gateway_testing import load, write_workspace
from inprocess_fakes import FakeDownstream, InProcessConnector

from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.live_config import CONFIG_POLL_SECONDS

pytestmark = pytest.mark.anyio

APPLIED_SECONDS = 10 * CONFIG_POLL_SECONDS
"""Upper bound for the watcher to see an edit: a poll, a read and a parse, on a loaded machine."""
POLL_SECONDS = 0.05


def save(home: Path, text: str) -> None:
    temporary = home / ".config.json.edit"
    temporary.write_text(text)
    os.replace(temporary, home / "config.json")


async def status_problem(gateway: Gateway, *, present: bool) -> str | None:
    with anyio.fail_after(APPLIED_SECONDS):
        while True:
            problem = (await gateway.status()).config_problem
            if (problem is not None) == present:
                return problem
            await anyio.sleep(POLL_SECONDS)


async def test_an_unusable_edit_is_in_status_and_said_in_every_search_and_list_until_a_good_one_replaces_it(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    one, two = FakeDownstream("one"), FakeDownstream("two")
    workspace = write_workspace(home, {"one": {"command": "in-process"}})
    async with Gateway(workspace, load(workspace), connector=InProcessConnector(one, two)) as gateway:
        gateway.start_background()
        await gateway.refresh()

        save(home, '{"mcpServers": {"one": {"command": "in-process"},')
        problem = await status_problem(gateway, present=True)

        assert problem is not None
        assert "invalid JSON at line 1" in problem
        assert "last version of the file it could use (one)" in problem
        first = await gateway.search("echo")
        assert problem in [str(note) for note in first.notes]
        assert first.hits, "the last good config still serves its tools"
        again = await gateway.search("echo")
        assert problem in [str(note) for note in again.notes], "said until it is fixed"
        assert (await gateway.list_tools("one")).notes == (problem,)

        save(home, json.dumps({"mcpServers": {"one": {"command": "in-process"}, "two": {"command": "in-process"}}}))
        assert await status_problem(gateway, present=False) is None

        assert list(gateway.config.servers) == ["one", "two"]
        told = [str(note) for note in (await gateway.search("echo")).notes]
        assert any("added: two" in note for note in told), told
        page = await gateway.list_tools("two")
        assert page.total > 0
        assert page.notes == ()
        assert one.connections == 1, "the unchanged server kept its connection"
