"""Live config through the shared daemon: config.json edited while two sessions are connected to one daemon.

The same edits as `test_e2e_live_config.py` (a server added, one removed mid-call, one changed, a file that is
not JSON), made while two real fronts share one real daemon: each edit is applied once, in the daemon, and
every session sees it: both find the added server, both hear each edit in their own next search (each once),
and of a file that cannot be used in every search until it is fixed, both meet the removed and the changed
server as they now are, and the call in flight on the removed server still finishes.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from e2e_gateway import SESSION_SECONDS, downstream_pid, execute, notes_of, ranked_tools, search, text_of, wait_gone
from mcp import Client
from test_e2e_live_config import LONG_CALL_DELAY_SECONDS, LONG_CALL_STEPS, listed, until
from workspaces import (
    GRACE_SECONDS,
    daemon_cleanup,
    daemon_pids,
    fake_server,
    save_config,
    save_text,
    shared_session,
    write_workspace,
)

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

EDITS_SECONDS = SESSION_SECONDS * 2
"""Four edits, each applied within a poll and a listing, and a call of about 6 s, on a loaded machine."""
SETTINGS = {"daemonGraceSeconds": GRACE_SECONDS}


async def notes_saying(client: Client, words: str) -> list[str]:
    return [note for note in notes_of(await search(client, "process id")) if words in note]


async def refused(client: Client, tool: str) -> str:
    result = await execute(client, tool, {"message": "hello"})
    return text_of(result) if result.is_error else ""


async def color(client: Client) -> str:
    return text_of(await execute(client, "svc.env", {"name": "FAKE_MCP_COLOR"}))


async def test_edits_are_applied_once_in_the_daemon_and_every_session_sees_them(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home = tmp_path / "home"
    servers = {"keep": fake_server(name="keep-fake"), "gone": fake_server(name="gone-fake"), "svc": fake_server()}
    servers["svc"]["env"]["FAKE_MCP_COLOR"] = "red"
    write_workspace(home, servers, SETTINGS)
    async with (
        daemon_cleanup(runtime_dir),
        shared_session(home, runtime_dir) as first,
        shared_session(home, runtime_dir) as second,
    ):
        with anyio.fail_after(EDITS_SECONDS):
            keep_pid = await downstream_pid(first, "keep")
            assert await downstream_pid(second, "keep") == keep_pid, "one daemon, one process per server"
            gone_pid = await downstream_pid(first, "gone")
            assert await color(second) == "red"
            for client in (first, second):
                await search(client, "process id")  # nothing to hear yet: what follows is the edits' news

            # A server added: listed and searchable in both sessions, and each hears of it once.
            added = {**servers, "added": fake_server(name="added-fake")}
            save_config(home, added, SETTINGS)
            for client in (first, second):
                assert await until(lambda c=client: listed(c, "added"), "the added server is listed"), client
                found = await search(client, "process id", server="added")
                assert "added.pid" in ranked_tools(found)
                assert any("added: added" in note for note in notes_of(found)), notes_of(found)
                assert not await notes_saying(client, "added: added"), "said once to each session"

            # A server removed while the first session's call runs on it: that call finishes, new calls are refused.
            in_flight = anyio.Event()
            outcome: dict[str, str] = {}

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                in_flight.set()

            async def long_call() -> None:
                arguments = {"steps": LONG_CALL_STEPS, "delay": LONG_CALL_DELAY_SECONDS}
                result = await execute(first, "gone.progress", arguments, progress_callback=on_progress)
                outcome["text"] = text_of(result)

            without = {name: spec for name, spec in added.items() if name != "gone"}
            async with anyio.create_task_group() as tg:
                tg.start_soon(long_call)
                await in_flight.wait()
                save_config(home, without, SETTINGS)
                assert "gone" in await until(lambda: refused(second, "gone.echo"), "the removed server is refused")
                assert "text" not in outcome, "the call in flight is still running when the edit applies"
            assert outcome["text"] == f"done {LONG_CALL_STEPS}"
            await wait_gone([gone_pid])

            # A server changed: both sessions' next calls reach one new process with the new value.
            changed = {**without, "svc": {**without["svc"], "env": {**without["svc"]["env"], "FAKE_MCP_COLOR": "blue"}}}
            save_config(home, changed, SETTINGS)

            async def blue(client: Client) -> bool:
                return await color(client) == "blue"

            await until(lambda: blue(first), "the changed server answers with its new value")
            assert await color(second) == "blue"
            assert await downstream_pid(first, "svc") == await downstream_pid(second, "svc")

            # A file that is not JSON: the last good config serves on, and each session's next search says so.
            save_text(home, '{"version": 1, "mcpServers": {"svc": ')
            for client in (first, second):
                notes = await until(lambda c=client: notes_saying(c, "cannot be used"), "the refused edit is said")
                assert "invalid JSON" in notes[0], notes
                assert await notes_saying(client, "cannot be used"), "said in every search until the file is fixed"
            assert await downstream_pid(second, "keep") == keep_pid, "the last good config keeps serving"
            assert len(daemon_pids(runtime_dir)) == 1
