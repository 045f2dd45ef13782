"""What a person at the shell reads from the real `mcp-gateway` command, next to what the model reads.

The same mistake is told to each in its own words: the shell names the command to type (`mcp-gateway search`,
`mcp-gateway list fake`, `mcp-gateway call fake.echo --args …`), a gateway session names the meta-tool to
call. `list` with no server and `status` on a fresh workspace say what there is and what to run, and a search
limited to one server notes that server's troubles only. Every server here is the real fake stdio server
(`fixtures/fake_mcp_server.py`); `broken` exits at start, as a server missing its token does.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_gateway import (
    SESSION_SECONDS,
    gateway_session,
    notes_of,
    payload_of,
    ranked_tools,
    run_cli_async,
    search,
    text_of,
)
from workspaces import fake_server, write_workspace

from mcp_gateway.wording import META_TOOL_NAMES, counted

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

NOTHING_LISTED = "No server's tools have been listed yet: run mcp-gateway --home {home} refresh"
ECHO_QUERY = "echo a message"


def workspace(home: Path, *, broken: bool = False, disabled: bool = False) -> None:
    servers: dict[str, Any] = {"fake": fake_server()}
    if broken:
        servers["broken"] = fake_server(exit_at_start="3")
    if disabled:
        servers["off"] = {**fake_server(), "disabled": True}
    write_workspace(home, servers)


def no_meta_tool_named(text: str) -> bool:
    return not any(name in text for name in META_TOOL_NAMES)


async def suggested_command_runs(told: str, pattern: str) -> str:
    """Run the command `told` suggests (the `pattern` group), as a person would paste it; its stdout."""
    found = re.search(pattern, told)
    assert found, told
    program, *arguments = shlex.split(found.group(1))
    assert program == "mcp-gateway", told
    done = await run_cli_async(*arguments)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_an_unknown_tool_at_the_shell_names_the_command_to_type_and_it_works(tmp_path: Path) -> None:
    workspace(tmp_path)
    on_server = await run_cli_async("call", "fake.no-such-tool", home=tmp_path)
    anywhere = await run_cli_async("describe", "no-such-tool", home=tmp_path)
    assert on_server.returncode == anywhere.returncode == 1
    assert no_meta_tool_named(on_server.stderr + anywhere.stderr), on_server.stderr + anywhere.stderr
    assert f"run mcp-gateway --home {tmp_path} search " in anywhere.stderr
    listed = await suggested_command_runs(on_server.stderr, r"run (mcp-gateway .*? list fake) to see its tools")
    assert listed.startswith("fake: "), listed
    assert re.search(r"^\s+echo\s", listed, re.MULTILINE), listed


async def test_invalid_arguments_at_the_shell_say_what_to_type_again(tmp_path: Path) -> None:
    workspace(tmp_path)
    done = await run_cli_async("call", "fake.echo", "--args", '{"message": 3}', home=tmp_path)
    assert done.returncode == 1
    assert no_meta_tool_named(done.stderr), done.stderr
    assert "3 is not of type 'string'" in done.stderr
    assert f"Fix them and run mcp-gateway --home {tmp_path} call fake.echo --args '<JSON object>' again." in done.stderr
    assert "Input schema: " in done.stderr


async def test_the_same_mistakes_through_a_gateway_session_still_name_the_meta_tools(tmp_path: Path) -> None:
    workspace(tmp_path)
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            unknown = await client.call_tool("execute_tool", {"tool": "fake.no-such-tool", "arguments": {}})
            invalid = await client.call_tool("execute_tool", {"tool": "fake.echo", "arguments": {"message": 3}})
    assert unknown.is_error
    assert invalid.is_error
    assert text_of(unknown).endswith("call list_tools with server 'fake' to see its tools.")
    assert "Fix them and call execute_tool again." in text_of(invalid)
    assert "mcp-gateway" not in text_of(unknown) + text_of(invalid)


async def test_list_without_a_server_shows_every_server_before_and_after_the_first_refresh(tmp_path: Path) -> None:
    workspace(tmp_path, broken=True, disabled=True)
    before = await run_cli_async("list", home=tmp_path)
    assert before.returncode == 0, before.stderr
    lines = before.stdout.splitlines()
    assert lines[0].startswith(NOTHING_LISTED.format(home=tmp_path)), before.stdout
    assert [line.split()[0] for line in lines[1:]] == ["fake", "broken", "off"], before.stdout
    assert "0 tools" not in before.stdout
    assert not (tmp_path / "logs" / "broken.stderr.log").exists(), "listing the servers started one"

    refreshed = await run_cli_async("refresh", home=tmp_path)
    assert refreshed.returncode == 1, refreshed.stdout + refreshed.stderr  # broken cannot be listed
    one_server = json.loads((await run_cli_async("list", "fake", "--json", home=tmp_path)).stdout)
    after = await run_cli_async("list", home=tmp_path)
    as_json = await run_cli_async("list", "--json", home=tmp_path)
    assert after.returncode == as_json.returncode == 0, after.stderr + as_json.stderr
    rows = {line.split()[0]: line for line in after.stdout.splitlines() if line.split()}
    assert re.search(rf"^fake\s+{counted(one_server['total'], 'tool')}\s+cached, listed", rows["fake"]), rows
    assert "failing: its tools could not be listed; not running" in rows["broken"], rows
    assert "disabled in config.json" in rows["off"], rows
    assert "before the MCP handshake finished" in after.stdout
    assert after.stdout.splitlines()[-1] == f"mcp-gateway --home {tmp_path} list <server> shows a server's tools."
    servers = {row["server"]: row for row in json.loads(as_json.stdout)["servers"]}
    assert (servers["fake"]["cache"], servers["fake"]["tools"]) == ("fresh", one_server["total"])
    assert servers["broken"]["lastError"] is not None


async def test_status_on_a_fresh_workspace_says_nothing_is_listed_yet_and_what_to_run(tmp_path: Path) -> None:
    workspace(tmp_path, disabled=True)
    done = await run_cli_async("status", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert NOTHING_LISTED.format(home=tmp_path) in done.stdout
    assert "fake: missing, never listed; not running (lazy)" in done.stdout
    assert "0 tools" not in done.stdout

    await suggested_command_runs(done.stdout, r"run (mcp-gateway .*? refresh) to list them")
    again = await run_cli_async("status", home=tmp_path)
    assert "No server's tools have been listed yet" not in again.stdout
    assert re.search(r"^fake: fresh, \d+ tools, fetched ", again.stdout, re.MULTILINE), again.stdout


async def test_status_with_no_config_at_all_says_how_to_add_servers(tmp_path: Path) -> None:
    done = await run_cli_async("status", home=tmp_path / "new-home")
    assert done.returncode == 0, done.stderr
    assert "No MCP servers are configured." in done.stdout
    assert "mcp-gateway import --client NAME" in done.stdout


async def test_a_search_limited_to_one_server_notes_nothing_about_the_others(tmp_path: Path) -> None:
    workspace(tmp_path, broken=True)
    focused = await run_cli_async("search", ECHO_QUERY, "--server", "fake", home=tmp_path)
    focused_json = await run_cli_async("search", ECHO_QUERY, "--server", "fake", "--json", home=tmp_path)
    everywhere = await run_cli_async("search", ECHO_QUERY, home=tmp_path)
    assert focused.returncode == focused_json.returncode == everywhere.returncode == 0
    assert "fake.echo" in focused.stdout
    assert "broken" not in focused.stdout + focused.stderr, focused.stdout + focused.stderr
    assert "broken" not in focused_json.stdout
    assert "note: Could not load the tools of 'broken'" in everywhere.stdout, everywhere.stdout

    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            served_focused = await search(client, ECHO_QUERY, server="fake")
            served_everywhere = await search(client, ECHO_QUERY)
    assert ranked_tools(served_focused)[0] == "fake.echo"
    assert not any("broken" in note for note in notes_of(served_focused)), served_focused
    assert any("'broken'" in note for note in notes_of(served_everywhere)), served_everywhere


async def test_notes_at_the_shell_name_commands_and_the_model_reads_meta_tools(tmp_path: Path) -> None:
    workspace(tmp_path)
    done = await run_cli_async("search", "zzqx", "--server", "fake", home=tmp_path)
    as_json = await run_cli_async("search", "zzqx", "--server", "fake", "--json", home=tmp_path)
    assert done.returncode == as_json.returncode == 0
    assert f"note: No tool of 'fake' matched 'zzqx'; run mcp-gateway --home {tmp_path} list fake" in done.stdout
    assert no_meta_tool_named(done.stdout), done.stdout
    model_notes = notes_of(json.loads(as_json.stdout))
    assert "No tool of 'fake' matched 'zzqx'; call list_tools with server 'fake' to see them all." in model_notes
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            result = await client.call_tool("search_tools", {"query": "zzqx", "server": "fake"})
    assert notes_of(payload_of(result)) == model_notes


async def test_a_search_limited_to_a_broken_server_says_why_and_shows_no_other_servers_tools(tmp_path: Path) -> None:
    workspace(tmp_path, broken=True)
    done = await run_cli_async("search", ECHO_QUERY, "--server", "broken", home=tmp_path)
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stdout.splitlines() if line.startswith("note: ")]
    assert "fake." not in done.stdout, done.stdout
    assert len(notes) == 1, done.stdout
    assert notes[0].startswith("note: Could not load the tools of 'broken': "), notes
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            served = await search(client, ECHO_QUERY, server="broken")
    assert served["results"] == []
    assert [note.split(":")[0] for note in notes_of(served)] == ["Could not load the tools of 'broken'"], served


async def test_a_tool_name_two_servers_share_asks_a_person_to_run_the_command_again(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"fake": fake_server(), "twin": fake_server()})
    done = await run_cli_async("call", "echo", "--args", '{"message": "hi"}', home=tmp_path)
    assert done.returncode == 1
    assert "Several servers have a tool named 'echo': fake.echo, twin.echo; run the command again with" in done.stderr
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            served = await client.call_tool("execute_tool", {"tool": "echo", "arguments": {"message": "hi"}})
    assert served.is_error
    assert text_of(served).endswith("; call again with the qualified name.")
