"""Ending a session the way real clients do, end to end: Claude Code sends SIGINT, then SIGTERM 100 ms later.

With servers running, SIGINT then SIGTERM is one graceful shutdown: a server that exits on stdin EOF
(taking a moment, as real ones do) is left to do so, which the fake server's exit log records; a stubborn
one is stopped by the escalation; all is over within the bound. A third signal forces the stop.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import anyio
import pytest
from e2e_gateway import (
    SESSION_SECONDS,
    RawGateway,
    kill_groups_quietly,
    raw_gateway,
    read_lines,
    wait_groups_empty,
)
from gateway_testing import fake_server, write_workspace

from mcp_gateway.server.stopping import FORCED_EXIT_STATUS, SHUTDOWN_BOUND_SECONDS

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.anyio,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process groups from Linux /proc"),
]

CLAUDE_CODE_SIGTERM_DELAY_SECONDS = 0.1
"""Claude Code ends a session with SIGINT, then SIGTERM if the server is still there this much later."""
WIND_DOWN_SECONDS = 0.5
"""A plain server's clean exit after stdin EOF takes a moment (longer than the gap between the signals)."""


async def pid_through(gateway: RawGateway, server: str) -> int:
    result = await gateway.call("tools/call", {"name": "execute_tool", "arguments": {"tool": f"{server}.pid"}})
    return int(result["structuredContent"]["pid"])


async def test_sigint_then_sigterm_is_one_graceful_shutdown_that_ends_within_the_bound(tmp_path: Path) -> None:
    exits = tmp_path / "exits.log"
    plain_server = fake_server(exit_log=str(exits), exit_delay=str(WIND_DOWN_SECONDS))
    servers = {"plain": plain_server, "stubborn": fake_server(stubborn="1")}
    write_workspace(tmp_path / "home", servers)
    learned: list[int] = []
    try:
        async with raw_gateway(tmp_path / "home") as gateway:
            with anyio.fail_after(SESSION_SECONDS):
                plain, stubborn = [await pid_through(gateway, name) for name in servers]
                learned += [plain, stubborn]
            stopping = time.monotonic()
            os.kill(gateway.pid, signal.SIGINT)
            await anyio.sleep(CLAUDE_CODE_SIGTERM_DELAY_SECONDS)  # the client's own timing, under test here
            os.kill(gateway.pid, signal.SIGTERM)
            assert await gateway.wait_exit(SHUTDOWN_BOUND_SECONDS) == 0
            await wait_groups_empty(learned, max(0.1, SHUTDOWN_BOUND_SECONDS - (time.monotonic() - stopping)))
        assert time.monotonic() - stopping < SHUTDOWN_BOUND_SECONDS
        assert read_lines(exits) == [f"{plain} stdin-eof"], "the plain server was left to exit on stdin EOF"
    finally:
        kill_groups_quietly(learned)


async def test_a_third_stop_signal_kills_every_server_and_leaves_at_once(tmp_path: Path) -> None:
    write_workspace(tmp_path / "home", {"stubborn": fake_server(stubborn="1", grandchild="1")})
    learned: list[int] = []
    try:
        async with raw_gateway(tmp_path / "home") as gateway:
            with anyio.fail_after(SESSION_SECONDS):
                learned.append(await pid_through(gateway, "stubborn"))
            # Three different signals: the kernel merges a signal into the same one still pending.
            for stop in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                os.kill(gateway.pid, stop)
            assert await gateway.wait_exit(SHUTDOWN_BOUND_SECONDS) == FORCED_EXIT_STATUS
            await wait_groups_empty(learned)
    finally:
        kill_groups_quietly(learned)
