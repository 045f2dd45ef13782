"""The session front, end to end: what a client's `mcp-gateway` imports and says, with and without its daemon.

- With the workspace's daemon running, a front imports the standard library and its own package only: traced
  in the real process with `PYTHONPROFILEIMPORTTIME`, as `test_e2e_early_answers` traces a standalone start.
  It answers `initialize` and `tools/list` itself, from the handshake in the daemon's answer to its hello,
  and drops the daemon's own answers to them.
- Without one, the first front starts the daemon, which answers its hello with the handshake as soon as it has
  read its config (before it imports the SDK); the front answers from it, or at once from the handshake the
  last cold start remembered while nothing it was made from changed. The front stays thin either way.
- A call and an answer of megabytes cross the daemon's socket whole.
- Whichever way a session's handshake was answered, it says exactly what the daemon's own MCP session says
  (asked here over the daemon's socket directly, as a front would, with no front answering early).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import anyio
import anyio.to_thread
import pytest
from e2e_gateway import (
    SESSION_SECONDS,
    RawGateway,
    downstream_pid,
    execute,
    gateway_command,
    gateway_program,
    text_of,
    wait_for,
)
from test_e2e_early_answers import INITIALIZE, INITIALIZED, TOOLS_LIST, TracedGateway, importing, message
from workspaces import (
    daemon_cleanup,
    daemon_pids,
    daemon_settings,
    fake_server,
    refreshed_workspace,
    shared_environment,
    shared_session,
)

from mcp_gateway.front.hello import Answer, Hello
from mcp_gateway.front.pipe import POLL_QUIET_SECONDS
from mcp_gateway.front.remembered_handshake import remembered_path
from mcp_gateway.front.rendezvous import private_directory, socket_path

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

HEAVY = (
    *("mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "mcp_gateway.config", "mcp_gateway.server"),
    *("dataclasses", "inspect", "logging"),
)
"""What a front with its daemon running must not import: the SDK, pydantic, the event loop, the gateway proper,
and the standard library's slowest to import (`dataclasses` brings `inspect`), about 15 ms of a 50 ms start."""
THIN_FRONT_MB = 20.0
"""The issue's bound for a front's resident memory; a cold front that loaded the config took 33 MB."""
LARGE_BYTES = 1024 * 1024
"""Far more than a Unix socket's buffer (about 200 KB on Linux), far less than the gateway's line limit."""
ECHO = message(
    {
        "id": 3,
        "method": "tools/call",
        "params": {"name": "execute_tool", "arguments": {"tool": "alpha.echo", "arguments": {"message": "front"}}},
    }
)


async def workspace(home: Path) -> None:
    """A workspace whose digest is built, so the handshake's instructions name its server."""
    settings = daemon_settings()
    await refreshed_workspace(home, {"alpha": fake_server(name="alpha")}, settings)


@asynccontextmanager
async def raw_front(
    home: Path | None, runtime_dir: Path, extra_env: dict[str, str] | None = None, *, traced: bool = False
) -> AsyncGenerator[Any]:
    """A front driven by raw lines, of the workspace at `home` (None: the default workspace); `traced`: its
    imports listed on its stderr, merged into its stdout."""
    process = await anyio.open_process(
        gateway_program() if home is None else gateway_command(home),
        env=shared_environment(runtime_dir) | (extra_env or {}) | ({"PYTHONPROFILEIMPORTTIME": "1"} if traced else {}),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if traced else subprocess.DEVNULL,
    )
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        with anyio.CancelScope(shield=True):
            await process.wait()


def the_socket(home: Path, runtime_dir: Path) -> Path:
    return socket_path(home, private_directory(runtime_dir / "mcp-gateway"))


