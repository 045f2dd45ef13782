"""Live config, end to end: config.json edited while the real gateway serves a real SDK client.

Each test edits the file as an editor that saves safely does (a new file renamed over the old one), then waits,
boundedly, for the gateway to apply the edit: it polls the file about once a second (`CONFIG_POLL_SECONDS`).
Downstream processes are the fixture server; their pids come from its `pid` tool, and every one learned is
killed on the way out if a test failed before the gateway stopped it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_gateway import (
    POLL_SECONDS,
    SESSION_SECONDS,
    downstream_pid,
    execute,
    gateway_session,
    is_alive,
    kill_quietly,
    notes_of,
    payload_of,
    ranked_tools,
    run_cli_async,
    search,
    text_of,
    wait_gone,
)
from mcp import Client
from workspaces import fake_server, refreshed_workspace, save_config, save_text

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

APPLIED_SECONDS = 15.0
"""Upper bound for an edit to be applied: a poll a second, then a read, a parse and maybe a listing."""
LONG_CALL_STEPS = 30
LONG_CALL_DELAY_SECONDS = 0.2
"""A call of about 6 s: long enough to stay in flight while its server is removed and the edit applied."""
NEW_SECRET = "sk-live-" + "0123456789abcdefghijklmn"
"""A credential only the edited config holds: the gateway's mask must learn it from the edit."""


async def until(check: Callable[[], Any], what: str, seconds: float = APPLIED_SECONDS) -> Any:
    """Await `check()` until it returns something true; fail naming `what` after `seconds`."""
    try:
        with anyio.fail_after(seconds):
            while True:
                found = await check()
                if found:
                    return found
                await anyio.sleep(POLL_SECONDS)
    except TimeoutError:
        raise AssertionError(f"not within {seconds:g}s: {what}") from None


async def listed(client: Client, server: str) -> list[str]:
    """The tools `list_tools` shows for `server`; empty while the gateway does not know it."""
    result = await client.call_tool("list_tools", {"server": server})
    if result.is_error:
        return []
    return [str(tool["name"]) for tool in payload_of(result)["tools"]]


