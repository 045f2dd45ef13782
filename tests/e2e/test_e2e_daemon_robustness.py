"""Nothing one connection does may end the shared daemon or stall the sessions it serves, end to end.

Real fronts, one real daemon, real fake servers behind it, and connections made by hand where a careless or
hostile program would make them: a front that hangs up before the daemon answers its hello, a flood of
connections past the daemon's descriptor limit, a daemon that stops answering (SIGSTOP) while a call waits.
And what a daemon holds is per workspace directory, and told to each session as it is when that session opens.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import socket
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from e2e_gateway import SESSION_SECONDS, downstream_pid, execute, gateway_command, run_cli_async, text_of
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from workspaces import (
    GRACE_SECONDS,
    daemon_cleanup,
    daemon_pids,
    daemon_settings,
    fake_server,
    shared_environment,
    write_workspace,
)

from mcp_gateway.front.hello import Hello
from mcp_gateway.front.pipe import PING_SECONDS, QUIET_SECONDS
from mcp_gateway.front.rendezvous import private_directory, socket_path

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

DESCRIPTORS = 64
LARGE_CALL_BYTES = 1024 * 1024
"""Far more than a Unix socket takes at once (a few hundred kilobytes)."""
"""The daemon's hard limit on open descriptors in the flood test: a few sessions' worth."""
FLOOD = 3 * DESCRIPTORS


def home_of(tmp_path: Path, **settings: object) -> Path:
    home = tmp_path / "home"
    write_workspace(home, {"alpha": fake_server(name="alpha")}, {"daemonGraceSeconds": GRACE_SECONDS, **settings})
    return home


@asynccontextmanager
async def session(home: Path, runtime_dir: Path, *, limit_descriptors: bool = False) -> AsyncGenerator[Client]:
    """A front as a client starts it; `limit_descriptors`: with a low hard limit on open descriptors, which the
    daemon it starts inherits."""
    command, *args = gateway_command(home)
    if limit_descriptors:  # through prlimit, which sets the limit for what it runs
        command, args = "prlimit", [f"--nofile={DESCRIPTORS}:{DESCRIPTORS}", command, *args]
    params = StdioServerParameters(command=command, args=args, env=shared_environment(runtime_dir))
    async with Client(params, mode="legacy", cache=None) as client:
        yield client


def the_socket(home: Path, runtime_dir: Path) -> Path:
    return socket_path(home, private_directory(runtime_dir / "mcp-gateway"))


async def test_a_front_that_hangs_up_before_its_hello_is_answered_ends_no_other_session(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home = home_of(tmp_path)
    async with daemon_cleanup(runtime_dir), session(home, runtime_dir) as staying:
        first = await downstream_pid(staying, "alpha")
        hello = Hello.of_this_process(str(tmp_path), shared_environment(runtime_dir)).encode()
        for _ in range(20):  # gone before the answer could be written: its send meets a closed connection
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as hasty:
                hasty.connect(os.fspath(the_socket(home, runtime_dir)))
                hasty.sendall(hello)
                hasty.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")  # a reset, not a close
        with anyio.fail_after(SESSION_SECONDS):
            assert text_of(await execute(staying, "alpha.echo", {"message": "still"})) == "still"
            assert await downstream_pid(staying, "alpha") == first, "the same daemon, the same process"
        assert len(daemon_pids(runtime_dir)) == 1


async def test_a_flood_of_connections_past_the_descriptor_limit_is_waited_out_not_fatal(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home = home_of(tmp_path)
    async with daemon_cleanup(runtime_dir), session(home, runtime_dir, limit_descriptors=True) as staying:
        first = await downstream_pid(staying, "alpha")
        [daemon] = daemon_pids(runtime_dir)
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        assert soft > FLOOD + 16, (soft, hard)  # the test process itself can hold the flood
        flood: list[socket.socket] = []
        try:
            for _ in range(FLOOD):  # each accepted takes a descriptor; past the limit accept fails with EMFILE
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                with contextlib.suppress(OSError):  # the backlog full: refused, as it should be
                    sock.setblocking(False)
                    sock.connect(os.fspath(the_socket(home, runtime_dir)))
                flood.append(sock)
            await anyio.sleep(1.0)  # the daemon meets the limit meanwhile
        finally:
            for sock in flood:
                sock.close()
        with anyio.fail_after(SESSION_SECONDS):
            assert text_of(await execute(staying, "alpha.echo", {"message": "still"})) == "still"
            async with session(home, runtime_dir) as late:
                assert text_of(await execute(late, "alpha.echo", {"message": "late"})) == "late"
            assert await downstream_pid(staying, "alpha") == first
        assert daemon_pids(runtime_dir) == [daemon], "the same daemon served on"


async def test_a_daemon_that_stops_answering_is_found_out_and_the_session_goes_on(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home = home_of(tmp_path)
    async with daemon_cleanup(runtime_dir), session(home, runtime_dir) as client:
        await downstream_pid(client, "alpha")
        [daemon] = daemon_pids(runtime_dir)
        failure: list[MCPError] = []

        async def waiting_call() -> None:
            try:
                await execute(client, "alpha.sleep", {"seconds": 2})
            except MCPError as error:
                failure.append(error)

        try:
            with anyio.fail_after(QUIET_SECONDS + PING_SECONDS + SESSION_SECONDS):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(waiting_call)
                    await anyio.sleep(0.5)  # the call is at the daemon
                    os.kill(daemon, signal.SIGSTOP)  # wedged: its socket still accepts, nothing answers
                assert failure, "the call waited on a daemon that never answered"
                assert "stopped answering" in str(failure[0])
                assert text_of(await execute(client, "alpha.echo", {"message": "on"})) == "on"
        finally:
            os.kill(daemon, signal.SIGCONT)


async def test_a_daemon_that_stops_taking_a_large_call_is_found_out_and_the_call_goes_to_the_next(
    tmp_path: Path, runtime_dir: Path
) -> None:
    """A call larger than the socket holds, sent to a daemon that reads nothing, blocks the front's send; the
    front's ping would wait behind it forever. The blocked send is taken as the unanswered ping: the front moves
    to a fresh daemon, which gets the call whole."""
    home = home_of(tmp_path)
    large = "x" * LARGE_CALL_BYTES
    async with daemon_cleanup(runtime_dir), session(home, runtime_dir) as client:
        await downstream_pid(client, "alpha")
        [daemon] = daemon_pids(runtime_dir)
        try:
            with anyio.fail_after(QUIET_SECONDS + 2 * PING_SECONDS + SESSION_SECONDS):
                os.kill(daemon, signal.SIGSTOP)  # wedged: nothing it is sent is read
                echoed = await execute(client, "alpha.echo", {"message": large})
                assert text_of(echoed) == large
        finally:
            os.kill(daemon, signal.SIGCONT)


async def test_workspaces_whose_configs_link_to_one_file_have_a_daemon_each(tmp_path: Path, runtime_dir: Path) -> None:
    dotfile = tmp_path / "dotfiles" / "config.json"
    dotfile.parent.mkdir()
    settings = {"daemonGraceSeconds": GRACE_SECONDS}
    dotfile.write_text(json.dumps({"mcpServers": {"alpha": fake_server(name="alpha")}, "settings": settings}))
    homes = [tmp_path / "one", tmp_path / "two"]
    for home in homes:
        home.mkdir()
        (home / "config.json").symlink_to(dotfile)
    async with (
        daemon_cleanup(runtime_dir),
        session(homes[0], runtime_dir) as one,
        session(homes[1], runtime_dir) as two,
    ):
        with anyio.fail_after(SESSION_SECONDS):
            await execute(one, "alpha.echo", {"message": "one"})
            await execute(two, "alpha.echo", {"message": "two"})
        assert len(daemon_pids(runtime_dir)) == 2, "a daemon per workspace, whatever its config links to"
    for home in homes:
        assert (home / "cache.json").exists(), "each workspace keeps its own catalog"


async def test_a_session_opened_later_hears_of_the_servers_added_and_listed_since(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home = home_of(tmp_path, startupMetadataCheck=False)
    async with daemon_cleanup(runtime_dir), session(home, runtime_dir) as early:
        early_instructions = early.instructions or ""
        with anyio.fail_after(SESSION_SECONDS):
            await execute(early, "alpha.echo", {"message": "first"})
            servers = {"alpha": fake_server(name="alpha"), "weather": fake_server(name="weather")}
            write_workspace(home, servers, daemon_settings())
            refreshed = await run_cli_async("refresh", "weather", home=home)
            assert refreshed.returncode == 0, refreshed.stderr
            await anyio.sleep(2.0)  # the daemon applies the edit (it polls config.json every second)
            async with session(home, runtime_dir) as late:
                late_instructions = late.instructions or ""
    assert "weather" not in early_instructions
    assert "weather" in late_instructions, "told as the gateway is now, not as it was when the daemon started"