def remembered_file(home: Path, runtime_dir: Path) -> tuple[int, int] | None:
    """Which remembered handshake file is there now (inode, modification time); None: none."""
    path = remembered_path(the_socket(home, runtime_dir))
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    return (info.st_ino, info.st_mtime_ns)


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    [kilobytes] = [line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")]
    return int(kilobytes) / 1024


def what_the_daemon_says(home: Path, runtime_dir: Path) -> tuple[Answer, dict[str, Any]]:
    """The daemon's hello answer, and its own session's answer to `initialize`, asked as a front asks."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(SESSION_SECONDS)
        sock.connect(os.fspath(the_socket(home, runtime_dir)))
        sock.sendall(Hello.of_this_process(os.getcwd(), shared_environment(runtime_dir)).encode())
        reader = sock.makefile("rb")
        answer = Answer.decode(reader.readline())
        sock.sendall(INITIALIZE)
        return answer, cast(dict[str, Any], json.loads(reader.readline()))["result"]


async def test_a_front_with_its_daemon_running_answers_the_handshake_without_the_sdk_or_pydantic(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home = tmp_path / "home"
    await workspace(home)
    async with daemon_cleanup(runtime_dir), shared_session(home, runtime_dir) as first:
        await downstream_pid(first, "alpha")  # the daemon runs and serves
        async with raw_front(home, runtime_dir, traced=True) as process:
            front = TracedGateway(process)
            await front.stdin.send(INITIALIZE)
            initialized, imported = await front.answer(1)
            await front.stdin.send(INITIALIZED + TOOLS_LIST)
            listed, more = await front.answer(2)
            await front.stdin.send(ECHO)
            echoed, after = await front.answer(3)
            assert echoed["result"]["content"][0]["text"] == "front", "served by the daemon after the handshake"
            traced = imported + more + after
            assert importing(traced, "mcp_gateway.front.pipe"), traced  # the trace saw the front's own imports
            assert {name for name in HEAVY if importing(traced, name)} == set()
            assert initialized["result"]["instructions"] == first.instructions
            assert [tool["name"] for tool in listed["result"]["tools"]] == [
                tool.name for tool in (await first.list_tools()).tools
            ]
            await front.stdin.aclose()
            assert await front.rest() == [], "the daemon's answers to 1 and 2 were dropped, nothing on stderr"
            assert await process.wait() == 0


async def test_fronts_of_the_default_workspace_ask_platformdirs_where_it_is_once(
    tmp_path: Path, runtime_dir: Path
) -> None:
    """No `--home`: the config is where platformdirs says (here, as `XDG_CONFIG_HOME` and `XDG_CACHE_HOME` name
    one directory, a workspace like any other). The first front asks it; the next, with the same environment,
    finds the same daemon without importing platformdirs (13 ms of its start)."""
    base = tmp_path / "xdg"
    await workspace(base / "mcp-gateway")
    env = {"XDG_CONFIG_HOME": str(base), "XDG_CACHE_HOME": str(base)}
    async with daemon_cleanup(runtime_dir):
        for first in (True, False):
            async with raw_front(None, runtime_dir, env, traced=True) as process:
                front = TracedGateway(process)
                await front.stdin.send(INITIALIZE)
                initialized, imported = await front.answer(1)
                await front.stdin.send(INITIALIZED + TOOLS_LIST + ECHO)
                _, more = await front.answer(2)
                echoed, after = await front.answer(3)
                assert echoed["result"]["content"][0]["text"] == "front"
                assert "alpha" in initialized["result"]["instructions"]
                traced = imported + more + after
                assert importing(traced, "mcp_gateway.front.launch"), traced  # the trace saw the front's imports
                assert importing(traced, "platformdirs") is first
                await front.stdin.aclose()
                assert await process.wait() == 0
        assert len(daemon_pids(runtime_dir)) == 1


async def test_a_cold_front_answers_from_the_daemon_it_starts_and_says_what_that_daemons_session_says(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home = tmp_path / "home"
    await workspace(home)
    async with daemon_cleanup(runtime_dir), raw_front(home, runtime_dir) as process:
        front = RawGateway(process)
        with anyio.fail_after(SESSION_SECONDS):
            initialized = await front.call(
                "initialize",
                {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
            )
            await front.send({"method": "notifications/initialized"})
            listed = await front.call("tools/list", {})
            assert rss_mb(process.pid) <= THIN_FRONT_MB
            await front.send_line(ECHO.rstrip(b"\n"))
            echoed = await front.response(3)
            assert echoed["result"]["content"][0]["text"] == "front"
            assert len(daemon_pids(runtime_dir)) == 1
            answer, daemon_initialized = await anyio.to_thread.run_sync(what_the_daemon_says, home, runtime_dir)
        assert "alpha" in initialized["instructions"]
        assert initialized == daemon_initialized
        assert answer.handshake is not None
        assert answer.handshake.instructions == initialized["instructions"]
        assert answer.handshake.tools == listed["tools"]
        await front.close_stdin()
        assert await front.wait_exit(SESSION_SECONDS) == 0


async def test_a_cold_start_answers_from_the_handshake_the_last_made_while_what_it_was_made_from_is_unchanged(
    tmp_path: Path, runtime_dir: Path
) -> None:
    """The first cold front's daemon makes the handshake and remembers it; once that daemon has gone, the next
    cold front answers from it (the file untouched) and says what its daemon says. After the config is edited,
    the handshake is made again (a new file) and names the server added. No front ever loads the config."""
    home = tmp_path / "home"
    await workspace(home)
    settings = daemon_settings()
    async with daemon_cleanup(runtime_dir):
        for made, server in ((True, "alpha"), (False, "alpha"), (True, "beta")):
            if server == "beta":
                await refreshed_workspace(home, {"alpha": fake_server(name="alpha"), "beta": fake_server()}, settings)
            before = remembered_file(home, runtime_dir)
            async with raw_front(home, runtime_dir, traced=True) as process:
                front = TracedGateway(process)
                await front.stdin.send(INITIALIZE)
                initialized, imported = await front.answer(1)
                await front.stdin.send(INITIALIZED + TOOLS_LIST + ECHO)
                _, more = await front.answer(2)
                assert not importing(imported + more, "mcp_gateway.config")
                assert server in initialized["result"]["instructions"]
                echoed, _ = await front.answer(3)
                assert echoed["result"]["content"][0]["text"] == "front", "served by the daemon it started"
                _, daemon_initialized = await anyio.to_thread.run_sync(what_the_daemon_says, home, runtime_dir)
                assert initialized["result"] == daemon_initialized
                await front.stdin.aclose()
                assert await front.rest() == [], "nothing on stderr: the daemon's answers are the same"
                assert await process.wait() == 0
            await wait_for(lambda: daemon_pids(runtime_dir) == [], SESSION_SECONDS)
            assert (remembered_file(home, runtime_dir) != before) is made


async def test_a_call_and_an_answer_larger_than_the_socket_takes_at_once_cross_the_daemon_whole(
    tmp_path: Path, runtime_dir: Path
) -> None:
    """The request is judged in a worker thread (it is long), the answer sent partly by the worker that encoded
    it and the rest by the event loop (a Unix socket takes a few hundred kilobytes at once)."""
    home = tmp_path / "home"
    await workspace(home)
    large = "".join(f"{n:07d}," for n in range(LARGE_BYTES // 8))
    async with daemon_cleanup(runtime_dir), shared_session(home, runtime_dir) as client:
        with anyio.fail_after(SESSION_SECONDS):
            echoed = await execute(client, "alpha.echo", {"message": large})
            assert text_of(echoed) == large
            assert text_of(await execute(client, "alpha.echo", {"message": "after"})) == "after"


async def test_a_large_call_waits_for_a_daemon_slow_to_read_it_however_long(tmp_path: Path, runtime_dir: Path) -> None:
    """A paused daemon reads nothing for a few seconds (a loaded machine, a long collection): the front's send
    of a call larger than the socket holds waits for it, and the call is answered whole. The front polled the
    daemon's side with a one-second socket timeout, which bounded this send too: it was cut short, the call
    half sent and never answered."""
    home = tmp_path / "home"
    await workspace(home)
    large = "".join(f"{n:07d}," for n in range(LARGE_BYTES // 8))
    echoed: list[str] = []
    async with daemon_cleanup(runtime_dir), shared_session(home, runtime_dir) as client:
        with anyio.fail_after(SESSION_SECONDS):
            await execute(client, "alpha.echo", {"message": "warm"})
        [daemon] = daemon_pids(runtime_dir)

        async def large_call() -> None:
            echoed.append(text_of(await execute(client, "alpha.echo", {"message": large})))

        try:
            with anyio.fail_after(SESSION_SECONDS):
                async with anyio.create_task_group() as tg:
                    os.kill(daemon, signal.SIGSTOP)
                    tg.start_soon(large_call)
                    await anyio.sleep(3 * POLL_QUIET_SECONDS)  # well past the poll, well short of a wedge
                    os.kill(daemon, signal.SIGCONT)
        finally:
            os.kill(daemon, signal.SIGCONT)
        assert echoed == [large]
