"""Faults, end to end: the real gateway process in front of real downstream processes that crash, hang,
time out, get cancelled, start badly or talk garbage. Each failure is a clear error for that server only.

Starts are counted with the fake server's spawn log, cancellations with its cancel log. A workspace is
refreshed first (`mcp-gateway refresh`), so the session under test starts servers only for real calls.
"""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest
from e2e_gateway import (
    SESSION_SECONDS,
    downstream_pid,
    execute,
    gateway_session,
    is_alive,
    kill_quietly,
    read_lines,
    search,
    started_after,
    text_of,
    wait_for,
    wait_gone,
)
from mcp_types import CallToolResult
from workspaces import fake_server, refreshed_workspace, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

CONCURRENT_FIRST_CALLS = 20
CANCEL_REACHES_SECONDS = 10.0
"""The cancelled call would run 1000 steps of 0.2 s (200 s) if the cancellation did not reach the server; the
issue's second is what it takes here unloaded, and ten leave a loaded machine room while telling the two apart."""
TEN_MEGABYTES = 10 * 1024 * 1024


async def test_twenty_concurrent_first_calls_start_exactly_one_process_and_all_succeed(tmp_path: Path) -> None:
    spawns = tmp_path / "spawns.log"
    home = tmp_path / "home"
    await refreshed_workspace(home, {"fake": fake_server(spawn_log=str(spawns))})
    before = read_lines(spawns)
    answers: dict[int, str] = {}

    async def call(index: int) -> None:
        result = await execute(client, "fake.echo", {"message": f"call {index}"})
        assert not result.is_error, text_of(result)
        answers[index] = text_of(result)

    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client, anyio.create_task_group() as calls:
            for index in range(CONCURRENT_FIRST_CALLS):
                calls.start_soon(call, index)
    started = started_after(before, read_lines(spawns))
    kill_quietly(int(pid) for pid in started)
    assert answers == {index: f"call {index}" for index in range(CONCURRENT_FIRST_CALLS)}
    assert len(started) == 1


