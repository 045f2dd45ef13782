"""One client session, as a user lives it: servers in the client's config, `mcp-gateway import`, a prompt.

`moved_in(client, place, servers, api_url)` writes the user's servers into the client's own config in the
scratch HOME and runs the real `mcp-gateway import --client <c> --write-client-config` (and, when asked,
the `refresh` its output recommends). `run_client(...)` runs one prompt through the real CLI, waits for it
to exit, then for every process it started to be gone: a process still there after LEFTOVER_SECONDS is
killed (it carries this session's workspace or session id, so it is provably ours) and reported.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio
import psutil
from e2e_gateway import GATEWAY_BIN, gateway_program
from workspaces import GRACE_SECONDS, edited_config

from clients.clis import ClientCli, UserServer
from clients.mock_api import MockApi
from clients.places import Place, base_environment, merged

CLIENT_SECONDS = 180.0
"""Upper bound for one whole client session: the CLI's start, five model turns with four gateway calls
(one wakes server-everything through npm's shim), and its exit. The slowest client here (OpenCode) takes
about 10 s alone on a 2-core machine; the bound is for a machine busy with other tests."""
CLI_SECONDS = 60.0
"""Upper bound for one `mcp-gateway import` or `refresh` (a refresh starts server-everything once)."""
LEFTOVER_SECONDS = 15.0
"""How long the processes a client started get to be gone after it exited. The gateway stops its servers
within about 2.5 s of its client closing the connection (docs/tools-and-servers.md: hurried graces of 0.75 s);
the rest is slack for a busy machine."""
POLL_SECONDS = 0.1
WORKSPACE_VARIABLE = "MCP_GATEWAY_HOME"


@dataclass(frozen=True)
class ClientRun:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    started: float
    """When the client was started (time.monotonic())."""
    leftovers: list[str]
    """Processes of this session still running LEFTOVER_SECONDS after the client exited (now killed)."""

    def output(self) -> str:
        return f"exit {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


async def gateway_cli(place: Place, env: Mapping[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`mcp-gateway --home <workspace> ARGS` run as the user would, in the project directory."""
    command = [*gateway_program(), "--home", str(place.workspace), *args]
    with anyio.fail_after(CLI_SECONDS):
        done = await anyio.run_process(command, env=dict(env), cwd=place.project, check=False)
    return subprocess.CompletedProcess(command, done.returncode, done.stdout.decode(), done.stderr.decode())


async def moved_in(
    client: ClientCli, place: Place, servers: Sequence[UserServer], api_url: str, proxy_url: str, *, refresh: bool
) -> str:
    """The user's servers in the client, then imported into the gateway with the client rewritten to use it.

    Returns the import's output. With `refresh`, the catalog is built as the import's output advises.
    """
    client.write_config(place.make(), servers, api_url)
    env = base_environment(place, proxy_url)
    done = await gateway_cli(place, env, "import", "--client", client.name, "--write-client-config")
    assert done.returncode == 0, done.stdout + done.stderr
    # `--launcher auto` writes this checkout's gateway (it was not installed from the package index): the
    # gateway under test is the one every client starts.
    assert client.gateway_entry(place).get("command") in (str(GATEWAY_BIN), [str(GATEWAY_BIN)]), done.stdout
    shorten_the_daemons_grace(place)
    if refresh:
        refreshed = await gateway_cli(place, env, "refresh")
        assert refreshed.returncode == 0, refreshed.stdout + refreshed.stderr
    return done.stdout


def shorten_the_daemons_grace(place: Place) -> None:
    """Every client here starts the gateway as users get it: a session front of the workspace's shared daemon.
    The daemon outlives a session by its grace (30 s by default) for the next one to find it: here it leaves
    at once, so that everything a client started is gone within LEFTOVER_SECONDS of its exit."""
    with edited_config(place.workspace) as document:
        document.setdefault("settings", {})["daemonGraceSeconds"] = GRACE_SECONDS


async def run_client(
    client: ClientCli,
    place: Place,
    argv: Sequence[str],
    mock: MockApi,
    *,
    label: str = "run",
    extra_env: Mapping[str, str] | None = None,
    daemon_stays: bool = False,
) -> ClientRun:
    """Run the client CLI (`argv`) against `mock` to its exit, then wait for everything it started to be gone;
    with `daemon_stays`, everything but the shared daemon it found or started (in a session of its own) and the
    servers that daemon runs, which are there for the next session. `extra_env`: as the user's shell has it."""
    env = merged(base_environment(place, mock.proxy_url), client.environment(place, mock.base_url), extra_env or {})
    stdout_path, stderr_path = (
        place.logs / f"{client.name}-{label}.stdout",
        place.logs / f"{client.name}-{label}.stderr",
    )
    started = time.monotonic()
    with stdout_path.open("wb") as stdout, stderr_path.open("wb") as stderr:
        process = await anyio.open_process(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            cwd=place.project,
            env=env,
            start_new_session=True,
        )
        session = process.pid
        try:
            with anyio.fail_after(CLIENT_SECONDS):
                returncode = await process.wait()
        except TimeoutError:
            _kill_session(session)
            with anyio.CancelScope(shield=True), anyio.move_on_after(LEFTOVER_SECONDS):
                await process.wait()
            raise AssertionError(
                f"{client.name} did not exit within {CLIENT_SECONDS} s:\n{_read(stdout_path)}\n{_read(stderr_path)}"
            ) from None
        finally:
            await process.aclose()
    seconds = time.monotonic() - started
    leftovers = await _leftovers(place, session, daemon_stays=daemon_stays)
    return ClientRun(returncode, _read(stdout_path), _read(stderr_path), seconds, started, leftovers)


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


def _ours(place: Place, session: int, *, daemon_stays: bool = False) -> list[psutil.Process]:
    """Running processes that belong to this session: in the client's session, or (unless the daemon stays)
    using its workspace."""
    workspace = str(place.workspace)
    found: list[psutil.Process] = []
    for process in psutil.process_iter():
        if process.pid == os.getpid():
            continue
        try:
            if process.status() == psutil.STATUS_ZOMBIE:
                continue
            if os.getsid(process.pid) == session or (
                not daemon_stays and process.environ().get(WORKSPACE_VARIABLE) == workspace
            ):
                found.append(process)
        except (psutil.Error, OSError):
            continue  # gone, or another user's: not ours
    return found


async def _leftovers(place: Place, session: int, *, daemon_stays: bool = False) -> list[str]:
    """Wait for this session's processes to be gone; kill and describe those still there after the bound."""
    remaining: list[psutil.Process] = []
    with anyio.move_on_after(LEFTOVER_SECONDS):
        while True:
            # Reading every process's environment is a scan of /proc: a worker thread's job, not the loop's.
            remaining = await anyio.to_thread.run_sync(
                functools.partial(_ours, place, session, daemon_stays=daemon_stays)
            )
            if not remaining:
                return []
            await anyio.sleep(POLL_SECONDS)
    described: list[str] = []
    for process in remaining:
        with contextlib.suppress(psutil.Error):
            described.append(f"pid {process.pid}: {' '.join(process.cmdline())}")
            process.kill()  # psutil checks the pid still names the same process
    return described


def _kill_session(session: int) -> None:
    """SIGKILL the process group of a client that overran: we made it (start_new_session), so it is ours."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(session, signal.SIGKILL)
