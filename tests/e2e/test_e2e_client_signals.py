"""Ending a session the way real clients do, end to end: Claude Code sends SIGINT, then SIGTERM 100 ms later.

With nothing running the gateway must be gone before that SIGTERM. So that a busy machine slows the
measure and its bound alike, each trial first measures how long a bare Python process takes to die on
SIGINT, and the SIGTERM follows 100 ms after that; most trials must end before it.

The front leaves at the first signal. Behind a standalone session (its private daemon) that makes the stop of
every server an urgent one: Claude Code SIGKILLs the gateway about 500 ms after SIGINT, so a server that would
take longer to exit on stdin EOF than the few milliseconds an urgent stop allows is stopped by SIGTERM instead
(the fake server's exit log records no EOF exit), a stubborn one by SIGKILL, and all is over within the bound.
Behind the shared daemon, the servers stay for the next session. Ctrl-C pressed three times in a terminal (the
whole foreground group: the front and its private daemon) forces the stop.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import anyio.abc
import psutil
import pytest
from e2e_gateway import (
    POLL_SECONDS,
    PROCESS_GONE_SECONDS,
    SESSION_SECONDS,
    RawGateway,
    client_environment,
    gateway_command,
    kill_groups_quietly,
    raw_gateway,
    read_lines,
    wait_groups_empty,
)
from workspaces import STANDALONE, fake_server, refreshed_workspace, write_workspace

from mcp_gateway.server.stopping import SHUTDOWN_BOUND_SECONDS

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.anyio,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process groups from Linux /proc"),
]

CLAUDE_CODE_SIGTERM_DELAY_SECONDS = 0.1
"""Claude Code ends a session with SIGINT, then SIGTERM if the server is still there this much later."""
TRIALS = 5
WIND_DOWN_SECONDS = 0.5
"""A plain server's clean exit after stdin EOF takes a moment (as long as Claude Code waits to SIGKILL)."""
IDLE_SECONDS = 0.3
"""A gateway that has used no CPU time for this long is done starting up, as at the end of a real session."""
STOPPED_WITHIN_SECONDS = 2 * SHUTDOWN_BOUND_SECONDS
"""The gateway kills whatever still runs `SHUTDOWN_BOUND_SECONDS` after a stop began, and a stubborn server
outlives stdin EOF and SIGTERM until SIGKILL: without that bound it would never be gone. Twice the bound leaves a
loaded machine room to deliver the signals and reap, and still tells a bounded stop from none."""
BARE_PYTHON = "import sys; sys.stdout.write('ready\\n'); sys.stdout.flush(); sys.stdin.read()"
"""The baseline: a Python process that starts nothing, waiting on its stdin like a stdio server."""


async def exit_latency(process: anyio.abc.Process, *, sigterm_after: float) -> float:
    """Seconds from SIGINT to exit; like Claude Code, SIGTERM follows when the process is still there."""
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    with anyio.move_on_after(sigterm_after):
        await process.wait()
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
    with anyio.fail_after(PROCESS_GONE_SECONDS):
        await process.wait()
    return time.monotonic() - sent


async def bare_python_latency() -> float:
    """How long a Python process that starts nothing takes to die on SIGINT, on this machine, now."""
    async with await anyio.open_process(
        [sys.executable, "-c", BARE_PYTHON], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    ) as process:
        assert process.stdout is not None
        with anyio.fail_after(SESSION_SECONDS):
            assert await process.stdout.receive() == b"ready\n"
        return await exit_latency(process, sigterm_after=PROCESS_GONE_SECONDS)