async def test_a_crash_mid_call_is_a_clear_error_the_next_call_starts_afresh_and_other_servers_are_unaffected(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    await refreshed_workspace(home, {"crashy": fake_server(), "steady": fake_server()})
    learned: list[int] = []
    try:
        with anyio.fail_after(SESSION_SECONDS):
            async with gateway_session(home) as client:
                steady_before = await downstream_pid(client, "steady")
                crashed_pid = await downstream_pid(client, "crashy")
                learned += [steady_before, crashed_pid]
                outcomes: dict[str, str] = {}
                crashes: list[CallToolResult] = []

                async def slow_call_on_the_other_server() -> None:
                    result = await execute(client, "steady.sleep", {"seconds": 1})
                    outcomes["steady"] = text_of(result)

                async with anyio.create_task_group() as calls:
                    calls.start_soon(slow_call_on_the_other_server)
                    crashes.append(await execute(client, "crashy.crash"))
                restarted_pid = await downstream_pid(client, "crashy")
                learned.append(restarted_pid)
                steady_after = await downstream_pid(client, "steady")
        [crash] = crashes
        assert crash.is_error
        message = text_of(crash)
        assert "connection to server 'crashy' was lost while 'crash' was running" in message
        assert "may or may not have taken effect" in message
        assert outcomes["steady"] == "slept 1"
        assert restarted_pid != crashed_pid
        assert not is_alive(crashed_pid)
        assert steady_after == steady_before
    finally:
        kill_quietly(learned)


async def test_a_timed_out_call_is_cancelled_downstream_while_another_call_on_the_connection_completes(
    tmp_path: Path,
) -> None:
    cancels = tmp_path / "cancels.log"
    home = tmp_path / "home"
    server = fake_server(cancel_log=str(cancels)) | {"requestTimeoutMs": 1500}
    await refreshed_workspace(home, {"fake": server})
    two_steps = anyio.Event()
    steps_seen = 0

    async def count_steps(progress: float, total: float | None, message: str | None) -> None:
        nonlocal steps_seen
        steps_seen += 1
        if steps_seen == 2:
            two_steps.set()

    learned: list[int] = []
    try:
        with anyio.fail_after(SESSION_SECONDS):
            async with gateway_session(home) as client:
                learned.append(pid_before := await downstream_pid(client, "fake"))
                outcomes: dict[str, str] = {}
                timed_out: list[CallToolResult] = []

                async def call_that_spans_the_timeout() -> None:
                    # Starts a second into the doomed call and ends half a second after that call's timeout.
                    await two_steps.wait()
                    outcomes["other"] = text_of(await execute(client, "fake.sleep", {"seconds": 1}))

                async with anyio.create_task_group() as calls:
                    calls.start_soon(call_that_spans_the_timeout)
                    timed_out.append(await execute(client, "fake.progress", {"steps": 1000, "delay": 0.5}, count_steps))
                await wait_for(lambda: bool(read_lines(cancels)), SESSION_SECONDS)
                pid_after = await downstream_pid(client, "fake")
        [doomed] = timed_out
        assert doomed.is_error
        assert "did not answer within 1.5s and was cancelled on the server" in text_of(doomed)
        assert outcomes["other"] == "slept 1"
        assert len(read_lines(cancels)) == 1
        assert pid_after == pid_before, "a server that still answers is not retired after a timeout"
    finally:
        kill_quietly(learned)


async def test_a_wedged_connection_is_retired_and_closed_after_its_last_call(tmp_path: Path) -> None:
    # The server's output freezes for 15 s. Its call times out at 9 s, the liveness probe that follows
    # goes unanswered until 14 s, and the call made right after the timeout is still in flight then: it
    # must complete on the retired connection (at 15 s) before that connection is closed.
    home = tmp_path / "home"
    await refreshed_workspace(home, {"fake": fake_server() | {"requestTimeoutMs": 9000}})
    learned: list[int] = []
    try:
        with anyio.fail_after(SESSION_SECONDS):
            async with gateway_session(home) as client:
                learned.append(wedged_pid := await downstream_pid(client, "fake"))
                wedged = await execute(client, "fake.hang", {"seconds": 15})
                last_call = await execute(client, "fake.echo", {"message": "after the wedge"})
                await wait_gone([wedged_pid])
                learned.append(fresh_pid := await downstream_pid(client, "fake"))
        assert wedged.is_error
        assert "did not answer within 9s" in text_of(wedged)
        assert (last_call.is_error, text_of(last_call)) == (False, "after the wedge")
        assert fresh_pid != wedged_pid
        assert "did not answer a liveness probe" in (home / "logs" / "fake.stderr.log").read_text()
    finally:
        kill_quietly(learned)


async def test_a_client_cancellation_reaches_the_downstream_call_promptly(tmp_path: Path) -> None:
    cancels = tmp_path / "cancels.log"
    home = tmp_path / "home"
    await refreshed_workspace(home, {"fake": fake_server(cancel_log=str(cancels))})
    running = anyio.Event()

    async def note_running(progress: float, total: float | None, message: str | None) -> None:
        running.set()

    learned: list[int] = []
    try:
        with anyio.fail_after(SESSION_SECONDS):
            async with gateway_session(home) as client:
                learned.append(await downstream_pid(client, "fake"))
                async with anyio.create_task_group() as calls:
                    calls.start_soon(execute, client, "fake.progress", {"steps": 1000, "delay": 0.2}, note_running)
                    await running.wait()
                    calls.cancel_scope.cancel()
                cancelled_at = time.monotonic()
                await wait_for(lambda: bool(read_lines(cancels)), SESSION_SECONDS)
                reached_after = time.monotonic() - cancelled_at
                after = await execute(client, "fake.echo", {"message": "still serving"})
        assert reached_after < CANCEL_REACHES_SECONDS
        assert text_of(after) == "still serving"
    finally:
        kill_quietly(learned)


HOSTILE_STARTS = {
    "exits at start": (fake_server(exit_at_start="3"), "exited with code 3 before the MCP handshake finished"),
    "never answers initialize": (
        fake_server(init_delay="600") | {"connectTimeoutMs": 1500},
        "did not finish starting within 1.5s (connectTimeoutMs)",
    ),
    "command not found": ({"command": "/nonexistent/mcp-server"}, "could not be started: command not found"),
}


@pytest.mark.parametrize("kind", list(HOSTILE_STARTS))
async def test_a_server_that_cannot_start_is_a_clear_error_for_it_alone_and_the_gateway_keeps_serving(
    tmp_path: Path, kind: str
) -> None:
    hostile, expected = HOSTILE_STARTS[kind]
    home = tmp_path / "home"
    await refreshed_workspace(home, {"good": fake_server()})
    write_workspace(home, {"good": fake_server(), "bad": hostile})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            bad = await execute(client, "bad.echo", {"message": "hello"})
            good = await execute(client, "good.echo", {"message": "hello"})
            found = await search(client, "echo a message", server="good")
    assert bad.is_error
    assert expected in text_of(bad)
    assert "'bad'" in text_of(bad)
    assert (good.is_error, text_of(good)) == (False, "hello")
    assert found["results"]


async def test_garbage_on_a_server_stdout_is_skipped_and_its_tools_still_work(tmp_path: Path) -> None:
    home = tmp_path / "home"
    await refreshed_workspace(home, {"noisy": fake_server(garbage="1")})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            result = await execute(client, "noisy.echo", {"message": "through the noise"})
    assert (result.is_error, text_of(result)) == (False, "through the noise")
    assert "not JSON-RPC" in (home / "logs" / "noisy.stderr.log").read_text()


async def test_a_ten_megabyte_result_passes_through_whole(tmp_path: Path) -> None:
    home = tmp_path / "home"
    await refreshed_workspace(home, {"fake": fake_server()})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(home) as client:
            result = await execute(client, "fake.big", {"bytes": TEN_MEGABYTES})
            after = await execute(client, "fake.echo", {"message": "next"})
    assert not result.is_error
    assert text_of(result) == "x" * TEN_MEGABYTES
    assert text_of(after) == "next"
