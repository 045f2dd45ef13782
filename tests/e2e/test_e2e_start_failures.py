"""A server that cannot start says why in the error, end to end: its own last stderr lines of that start.

The real `mcp-gateway` process starts real servers that exit before their handshake, saying why on stderr
(the fake server, a shell script, and server-filesystem given a directory that does not exist). What the model
reads (`execute_tool`'s error, `search_tools`' notes) and what a person reads (`call`, `refresh`, `status`,
`doctor`) must quote the server's words, never a secret it echoed, never an earlier start's words, and must
say whether a retry can help by the rule in `downstream/translate.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_gateway import SESSION_SECONDS, execute, gateway_session, notes_of, run_cli_async, search, text_of
from gateway_testing import peer
from workspaces import fake_server, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

REASON = "Please set SLACK_BOT_TOKEN before starting the Slack server"
SECRET = "xoxb-hush-1234567890-abcdefghij"
"""The token the server echoes on stderr as it starts: no piece of it may show anywhere."""
SECRET_MARK = "hush"
CHATTER = "chatter that fills the pipe before the reason comes"
CHATTER_LINES = 20_000
"""About 1.2 MB of it: twenty times what a Linux pipe buffers."""
EACH_CALL_STARTS = {"failureBackoffMs": 0, "startupMetadataCheck": False}
"""No backoff window, and no listing at the gateway's start: each call starts the server, the first call the first."""


def slack_server() -> dict[str, Any]:
    """A server that says its (configured, secret) token and what is wrong on stderr, then exits with 1."""
    entry = fake_server(stderr_env_at_start="SLACK_TOKEN", stderr_at_start=f"{REASON}\n", exit_at_start="1")
    entry["env"]["SLACK_TOKEN"] = SECRET
    return entry


def counting_server(directory: Path, spawns: Path) -> dict[str, Any]:
    """A server that says which start of it this is on stderr, then exits with 1: each start's words differ."""
    script = directory / "counting-server"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$$" >> "{spawns}"\n'
        f'echo "Error: start number $(wc -l < "{spawns}" | tr -d " ") found no API key" >&2\n'
        "exit 1\n"
    )
    script.chmod(0o755)
    return {"command": str(script)}


def assert_quotes_the_reason(text: str, server: str, home: Path) -> None:
    assert f"Server '{server}' exited with code 1 before the MCP handshake finished" in text, text
    assert REASON in text, text
    assert "using SLACK_TOKEN=***" in text, text
    assert SECRET_MARK not in text, text
    assert f"Its full stderr is in {home / 'logs' / f'{server}.stderr.log'}." in text, text


async def test_execute_tool_and_search_tools_quote_what_the_server_said_masked(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"slack": slack_server(), "good": fake_server()})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            failed = await execute(client, "slack.echo", {"message": "hi"})
            found = await search(client, "post a message to slack")
            good = await execute(client, "good.echo", {"message": "still serving"})
    assert failed.is_error
    assert_quotes_the_reason(text_of(failed), "slack", tmp_path)
    assert "will fail the same way: the user must fix what it names" in text_of(failed)
    (note,) = [note for note in notes_of(found) if "'slack'" in note]
    assert_quotes_the_reason(note, "slack", tmp_path)
    assert (good.is_error, text_of(good)) == (False, "still serving")
    log = (tmp_path / "logs" / "slack.stderr.log").read_text()
    assert REASON in log
    assert SECRET_MARK not in log


async def test_call_refresh_status_and_doctor_print_what_the_server_said_and_that_a_retry_will_not_help(
    tmp_path: Path,
) -> None:
    write_workspace(tmp_path, {"slack": slack_server()})

    called = await run_cli_async("call", "slack.echo", "--args", '{"message": "hi"}', home=tmp_path)
    assert called.returncode == 1, called
    assert called.stdout == ""
    assert called.stderr.startswith("mcp-gateway: Server 'slack' exited with code 1"), called.stderr
    # Kept as text and read by the model and by a person alike, the advice names no meta-tool call.
    assert called.stderr.rstrip().endswith("then try again."), called.stderr
    assert "call again" not in called.stderr
    assert_quotes_the_reason(called.stderr, "slack", tmp_path)

    refreshed = await run_cli_async("refresh", home=tmp_path)
    assert refreshed.returncode == 1, refreshed
    assert "slack: failed: Server 'slack' exited with code 1" in refreshed.stdout
    assert_quotes_the_reason(refreshed.stdout, "slack", tmp_path)
    assert "slack: failed after " in refreshed.stderr  # the progress line says so as it happens
    assert_quotes_the_reason(refreshed.stderr, "slack", tmp_path)
    assert SECRET_MARK not in refreshed.stdout

    status = await run_cli_async("status", home=tmp_path)
    assert status.returncode == 0, status
    assert "last error (startup, " in status.stdout
    assert "a retry will not help): Server 'slack' exited with code 1" in status.stdout
    assert_quotes_the_reason(status.stdout, "slack", tmp_path)

    doctor = await run_cli_async("doctor", "--json", home=tmp_path)
    assert doctor.returncode == 1, doctor
    (check,) = json.loads(doctor.stdout)["servers"]
    assert check["problem"]["retryable"] is False
    assert_quotes_the_reason(check["problem"]["message"], "slack", tmp_path)
    for output in (called, refreshed, status, doctor):
        assert SECRET_MARK not in output.stdout + output.stderr


