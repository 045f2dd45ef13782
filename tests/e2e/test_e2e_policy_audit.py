"""The policy and the audit trail, through the shared daemon as users run it (a front per session).

`deny` refuses and the server never receives the call (the fake server logs every `tools/call` it gets);
`confirm` asks the person through the client's elicitation in both protocol eras (an accept lets the call
through, a decline refuses it before the server), and a client without elicitation is refused with the rule to
write. Every call and refusal is one line of logs/audit.jsonl, private, with the session's client and project,
the argument shape and no value unless `auditValues` asks, and then never a secret; `mcp-gateway audit` shows
and filters them.
"""

from __future__ import annotations

import json
import stat
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from e2e_gateway import SESSION_SECONDS, read_lines, run_cli_async, text_of, wait_for
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp_types import Implementation
from workspaces import (
    daemon_cleanup,
    daemon_settings,
    fake_server,
    refreshed_workspace,
    shared_session,
    write_workspace,
)

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

SECRET = "Zx9-secretValue-0123456789"
"""A server's credential (in its env), which a model then passes as an argument."""
WIPE = {
    "name": "wipe",
    "description": "Delete everything under a path.",
    "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
    "annotations": {"destructiveHint": True},
}
CLIENT = Implementation(name="policy-client", version="3.1.4")
AUDIT_SECONDS = 20.0
"""The writer thread appends within milliseconds; the rest is a loaded machine."""


def workspace(home: Path, calls: Path, **settings: Any) -> None:
    server = fake_server(tools_json=json.dumps([WIPE]), call_log=str(calls))
    server["env"]["API_TOKEN"] = SECRET
    write_workspace(home, {"fake": server}, daemon_settings(**settings))
    (home.parent / "project").mkdir()


@asynccontextmanager
async def session(
    home: Path, runtime_dir: Path, project: Path, mode: str = "legacy", **callbacks: Any
) -> AsyncGenerator[Client]:
    with anyio.fail_after(SESSION_SECONDS):
        async with shared_session(home, runtime_dir, cwd=project, mode=mode, client_info=CLIENT, **callbacks) as client:
            yield client


async def execute(client: Client, tool: str, **arguments: Any) -> types.CallToolResult:
    return await client.call_tool("execute_tool", {"tool": tool, "arguments": arguments})


async def audit_lines(home: Path, count: int) -> list[dict[str, Any]]:
    path = home / "logs" / "audit.jsonl"
    await wait_for(lambda: len(read_lines(path)) >= count, AUDIT_SECONDS)
    return [json.loads(line) for line in read_lines(path)]


def answering(*actions: str) -> tuple[Any, list[str]]:
    asked: list[str] = []

    async def answer(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action=actions[len(asked) - 1])  # pyright: ignore[reportArgumentType]

    return answer, asked


