"""The shared daemon, end to end: real `mcp-gateway` fronts started as a client starts them, one real daemon
behind them, real fake servers behind it.

Every test gets its own runtime directory (a short one: a Unix socket path is at most 104 bytes) and a grace
period of a fraction of a second, and waits for its daemon to be gone before it ends.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from e2e_gateway import (
    SESSION_SECONDS,
    downstream_pid,
    execute,
    gateway_command,
    is_alive,
    text_of,
    wait_for,
    wait_gone,
)
from mcp.shared.exceptions import MCPError
from workspaces import (
    daemon_cleanup,
    daemon_pids,
    daemon_settings,
    fake_server,
    shared_environment,
    shared_session,
    write_workspace,
)

pytestmark = pytest.mark.anyio

SERVERS = ("alpha", "beta", "gamma")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    servers = {name: fake_server(name=name, cancel_log=str(tmp_path / f"{name}.cancelled")) for name in SERVERS}
    write_workspace(tmp_path / "home", servers, daemon_settings())
    return tmp_path / "home"


class Together:
    """Sessions that leave only once all have arrived: a daemon whose sessions overlap never leaves between."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.arrived = 0
        self.all_here = anyio.Event()
        self.daemons: list[int] = []

    async def arrive(self, runtime_dir: Path) -> None:
        self.arrived += 1
        if self.arrived == self.count:
            self.daemons = daemon_pids(runtime_dir)
            self.all_here.set()
        await self.all_here.wait()


async def test_concurrent_sessions_share_one_daemon_and_one_process_per_server(home: Path, runtime_dir: Path) -> None:
    pids: dict[str, set[int]] = {name: set() for name in SERVERS}
    together = Together(8)

    async def one_session() -> None:
        async with shared_session(home, runtime_dir) as client:
            for name in SERVERS:
                pids[name].add(await downstream_pid(client, name))
            echoed = await execute(client, "alpha.echo", {"message": "mine"})
            assert text_of(echoed) == "mine"
            await together.arrive(runtime_dir)

    async with daemon_cleanup(runtime_dir):
        with anyio.fail_after(SESSION_SECONDS * 2):
            async with anyio.create_task_group() as tg:
                for _ in range(together.count):
                    tg.start_soon(one_session)
        assert {name: len(found) for name, found in pids.items()} == dict.fromkeys(SERVERS, 1)
        assert len(together.daemons) == 1
    assert not any(is_alive(pid) for found in pids.values() for pid in found)


async def test_twenty_fronts_started_at_once_start_one_daemon(home: Path, runtime_dir: Path) -> None:
    together = Together(20)

    async def one_session() -> None:
        async with shared_session(home, runtime_dir) as client:
            assert len((await client.list_tools()).tools) == 4
            await together.arrive(runtime_dir)

    async with daemon_cleanup(runtime_dir):
        with anyio.fail_after(SESSION_SECONDS * 2):
            async with anyio.create_task_group() as tg:
                for _ in range(together.count):
                    tg.start_soon(one_session)
        assert len(together.daemons) == 1


async def test_a_daemon_killed_mid_call_fails_that_call_clearly_and_the_next_call_works(
    home: Path, runtime_dir: Path
) -> None:
    async with daemon_cleanup(runtime_dir), shared_session(home, runtime_dir) as client:
        first = await downstream_pid(client, "alpha")
        [daemon] = daemon_pids(runtime_dir)
        failure: list[MCPError] = []

        async def slow_call() -> None:
            try:
                await execute(client, "alpha.sleep", {"seconds": 60})
            except MCPError as error:
                failure.append(error)

        with anyio.fail_after(SESSION_SECONDS):
            async with anyio.create_task_group() as tg:
                tg.start_soon(slow_call)
                await anyio.sleep(0.5)  # the call is at the daemon; when exactly does not matter
                os.kill(daemon, signal.SIGKILL)
            assert failure, "the call in flight when the daemon died did not fail"
            assert "daemon stopped before answering" in str(failure[0])
            second = await downstream_pid(client, "alpha")
        assert second != first
        await wait_gone([first])  # the lost daemon's server: gone, not orphaned
        assert daemon_pids(runtime_dir) != [daemon]


async def test_a_killed_front_cancels_its_own_call_only(home: Path, runtime_dir: Path, tmp_path: Path) -> None:
    cancelled = tmp_path / "alpha.cancelled"
    async with daemon_cleanup(runtime_dir), shared_session(home, runtime_dir) as staying:
        await downstream_pid(staying, "alpha")
        command, *args = gateway_command(home)
        front = await anyio.open_process(
            [command, *args], env=shared_environment(runtime_dir), stderr=subprocess.DEVNULL
        )
        assert front.stdin is not None
        assert front.stdout is not None
        await front.stdin.send(
            b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
            b'"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
            b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
            b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_tool","_meta":'
            b'{"progressToken":"p"},"arguments":{"tool":"alpha.progress","arguments":{"steps":60,"delay":1}}}}\n'
        )
        with anyio.fail_after(SESSION_SECONDS):
            output = BufferedByteReceiveStream(front.stdout)
            while b"notifications/progress" not in await output.receive_until(b"\n", 1 << 20):
                pass  # the call runs at the server once its first progress comes back through the front
            async with anyio.create_task_group() as tg:

                async def staying_call() -> None:
                    result = await execute(staying, "alpha.sleep", {"seconds": 2})
                    assert text_of(result) == "slept 2"

                tg.start_soon(staying_call)
                front.kill()
                await front.wait()
                await wait_for(lambda: cancelled.exists() and cancelled.read_text().strip() != "", 15)
        assert len(cancelled.read_text().split()) == 1  # the killed front's call, not the staying one's


async def test_another_user_is_refused(home: Path, runtime_dir: Path) -> None:
    setpriv = shutil.which("setpriv")
    if os.getuid() != 0 or setpriv is None:
        pytest.fail("this test drops privileges with setpriv as root; run it as root (CI does)")
    async with daemon_cleanup(runtime_dir), shared_session(home, runtime_dir) as client:
        await downstream_pid(client, "alpha")  # served by the daemon (`tools/list` may be answered early, before it)
        [socket_file] = list((runtime_dir / "mcp-gateway").glob("*.sock"))
        for directory in (runtime_dir, runtime_dir / "mcp-gateway"):
            directory.chmod(0o711)  # reachable: only the daemon's own check stands in the way
        socket_file.chmod(0o777)
        probe = (
            "import socket\n"
            "s = socket.socket(socket.AF_UNIX)\n"
            f"s.connect({str(socket_file)!r})\n"
            "try:\n"
            "    s.sendall(b'{}\\n')\n"
            "    print('answered' if s.recv(4096) else 'closed')\n"
            "except (BrokenPipeError, ConnectionResetError):\n"
            "    print('closed')\n"
        )
        nobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", probe]
        result = await anyio.run_process(nobody, check=False)
        assert result.returncode == 0, result.stderr.decode()
        assert result.stdout.decode().strip() == "closed"  # connected, then closed without a word
        assert len((await client.list_tools()).tools) == 4
        await wait_for(lambda: len(daemon_pids(runtime_dir)) == 1, 5)