async def test_a_second_start_that_ends_the_same_way_is_no_longer_worth_a_retry(tmp_path: Path) -> None:
    # Exit code 0 and a line that is not a reason: the first failure may be by chance, the second is not.
    write_workspace(tmp_path, {"quits": fake_server(exit_at_start="0")}, EACH_CALL_STARTS)
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            first = await execute(client, "quits.echo", {"message": "hi"})
            second = await execute(client, "quits.echo", {"message": "hi"})
    said = '"fake-mcp: exiting at start with code 0 (FAKE_MCP_EXIT_AT_START)"'
    assert "exited with code 0 before the MCP handshake finished" in text_of(first)
    assert said in text_of(first)
    assert "a retry may help" in text_of(first)
    assert said in text_of(second)
    assert "ended the same way on its previous start, so a retry will not help" in text_of(second)

    status = await run_cli_async("status", "--json", home=tmp_path)
    (server,) = json.loads(status.stdout)["servers"]
    assert server["lastError"]["retryable"] is False
    assert "ended the same way" in server["lastError"]["message"]


async def test_each_start_failure_quotes_only_what_that_start_said(tmp_path: Path) -> None:
    spawns = tmp_path / "spawns.log"
    home = tmp_path / "home"
    write_workspace(home, {"counting": counting_server(tmp_path, spawns)}, EACH_CALL_STARTS)
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            first = await execute(client, "counting.echo", {"message": "hi"})
            second = await execute(client, "counting.echo", {"message": "hi"})
    assert len(spawns.read_text().splitlines()) == 2
    assert '"Error: start number 1 found no API key"' in text_of(first), text_of(first)
    assert '"Error: start number 2 found no API key"' in text_of(second), text_of(second)
    assert "start number 1 " not in text_of(second), "an earlier start's words are not quoted again"
    assert "ended the same way" not in text_of(second), "different words are a different ending"
    log = (home / "logs" / "counting.stderr.log").read_text()
    assert "start number 1 " in log
    assert "start number 2 " in log, "both starts write to the one log"


async def test_a_server_that_dies_soon_after_its_handshake_is_quoted_in_its_failed_start(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"dying": fake_server(die_on="list")}, {"startupMetadataCheck": False})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            lost = await client.call_tool("list_tools", {"server": "dying"})
            refused = await client.call_tool("list_tools", {"server": "dying"})
    assert lost.is_error
    assert "lost" in text_of(lost)
    assert "will not be retried for" in text_of(refused)
    said = 'saying: "fake-mcp: dying on tools/list (FAKE_MCP_DIE_ON)", before answering a tool call'
    assert said in text_of(refused), text_of(refused)
    status = await run_cli_async("status", home=tmp_path)
    assert said in status.stdout, status.stdout


async def test_a_server_that_dies_after_its_handshake_the_same_way_twice_is_no_longer_worth_a_retry(
    tmp_path: Path,
) -> None:
    write_workspace(tmp_path, {"dying": fake_server(die_on="list")}, EACH_CALL_STARTS)
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            for _ in range(2):
                assert (await client.call_tool("list_tools", {"server": "dying"})).is_error
    status = await run_cli_async("status", "--json", home=tmp_path)
    (server,) = json.loads(status.stdout)["servers"]
    assert server["lastError"]["retryable"] is False, server
    assert "ended the same way on its previous start, so a retry will not help" in server["lastError"]["message"]


async def test_a_reason_said_after_a_megabyte_of_chatter_is_still_quoted(tmp_path: Path) -> None:
    # Far more than a pipe holds: the server blocks until the gateway reads, and exits right after its last line,
    # which the gateway must still have read when it makes the error.
    script = tmp_path / "chatty-server"
    script.write_text(
        f'#!/bin/sh\nyes "{CHATTER}" | head -n {CHATTER_LINES} >&2\necho "Error: the reason, said last" >&2\nexit 1\n'
    )
    script.chmod(0o755)
    write_workspace(tmp_path, {"chatty": {"command": str(script)}})
    called = await run_cli_async("call", "chatty.echo", home=tmp_path)
    assert called.returncode == 1, called
    said = called.stderr[called.stderr.index('saying: "') :]
    assert said.startswith(f'saying: "{CHATTER} | '), said
    assert said.split('". ', 1)[0].endswith(" | Error: the reason, said last"), said


async def test_server_filesystem_given_a_missing_directory_is_quoted_by_its_own_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-directory"
    write_workspace(tmp_path, {"files": {"command": str(peer("mcp-server-filesystem")), "args": [str(missing)]}})
    called = await run_cli_async("call", "files.list_directory", "--args", json.dumps({"path": "/"}), home=tmp_path)
    assert called.returncode == 1, called
    assert "mcp-gateway: Server 'files' exited with code 1 before the MCP handshake finished" in called.stderr
    assert "Error: None of the specified directories are accessible" in called.stderr, called.stderr
    assert "a retry will not help" not in called.stderr
    assert "will fail the same way" in called.stderr