async def test_deny_refuses_before_the_server_and_every_call_is_one_private_line_without_values(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home, calls, project = tmp_path / "home", tmp_path / "calls.log", tmp_path / "project"
    workspace(home, calls, policy={"fake.wipe": "deny"})
    async with daemon_cleanup(runtime_dir), session(home, runtime_dir, project) as client:
        denied = await execute(client, "fake.wipe", path="/")
        denied_misfit = await execute(client, "fake.wipe", path=5)  # refused as denied, never "fix the arguments"
        echoed = await execute(client, "fake.echo", message=f"the token {SECRET}")
    assert denied.is_error
    assert denied_misfit.is_error
    assert text_of(denied_misfit) == text_of(denied)
    assert text_of(denied) == (
        "'fake.wipe' is denied by this gateway's policy (the rule 'fake.wipe' in settings.policy of config.json), "
        "so it was not called."
    )
    assert not echoed.is_error
    assert read_lines(calls) == ["echo"]
    refused, refused_misfit, ok = await audit_lines(home, 3)
    assert stat.S_IMODE((home / "logs" / "audit.jsonl").stat().st_mode) == 0o600
    for line in (refused, refused_misfit, ok):
        assert line["session"]["client"] == "policy-client"
        assert line["session"]["clientVersion"] == "3.1.4"
        assert line["session"]["project"] == str(project)
        assert (line["kind"], line["server"]) == ("tool", "fake")
        assert "values" not in line
    assert (refused["name"], refused["outcome"], refused["arguments"]) == ("wipe", "refused", {"path": "string"})
    assert refused["reason"] == text_of(denied)
    assert (refused_misfit["outcome"], refused_misfit["arguments"]) == ("refused", {"path": "number"})
    assert (ok["name"], ok["outcome"], ok["arguments"]) == ("echo", "ok", {"message": "string"})
    assert ok["resultBytes"] > len(SECRET)
    assert "/" not in json.dumps(refused["arguments"])
    assert SECRET not in (home / "logs" / "audit.jsonl").read_text()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_confirm_asks_the_person_an_accept_calls_and_a_decline_never_reaches_the_server(
    tmp_path: Path, runtime_dir: Path, mode: str
) -> None:
    home, calls = tmp_path / "home", tmp_path / "calls.log"
    workspace(home, calls, policy={"destructiveHint": "confirm"})
    answer, asked = answering("accept", "decline")
    async with (
        daemon_cleanup(runtime_dir),
        session(home, runtime_dir, tmp_path / "project", mode, elicitation_callback=answer) as client,
    ):
        accepted = await execute(client, "fake.wipe", path="/tmp/old")
        declined = await execute(client, "fake.wipe", path="/")
        read_only = await execute(client, "fake.echo", message="hi")  # read-only: not destructive, not asked
    assert not accepted.is_error
    assert json.loads(text_of(accepted)) == {"path": "/tmp/old"}
    assert declined.is_error
    assert text_of(declined) == "The user declined the call of 'fake.wipe', so it was not called."
    assert not read_only.is_error
    assert len(asked) == 2
    assert "fake.wipe" in asked[0]
    assert '"path":"/tmp/old"' in asked[0]
    assert read_lines(calls) == ["wipe", "echo"]
    outcomes = [(line["name"], line["outcome"]) for line in await audit_lines(home, 3)]
    assert outcomes == [("wipe", "ok"), ("wipe", "refused"), ("echo", "ok")]


async def test_confirm_in_a_client_without_elicitation_refuses_saying_how_to_allow_it(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home, calls = tmp_path / "home", tmp_path / "calls.log"
    workspace(home, calls, policy={"fake.*": "confirm"})
    async with daemon_cleanup(runtime_dir), session(home, runtime_dir, tmp_path / "project") as client:
        refused = await execute(client, "fake.wipe", path="/")
    assert refused.is_error
    assert text_of(refused) == (
        "'fake.wipe' needs the user's confirmation (the rule 'fake.*' says confirm) and this client cannot ask the "
        'user (elicitation), so it was not called; to allow it without asking, set "fake.wipe": "allow" in '
        "settings.policy of config.json."
    )
    assert read_lines(calls) == []


async def test_values_are_audited_only_when_asked_and_masked_and_the_audit_command_shows_and_filters_them(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home, calls = tmp_path / "home", tmp_path / "calls.log"
    workspace(home, calls, policy={"fake.wipe": "deny"}, auditValues=True)
    async with daemon_cleanup(runtime_dir), session(home, runtime_dir, tmp_path / "project") as client:
        await execute(client, "fake.echo", message=f"the token {SECRET}")
        await execute(client, "fake.wipe", path="/srv")
    echoed, wiped = await audit_lines(home, 2)
    assert echoed["values"] == {"message": "the token ***"}
    assert wiped["values"] == {"path": "/srv"}
    assert SECRET not in (home / "logs" / "audit.jsonl").read_text()

    table = await run_cli_async("audit", home=home)
    assert table.returncode == 0, table.stderr
    header, *rows = table.stdout.splitlines()
    assert header.split() == ["time", "client", "call", "outcome", "ms", "bytes", "reason"]
    assert [row.split()[3:5] for row in rows] == [["fake.echo", "ok"], ["fake.wipe", "refused"]]
    assert all(row.split()[2] == "policy-client" for row in rows)
    refused = await run_cli_async("audit", "--outcome", "refused", "--since", "1h", "--format", "jsonl", home=home)
    assert [json.loads(line)["name"] for line in refused.stdout.splitlines()] == ["wipe"]
    exported = await run_cli_async("audit", "--tool", "fake.e*", "--format", "csv", home=home)
    assert [line.split(",")[7] for line in exported.stdout.splitlines()] == ["name", "echo"]
    nothing = await run_cli_async("audit", "--server", "other", "--json", home=home)
    assert json.loads(nothing.stdout)["calls"] == []
    bad = await run_cli_async("audit", "--since", "yesterday", home=home)
    assert bad.returncode == 2
    assert "neither a time ago" in bad.stderr


async def test_a_trail_that_cannot_be_written_never_fails_a_call_and_is_said_once_in_status(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home, calls, elsewhere = tmp_path / "home", tmp_path / "calls.log", tmp_path / "elsewhere.jsonl"
    workspace(home, calls)
    (home / "logs").mkdir(mode=0o700)
    (home / "logs" / "audit.jsonl").symlink_to(elsewhere)  # planted: never written through
    async with daemon_cleanup(runtime_dir), session(home, runtime_dir, tmp_path / "project") as client:
        first = await execute(client, "fake.echo", message="one")
        second = await execute(client, "fake.echo", message="two")
        assert (first.is_error, second.is_error) == (False, False)
        shown = ""
        with anyio.fail_after(AUDIT_SECONDS):
            while "audit" not in shown:
                done = await run_cli_async("status", home=home)
                shown = done.stdout
    assert not elsewhere.exists()
    assert read_lines(calls) == ["echo", "echo"]
    said = [line for line in shown.splitlines() if "audit.jsonl" in line]
    assert len(said) == 1
    assert "cannot be written (it is a symbolic link), so calls are not recorded in the audit trail" in said[0]


async def test_a_prompt_get_and_a_resource_read_are_each_one_line_with_their_server(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home = tmp_path / "home"
    await refreshed_workspace(home, {"fake": fake_server(surface="serve")}, daemon_settings())  # prompts listed
    await anyio.Path(tmp_path / "project").mkdir()
    async with daemon_cleanup(runtime_dir), session(home, runtime_dir, tmp_path / "project") as client:
        prompts = {prompt.name for prompt in (await client.list_prompts()).prompts}
        prompt = next(name for name in prompts if name.endswith("args-prompt"))
        await client.get_prompt(prompt, {"city": "Oslo"})
        await client.read_resource("fake://blob/bytes")
    got, read = await audit_lines(home, 2)
    assert (got["kind"], got["server"], got["name"], got["outcome"]) == ("prompt", "fake", "args-prompt", "ok")
    assert got["arguments"] == {"city": "string"}
    assert (read["kind"], read["server"], read["name"], read["outcome"]) == (
        "resource",
        "fake",
        "fake://blob/bytes",
        "ok",
    )
    assert read["resultBytes"] > 256
    assert "arguments" not in read