async def test_a_server_added_while_serving_is_listed_searchable_and_callable(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = fake_server(name="first-fake")
    await refreshed_workspace(home, {"first": first})
    learned: list[int] = []
    try:
        with anyio.fail_after(SESSION_SECONDS):
            async with gateway_session(home) as client:
                learned.append(first_pid := await downstream_pid(client, "first"))
                assert await listed(client, "second") == []

                second = fake_server(name="second-fake")
                second["env"]["SECOND_API_TOKEN"] = NEW_SECRET
                save_config(home, {"first": first, "second": second})

                tools = await until(lambda: listed(client, "second"), "the added server is listed")
                assert "pid" in tools
                found = await search(client, "process id", server="second")
                assert "second.pid" in ranked_tools(found)
                assert any("added: second" in note for note in notes_of(found)), notes_of(found)
                learned.append(second_pid := await downstream_pid(client, "second"))
                again = await search(client, "process id", server="second")
                assert not any("added: second" in note for note in notes_of(again)), "said once"
                assert second_pid != first_pid
                assert await downstream_pid(client, "first") == first_pid, "an unchanged server keeps its process"
                echoed = await execute(client, "second.fail", {"env": "SECOND_API_TOKEN"})
                assert echoed.is_error
                assert NEW_SECRET not in text_of(echoed), "the added server's secret is masked too"
                assert "***" in text_of(echoed)
    finally:
        kill_quietly(learned)


async def test_a_server_removed_mid_call_finishes_the_call_then_refuses_and_its_process_ends(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    servers = {"keep": fake_server(name="keep-fake"), "gone": fake_server(name="gone-fake")}
    await refreshed_workspace(home, servers)
    learned: list[int] = []
    try:
        with anyio.fail_after(SESSION_SECONDS):
            async with gateway_session(home) as client:
                learned.append(gone_pid := await downstream_pid(client, "gone"))
                learned.append(keep_pid := await downstream_pid(client, "keep"))
                in_flight = anyio.Event()
                outcome: dict[str, Any] = {}

                async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                    in_flight.set()

                async def long_call() -> None:
                    arguments = {"steps": LONG_CALL_STEPS, "delay": LONG_CALL_DELAY_SECONDS}
                    outcome["result"] = await execute(client, "gone.progress", arguments, progress_callback=on_progress)

                async with anyio.create_task_group() as tg:
                    tg.start_soon(long_call)
                    await in_flight.wait()
                    save_config(home, {"keep": servers["keep"]})
                    refused = await until(
                        lambda: _refused(client, "gone.echo"), "a new call to the removed server fails"
                    )
                    assert "gone" in refused
                    assert is_alive(gone_pid), "its process serves the call in flight"
                    assert "result" not in outcome, "the long call is still running when the edit applies"
                result = outcome["result"]
                assert (result.is_error, text_of(result)) == (False, f"done {LONG_CALL_STEPS}")
                await wait_gone([gone_pid])
                assert await downstream_pid(client, "keep") == keep_pid
    finally:
        kill_quietly(learned)


async def _refused(client: Client, tool: str) -> str:
    """The error text of calling `tool`, or empty while the call still succeeds."""
    result = await execute(client, tool, {"message": "hello"})
    return text_of(result) if result.is_error else ""


async def test_a_changed_server_answers_its_next_call_from_a_new_process_with_the_new_value(tmp_path: Path) -> None:
    home = tmp_path / "home"
    await refreshed_workspace(home, {"svc": fake_server(color="red")})
    learned: list[int] = []
    try:
        with anyio.fail_after(SESSION_SECONDS):
            async with gateway_session(home) as client:
                learned.append(old_pid := await downstream_pid(client, "svc"))
                before = await execute(client, "svc.env", {"name": "FAKE_MCP_COLOR"})
                assert text_of(before) == "red"

                save_config(home, {"svc": fake_server(color="blue")})

                async def color() -> bool:
                    return text_of(await execute(client, "svc.env", {"name": "FAKE_MCP_COLOR"})) == "blue"

                await until(color, "the changed server answers with its new value")
                learned.append(new_pid := await downstream_pid(client, "svc"))
                assert new_pid != old_pid
                await wait_gone([old_pid])
    finally:
        kill_quietly(learned)


async def test_an_unusable_edit_keeps_the_last_good_config_is_reported_and_a_fix_is_applied(tmp_path: Path) -> None:
    home = tmp_path / "home"
    servers = {"svc": fake_server(name="svc-fake")}
    await refreshed_workspace(home, servers)
    learned: list[int] = []
    try:
        with anyio.fail_after(SESSION_SECONDS):
            async with gateway_session(home) as client:
                learned.append(pid := await downstream_pid(client, "svc"))

                save_text(home, '{"version": 1, "mcpServers": {"svc": ')  # half a file

                async def told() -> list[str]:
                    return [n for n in notes_of(await search(client, "echo")) if "cannot be used" in n]

                async def told_of(words: str) -> list[str]:
                    return [note for note in await told() if words in note]

                notes = await until(told, "the next search says the edit cannot be used")
                assert "invalid JSON at line 1" in notes[0], notes
                assert "last version of the file it could use (svc)" in notes[0], notes
                assert await told(), "said in every search, until it is fixed"
                assert await downstream_pid(client, "svc") == pid, "the last good config keeps serving"

                # A file that parses but would reject a server: also refused, and `status` at the shell says so.
                save_config(home, {**servers, "broken": {"command": 5}})
                notes = await until(lambda: told_of("mcpServers.broken"), "a rejected server is refused too")
                status = await run_cli_async("status", home=home)
                assert status.returncode == 0, status.stderr
                assert "edited config.json" in status.stdout, status.stdout
                assert "mcpServers.broken" in status.stdout, status.stdout
                assert await listed(client, "svc"), "still serving"

                save_config(home, {**servers, "later": fake_server(name="later-fake")})
                assert await until(lambda: listed(client, "later"), "the fixed file is applied")
                learned.append(await downstream_pid(client, "later"))
                assert await downstream_pid(client, "svc") == pid
                fixed = await run_cli_async("status", home=home)
                assert "edited config.json" not in fixed.stdout, "a fixed edit is no longer a problem"
    finally:
        kill_quietly(learned)


async def test_enable_and_disable_at_the_shell_are_applied_live(tmp_path: Path) -> None:
    home = tmp_path / "home"
    await refreshed_workspace(home, {"on": fake_server(name="on-fake"), "off": fake_server(name="off-fake")})
    save_config(home, {"on": fake_server(name="on-fake"), "off": fake_server(name="off-fake") | {"disabled": True}})
    learned: list[int] = []
    try:
        with anyio.fail_after(SESSION_SECONDS):
            async with gateway_session(home) as client:
                learned.append(on_pid := await downstream_pid(client, "on"))
                assert await listed(client, "off") == []

                disabled = await run_cli_async("disable", "on", home=home)
                assert disabled.returncode == 0, disabled.stderr
                refused = await until(lambda: _refused(client, "on.echo"), "the disabled server refuses calls")
                assert "on" in refused
                await wait_gone([on_pid])

                enabled = await run_cli_async("enable", "off", home=home)
                assert enabled.returncode == 0, enabled.stderr
                assert "pid" in await until(lambda: listed(client, "off"), "the enabled server is listed")
                learned.append(await downstream_pid(client, "off"))

                unknown = await run_cli_async("disable", "of", home=home)
                assert unknown.returncode == 2
                assert "did you mean 'off'?" in unknown.stderr, unknown.stderr
    finally:
        kill_quietly(learned)


async def test_an_edit_saved_as_the_session_starts_is_applied(tmp_path: Path) -> None:
    """The config is read before the client's handshake is answered, and the gateway behind it is made after:
    an edit saved in between is applied all the same."""
    home = tmp_path / "home"
    await refreshed_workspace(home, {"first": fake_server(name="first-fake")})
    learned: list[int] = []
    try:
        with anyio.fail_after(SESSION_SECONDS):
            async with gateway_session(home) as client:
                save_config(home, {"first": fake_server(name="first-fake"), "early": fake_server(name="early-fake")})
                assert "pid" in await until(lambda: listed(client, "early"), "the edit saved at the start is applied")
                learned.append(await downstream_pid(client, "early"))
    finally:
        kill_quietly(learned)