def cpu_ticks(pid: int) -> int:
    """User and system CPU time the process has used so far, all its threads together (Linux /proc)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[11]) + int(fields[12])


async def wait_idle(pid: int) -> None:
    """Until the process has used no CPU time for `IDLE_SECONDS`: its start-up work is over."""
    with anyio.fail_after(SESSION_SECONDS):
        ticks, since = cpu_ticks(pid), time.monotonic()
        while time.monotonic() - since < IDLE_SECONDS:
            await anyio.sleep(POLL_SECONDS)
            if (now := cpu_ticks(pid)) != ticks:
                ticks, since = now, time.monotonic()


async def gateway_latency(home: Path, *, sigterm_after: float) -> tuple[float, int | None]:
    async with raw_gateway(home) as gateway:
        with anyio.fail_after(SESSION_SECONDS):
            found = await gateway.call("tools/call", {"name": "search_tools", "arguments": {"query": "echo"}})
        assert not found.get("isError"), found
        # Sessions end long after the start-up's background work (a stop during the validation warm-up
        # waits for that import to finish, which is another matter).
        await wait_idle(gateway.pid)
        latency = await exit_latency(gateway.process, sigterm_after=sigterm_after)
        return latency, gateway.process.returncode


async def test_with_nothing_running_the_gateway_is_gone_before_claude_codes_sigterm(tmp_path: Path) -> None:
    spawns = tmp_path / "spawns.log"
    home = tmp_path / "home"
    await refreshed_workspace(home, {"fake": fake_server(spawn_log=str(spawns))})
    started_by_refresh = read_lines(spawns)
    trials: list[tuple[float, float, int | None]] = []
    for _ in range(TRIALS):
        # The SIGTERM comes 100 ms after what a bare Python needs to die, measured just before: a busy
        # machine delays both alike, and the gateway's own share must stay within Claude Code's 100 ms.
        bare = await bare_python_latency()
        latency, status = await gateway_latency(home, sigterm_after=bare + CLAUDE_CODE_SIGTERM_DELAY_SECONDS)
        trials.append((bare, latency, status))
    report = ", ".join(f"{gateway * 1000:.0f} ms (bare {bare * 1000:.0f} ms)" for bare, gateway, _ in trials)
    in_time = [status for bare, gateway, status in trials if gateway < bare + CLAUDE_CODE_SIGTERM_DELAY_SECONDS]
    assert len(in_time) > TRIALS // 2, f"most exits came after Claude Code's SIGTERM: {report}"
    assert in_time == [0] * len(in_time), f"exit statuses {[status for *_, status in trials]}"
    assert read_lines(spawns) == started_by_refresh, "no downstream server was started"


async def pid_through(gateway: RawGateway, server: str) -> int:
    result = await gateway.call("tools/call", {"name": "execute_tool", "arguments": {"tool": f"{server}.pid"}})
    return int(result["structuredContent"]["pid"])


async def test_sigint_then_sigterm_is_one_urgent_shutdown_that_stops_every_server_of_a_standalone_session(
    tmp_path: Path,
) -> None:
    exits = tmp_path / "exits.log"
    plain_server = fake_server(exit_log=str(exits), exit_delay=str(WIND_DOWN_SECONDS))
    servers = {"plain": plain_server, "stubborn": fake_server(stubborn="1")}
    write_workspace(tmp_path / "home", servers, STANDALONE)
    learned: list[int] = []
    try:
        async with raw_gateway(tmp_path / "home") as gateway:
            with anyio.fail_after(SESSION_SECONDS):
                plain, stubborn = [await pid_through(gateway, name) for name in servers]
                learned += [plain, stubborn]
            stopping = time.monotonic()
            os.kill(gateway.pid, signal.SIGINT)
            await anyio.sleep(CLAUDE_CODE_SIGTERM_DELAY_SECONDS)  # the client's own timing, under test here
            with contextlib.suppress(ProcessLookupError):  # an urgent stop may be over already, as it should
                os.kill(gateway.pid, signal.SIGTERM)
            assert await gateway.wait_exit(STOPPED_WITHIN_SECONDS) == 0
            await wait_groups_empty(learned, max(0.1, STOPPED_WITHIN_SECONDS - (time.monotonic() - stopping)))
        assert time.monotonic() - stopping < STOPPED_WITHIN_SECONDS
        assert read_lines(exits) == [], "the plain server was not left its slow exit on stdin EOF"
    finally:
        kill_groups_quietly(learned)


async def test_sigint_behind_the_shared_daemon_ends_the_session_and_leaves_its_servers_for_the_next(
    tmp_path: Path,
) -> None:
    write_workspace(tmp_path / "home", {"plain": fake_server()})
    async with raw_gateway(tmp_path / "home") as first:
        with anyio.fail_after(SESSION_SECONDS):
            served = await pid_through(first, "plain")
        os.kill(first.pid, signal.SIGINT)
        assert await first.wait_exit(PROCESS_GONE_SECONDS) == 0
    async with raw_gateway(tmp_path / "home") as second:
        with anyio.fail_after(SESSION_SECONDS):
            assert await pid_through(second, "plain") == served, "the next session finds the same process"


async def test_ctrl_c_three_times_in_a_terminal_kills_every_server_at_once(tmp_path: Path) -> None:
    write_workspace(tmp_path / "home", {"stubborn": fake_server(stubborn="1", grandchild="1")}, STANDALONE)
    learned: list[int] = []
    try:
        async with raw_gateway(tmp_path / "home", own_group=True) as gateway:
            with anyio.fail_after(SESSION_SECONDS):
                learned.append(await pid_through(gateway, "stubborn"))
            stopping = time.monotonic()
            # To the whole foreground group, as a terminal sends it: the front and its private daemon.
            for _ in range(3):
                os.killpg(gateway.pid, signal.SIGINT)
                await anyio.sleep(POLL_SECONDS)
            assert await gateway.wait_exit(STOPPED_WITHIN_SECONDS) == 0
            await wait_groups_empty([*learned, gateway.pid], STOPPED_WITHIN_SECONDS)
        assert time.monotonic() - stopping < STOPPED_WITHIN_SECONDS
    finally:
        kill_groups_quietly(learned)


def private_daemons(home: Path) -> list[psutil.Process]:
    found: list[psutil.Process] = []
    for process in psutil.process_iter(["cmdline"]):
        cmdline: list[str] = process.info["cmdline"] or []
        if "daemon" in cmdline and "--home" in cmdline and str(home) in cmdline:
            found.append(process)
    return found


async def test_a_standalone_front_killed_before_its_daemon_answered_leaves_no_daemon(tmp_path: Path) -> None:
    # A client quitting in its first second (Claude Code: SIGINT, SIGTERM, SIGKILL within 600 ms) kills the front
    # while its private daemon is still importing: no session ever reaches that daemon, and it must still leave.
    home = tmp_path / "home"
    write_workspace(home, {"fake": fake_server()}, STANDALONE)
    front = await anyio.open_process(gateway_command(home), env=client_environment(), stdin=subprocess.PIPE)
    daemons: list[psutil.Process] = []
    try:
        with anyio.fail_after(SESSION_SECONDS):
            while not (daemons := private_daemons(home)):  # noqa: ASYNC110  # a process appearing has no event
                await anyio.sleep(POLL_SECONDS / 5)
        front.kill()  # its hello takes the daemon's imports, hundreds of milliseconds: not answered yet
        await front.wait()
        _, alive = await anyio.to_thread.run_sync(lambda: psutil.wait_procs(daemons, timeout=PROCESS_GONE_SECONDS))
        assert alive == [], f"the private daemon outlived its front: {alive}"
    finally:
        for daemon in daemons:
            with contextlib.suppress(psutil.NoSuchProcess):
                daemon.kill()
