"""`mcp-gateway status` shows the workspace's daemon, end to end: real fronts with their own `clientInfo`, the
real daemon they start, real fake servers behind it, and the real `status` command in another process.

It shows the daemon (pid, version, socket), its sessions by their clients' names with their calls in flight,
and per server the daemon's process for it and the sessions that use it; once the daemon has left, no
daemon; a SIGKILLed daemon's state as stale, until the next daemon (which also stops what the killed one
left running) removes it. The daemon's stderr goes to `logs/daemon.log` in the workspace.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import AsyncGenerator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_gateway import (
    SESSION_SECONDS,
    downstream_pid,
    execute,
    gateway_command,
    is_alive,
    kill_groups_quietly,
    parent_pid,
    run_cli_async,
    wait_gone,
)
from mcp import Client, StdioServerParameters
from mcp_types import Implementation
from workspaces import daemon_cleanup, daemon_pids, daemon_settings, fake_server, shared_environment, write_workspace

from mcp_gateway.cli.status import NO_DAEMON

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("runtime_dir")]

STATUS_SHOWS_SECONDS = 30.0
"""The daemon writes its state at once for a session's news and within a second for calls in flight; the
rest is `status` runs on a loaded machine (about a second each)."""
CLIENTS = (Implementation(name="first-client", version="1.0.1"), Implementation(name="second-client", version="2.0"))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    servers = {"alpha": fake_server(name="alpha"), "unused": fake_server(name="unused")}
    write_workspace(tmp_path / "home", servers, daemon_settings())
    return tmp_path / "home"


@asynccontextmanager
async def session(home: Path, runtime_dir: Path, client: Implementation) -> AsyncGenerator[Client]:
    command, *args = gateway_command(home)
    params = StdioServerParameters(command=command, args=args, env=shared_environment(runtime_dir))
    async with Client(params, mode="legacy", cache=None, client_info=client) as opened:
        yield opened


async def status_json(home: Path, runtime_dir: Path) -> dict[str, Any]:
    done = await run_cli_async(
        "status", "--json", home=home, extra_env={"MCP_GATEWAY_RUNTIME_DIR": str(runtime_dir / "mcp-gateway")}
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


async def status_text(home: Path, runtime_dir: Path) -> str:
    done = await run_cli_async(
        "status", home=home, extra_env={"MCP_GATEWAY_RUNTIME_DIR": str(runtime_dir / "mcp-gateway")}
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def status_when(home: Path, runtime_dir: Path, condition: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """`status --json` once `condition(status)` holds (the daemon writes its state as things change)."""
    with anyio.fail_after(STATUS_SHOWS_SECONDS):
        while not condition(status := await status_json(home, runtime_dir)):
            pass
    return status


async def stop_daemons(runtime_dir: Path) -> None:
    """Stop the daemons of a test whose grace outlasts it, as a person would (SIGTERM: they stop their servers)."""
    daemons = daemon_pids(runtime_dir)
    for daemon in daemons:
        os.kill(daemon, signal.SIGTERM)
    await wait_gone(daemons, SESSION_SECONDS)


async def status_during_a_call(home: Path, runtime_dir: Path, client: Client, name: str) -> tuple[dict[str, Any], str]:
    """`status --json` and `status` while a call of the session `name` is in flight."""
    shown: list[tuple[dict[str, Any], str]] = []
    # The state file samples calls in flight once a second: one written during an earlier call would pass for this
    # one. Once it shows none, the next file to show one was written during this call.
    await status_when(home, runtime_dir, lambda status: in_flight(status, name) == 0)
    async with anyio.create_task_group() as calls:
        calls.start_soon(execute, client, "alpha.sleep", {"seconds": 60})
        status = await status_when(home, runtime_dir, lambda status: in_flight(status, name) == 1)
        shown.append((status, await status_text(home, runtime_dir)))
        calls.cancel_scope.cancel()
    return shown[0]


def in_flight(status: dict[str, Any], client: str) -> int:
    sessions = [s for daemon in status["daemons"] for s in daemon["sessions"] if s["client"]["name"] == client]
    return sessions[0]["callsInFlight"] if sessions else -1


async def test_status_shows_the_daemon_its_sessions_by_client_and_its_processes_with_their_sessions(
    home: Path, runtime_dir: Path
) -> None:
    first, second = CLIENTS
    async with daemon_cleanup(runtime_dir):
        async with session(home, runtime_dir, first) as one, session(home, runtime_dir, second) as two:
            served = {await downstream_pid(one, "alpha"), await downstream_pid(two, "alpha")}
            [alpha] = served  # one process for both sessions
            [daemon] = daemon_pids(runtime_dir)
            status, text = await status_during_a_call(home, runtime_dir, one, first.name)

            [shown] = status["daemons"]
            assert shown["pid"] == daemon
            assert is_alive(daemon)
            assert shown["running"] is True
            assert shown["uptimeSeconds"] >= 0
            assert Path(shown["socket"]).parent == runtime_dir / "mcp-gateway"
            assert status["staleDaemons"] == []
            clients = {s["client"]["name"]: s for s in shown["sessions"]}
            assert {name: s["client"]["version"] for name, s in clients.items()} == {
                first.name: first.version,
                second.name: second.version,
            }
            assert clients[second.name]["callsInFlight"] == 0
            [process] = [p for p in shown["processes"] if p["server"] == "alpha"]
            assert process["pid"] == alpha
            assert is_alive(alpha)
            assert parent_pid(alpha) == daemon
            assert process["state"] == "ready"
            assert sorted(process["sessions"]) == sorted(s["id"] for s in clients.values())
            assert not [p for p in shown["processes"] if p["server"] == "unused"], "never started, never listed"
            [alpha_server] = [s for s in status["servers"] if s["server"] == "alpha"]
            assert alpha_server["running"] == [{"gatewayPid": daemon, "pid": alpha}]

            one_id, two_id = clients[first.name]["id"], clients[second.name]["id"]
            assert f"daemon: pid {daemon}, up " in text
            assert f"session {one_id}: {first.name} {first.version}, connected " in text
            assert ", 1 call in flight" in text
            assert f"session {two_id}: {second.name} {second.version}, connected " in text
            assert f"daemon {daemon}: pid {alpha}, ready" in text
            assert f"used by session {one_id} ({first.name}), session {two_id} ({second.name})" in text
        # Both fronts closed: the daemon leaves after its grace, and says so by removing its state.
        await wait_gone([daemon], SESSION_SECONDS)
    status = await status_json(home, runtime_dir)
    assert status["daemons"] == []
    assert status["staleDaemons"] == []
    assert NO_DAEMON in await status_text(home, runtime_dir)
    assert not is_alive(alpha)


async def test_a_sigkilled_daemon_is_reported_stale_and_the_next_one_stops_what_it_left_and_logs_to_the_workspace(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home = tmp_path / "home"
    servers = {"alpha": fake_server(), "stubborn": fake_server(stubborn="1")}  # ignores stdin EOF and SIGTERM
    # A daemon in its grace: no front is left to start a fresh one at once when it is killed.
    write_workspace(home, servers, daemon_settings(daemonGraceSeconds=600))
    stubborn = 0
    try:
        async with session(home, runtime_dir, CLIENTS[0]) as client:
            stubborn = await downstream_pid(client, "stubborn")
            [daemon] = daemon_pids(runtime_dir)
        # Its last session gone, the daemon waits out its grace, and says so.
        idle = await status_when(home, runtime_dir, lambda status: not status["daemons"][0]["sessions"])
        assert idle["daemons"][0]["pid"] == daemon
        assert idle["daemons"][0]["idleSince"] is not None
        assert "no session: it stops in " in await status_text(home, runtime_dir)
        os.kill(daemon, signal.SIGKILL)
        await wait_gone([daemon])
        assert is_alive(stubborn), "nothing stops a stubborn server but the next gateway process"

        unusable = home / "run" / "999999999.json"
        unusable.write_text("not a record")  # the next daemon sets it aside, with a warning on its stderr
        async with session(home, runtime_dir, CLIENTS[1]) as client:
            next_pid = await downstream_pid(client, "alpha")
            [next_daemon] = daemon_pids(runtime_dir)
            assert next_daemon != daemon
            assert parent_pid(next_pid) == next_daemon
            await wait_gone([stubborn])  # reaped by the next daemon, from the killed one's process record
            status = await status_when(
                home, runtime_dir, lambda status: [d["pid"] for d in status["daemons"]] == [next_daemon]
            )
            assert status["staleDaemons"] == [], "the next daemon removed the killed one's state"
        log = home / "logs" / "daemon.log"
        assert "set aside the unusable process record 999999999.json" in log.read_text()
        assert log.stat().st_mode & 0o777 == 0o600

        os.kill(next_daemon, signal.SIGKILL)
        await wait_gone([next_daemon])
        status = await status_json(home, runtime_dir)
        assert status["daemons"] == []
        assert [(stale["pid"], stale["running"]) for stale in status["staleDaemons"]] == [(next_daemon, False)]
        text = await status_text(home, runtime_dir)
        assert f"daemon: not running (stale state from pid {next_daemon}, started " in text
        assert NO_DAEMON in text
    finally:
        await stop_daemons(runtime_dir)
        kill_groups_quietly([stubborn] if stubborn else [])
