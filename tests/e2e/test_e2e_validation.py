"""Argument validation, end to end: the real gateway process in front of real fake servers whose tool schemas
are hostile. A catastrophic pattern with a long argument does not freeze the gateway (requests it answers
itself, searches and other servers are answered while it is checked), does not block its call (sent
unchecked once checking runs out of time) and does not keep SIGTERM from stopping the gateway; a `$ref`
cycle leaves the tool callable. And a fresh session whose first request is `execute_tool` always succeeds
(the validation warm-up and the first check used to race importing jsonschema).
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_gateway import (
    SESSION_SECONDS,
    execute,
    gateway_session,
    kill_quietly,
    raw_gateway,
    read_lines,
    search,
    text_of,
    wait_gone,
)
from workspaces import STANDALONE, fake_server, refreshed_workspace

from mcp_gateway.service.arguments import VALIDATION_DEADLINE_SECONDS

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

CATASTROPHIC = "^(a|aa)+$"
"""Backtracks exponentially in `re` and in `regex` alike."""
ISSUE_PATTERN = "^(a+)+$"
"""The pattern from the issue: `re` took 17 s on 29 characters; `regex` decides it at once."""
HOSTILE_TEXT = "a" * 64 + "!"
"""`re` would spend about a day matching it against CATASTROPHIC."""
HOSTILE_TOOLS = [
    {"name": "catastrophic", "inputSchema": {"type": "object", "properties": {"text": {"pattern": CATASTROPHIC}}}},
    {"name": "issue", "inputSchema": {"type": "object", "properties": {"text": {"pattern": ISSUE_PATTERN}}}},
    {"name": "cyclic", "inputSchema": {"type": "object", "$ref": "#/$defs/n", "$defs": {"n": {"$ref": "#/$defs/n"}}}},
]
IDLE_PROBES = 10
BUSY_PROBE_RATIO = 10.0
"""A probe answered while a check runs may take this many times the idle median (a busy machine), no more."""
DEADLINE_EARLY_SECONDS = 0.05
"""How much earlier than its deadline a pattern match may be cut: the `regex` module checks its timeout against
a clock of its own, now and then, and a clean-clone CI run saw the call answered 4.6 ms before a full second."""
STOP_SECONDS = 15.0
"""A bound for SIGTERM mid-check: the check's thread ends by its 1 s deadline, then the usual stop (about a
second); a check that held the stop would hold it as long as `re` takes on HOSTILE_TEXT (about a day)."""
FRESH_SESSIONS = 20
SESSIONS_AT_ONCE = 4


async def seconds_for(request: Callable[[], Awaitable[Any]]) -> float:
    started = time.monotonic()
    await request()
    return time.monotonic() - started


async def test_a_catastrophic_pattern_freezes_nothing_and_its_call_goes_out_unchecked(tmp_path: Path) -> None:
    spawns = tmp_path / "spawns.log"
    home = tmp_path / "home"
    servers = {
        "hostile": fake_server(tools_json=json.dumps(HOSTILE_TOOLS), spawn_log=str(spawns)),
        "other": fake_server(spawn_log=str(spawns)),
    }
    await refreshed_workspace(home, servers)
    try:
        with anyio.fail_after(SESSION_SECONDS):
            async with gateway_session(home) as client:
                await execute(client, "other.echo", {"message": "started"})
                await execute(client, "hostile.issue", {"text": "a"})  # both servers running: only the check differs
                # The probe: `tools/list`, which the gateway answers from its own event loop (as it would `ping`,
                # which the SDK deprecates).
                idle = statistics.median([await seconds_for(client.list_tools) for _ in range(IDLE_PROBES)])
                finished: dict[str, float] = {}
                busy: list[float] = []

                async def hostile_call() -> None:
                    started = time.monotonic()
                    result = await execute(client, "hostile.catastrophic", {"text": HOSTILE_TEXT})
                    finished["hostile"] = time.monotonic()
                    finished["seconds"] = finished["hostile"] - started
                    assert not result.is_error, text_of(result)
                    assert json.loads(text_of(result)) == {"text": HOSTILE_TEXT}

                async with anyio.create_task_group() as group:
                    group.start_soon(hostile_call)
                    busy.append(await seconds_for(client.list_tools))
                    other = await execute(client, "other.echo", {"message": "meanwhile"})
                    assert text_of(other) == "meanwhile"
                    found = await search(client, "echo a message")
                    assert found["results"]
                    finished["others"] = time.monotonic()
                    while "hostile" not in finished:
                        busy.append(await seconds_for(client.list_tools))
    finally:
        kill_quietly(int(pid) for pid in read_lines(spawns))
    # The call took its check's full deadline, and everything else was answered within it.
    assert finished["seconds"] >= VALIDATION_DEADLINE_SECONDS - DEADLINE_EARLY_SECONDS
    assert finished["others"] < finished["hostile"]
    assert len(busy) >= 3
    assert statistics.median(busy) <= BUSY_PROBE_RATIO * idle, (idle, busy)
    assert max(busy) < finished["seconds"] / 3, (idle, busy)


async def test_the_issues_pattern_is_reported_at_once_and_a_cyclic_schema_is_callable(tmp_path: Path) -> None:
    spawns = tmp_path / "spawns.log"
    home = tmp_path / "home"
    await refreshed_workspace(
        home, {"hostile": fake_server(tools_json=json.dumps(HOSTILE_TOOLS), spawn_log=str(spawns))}
    )
    try:
        with anyio.fail_after(SESSION_SECONDS):
            async with gateway_session(home) as client:
                mistake = await execute(client, "hostile.issue", {"text": "a" * 29 + "!"})
                cyclic = await execute(client, "hostile.cyclic", {"anything": [1, 2]})
    finally:
        kill_quietly(int(pid) for pid in read_lines(spawns))
    assert mistake.is_error
    assert f"does not match '{ISSUE_PATTERN}'" in text_of(mistake)
    assert not cyclic.is_error, text_of(cyclic)
    assert json.loads(text_of(cyclic)) == {"anything": [1, 2]}


async def test_sigterm_while_a_catastrophic_pattern_is_checked_still_stops_the_gateway(tmp_path: Path) -> None:
    spawns = tmp_path / "spawns.log"
    home = tmp_path / "home"
    await refreshed_workspace(
        home,
        {"hostile": fake_server(tools_json=json.dumps(HOSTILE_TOOLS), spawn_log=str(spawns))},
        STANDALONE,  # what its signal stops is everything, its private daemon too
    )
    try:
        async with raw_gateway(home) as gateway:
            with anyio.fail_after(SESSION_SECONDS):
                # The cache is loaded and the server running: the next call goes straight to its check.
                await gateway.call("tools/call", {"name": "execute_tool", "arguments": {"tool": "hostile.issue"}})
                hostile = {"tool": "hostile.catastrophic", "arguments": {"text": HOSTILE_TEXT}}
                await gateway.request("tools/call", {"name": "execute_tool", "arguments": hostile})
                # The gateway reads its input in order: once this ping is answered the call is being checked
                # (for a whole deadline, against a round trip of milliseconds).
                await gateway.call("ping", {})
            os.kill(gateway.pid, signal.SIGTERM)
            assert await gateway.wait_exit(STOP_SECONDS) == 0
        await wait_gone(int(pid) for pid in read_lines(spawns))
    finally:
        kill_quietly(int(pid) for pid in read_lines(spawns))


async def test_fresh_sessions_whose_first_request_is_a_tool_call_all_succeed(tmp_path: Path) -> None:
    spawns = tmp_path / "spawns.log"
    home = tmp_path / "home"
    await refreshed_workspace(home, {"fake": fake_server(spawn_log=str(spawns))})
    answers: dict[int, str] = {}
    limiter = anyio.CapacityLimiter(SESSIONS_AT_ONCE)

    async def session(index: int) -> None:
        async with limiter, gateway_session(home) as client:
            result = await execute(client, "fake.echo", {"message": f"session {index}"})
            answers[index] = text_of(result)

    try:
        with anyio.fail_after(SESSION_SECONDS * FRESH_SESSIONS / SESSIONS_AT_ONCE):
            async with anyio.create_task_group() as group:
                for index in range(FRESH_SESSIONS):
                    group.start_soon(session, index)
    finally:
        kill_quietly(int(pid) for pid in read_lines(spawns))
    assert answers == {index: f"session {index}" for index in range(FRESH_SESSIONS)}
