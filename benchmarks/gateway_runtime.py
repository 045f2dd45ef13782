"""A private runtime directory for a benchmark's gateways, and the gateway processes that meet in it.

Fronts find their workspace's shared daemon in a runtime directory (`MCP_GATEWAY_RUNTIME_DIR`, else the user's
own). A benchmark gives every gateway it starts one of its own: it never meets another program's daemons (an
agent's, a user's), and every daemon it started can be found, by the socket it names, and stopped. A runtime
is left only once none of its daemons runs: each is asked to stop (SIGTERM, its orderly stop: it stops its
servers), and what has not gone within a bound is killed with every process it had started.

Where processes are found: fronts are this process's children (the SDK or the benchmark starts them) whose
environment names the runtime; a shared daemon names its socket (in the runtime) on its command line; a private
daemon is its front's child, naming the shared socket it remembers its handshake beside.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import AsyncGenerator, Collection
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import anyio

from benchmarks.gateway_processes import FRONT, PRIVATE_DAEMON, SHARED_DAEMON, GatewayProcess, describe
from benchmarks.procfs import children, command_line, descendants, environment, is_alive, process_parents
from mcp_gateway.front.launch import STANDALONE_ENV
from mcp_gateway.front.rendezvous import RUNTIME_DIR_ENV, socket_path

Mode = Literal["shared", "standalone"]
SHARED: Mode = "shared"
"""What a user gets by default: a front per session, one shared daemon per workspace behind them."""
STANDALONE: Mode = "standalone"
"""`MCP_GATEWAY_STANDALONE=1`: a front and a private daemon per session, gone with it."""
MODES: tuple[Mode, ...] = (SHARED, STANDALONE)


def chosen_modes(names: Collection[str]) -> tuple[Mode, ...]:
    """The modes named, in the order of MODES (as a command line's choices give them)."""
    return tuple(mode for mode in MODES if mode in names)


STOP_SECONDS = 30.0
"""Bound on a daemon's orderly stop (its servers' included) on a loaded machine, before it is killed."""
POLL_SECONDS = 0.05
SHORT_PREFIX = "mgw-"
"""Under /tmp, short: a socket path is at most 104 bytes."""


@dataclass(frozen=True)
class Runtime:
    """One benchmark's runtime directory (what `MCP_GATEWAY_RUNTIME_DIR` names is `directory`)."""

    root: Path

    @property
    def directory(self) -> Path:
        return self.root / "mcp-gateway"

    def environment(self, base: dict[str, str], mode: Mode) -> dict[str, str]:
        """`base` for a gateway of this runtime, serving in `mode`."""
        env = dict(base)
        env[RUNTIME_DIR_ENV] = str(self.directory)
        if mode == STANDALONE:
            env[STANDALONE_ENV] = "1"
        else:
            env.pop(STANDALONE_ENV, None)
        return env

    def socket(self, home: Path) -> Path:
        """Where the shared daemon of the workspace `home` listens: the gateway's own rule."""
        return socket_path(home.absolute(), self.directory)

    def owns(self, process: GatewayProcess) -> bool:
        return process.socket is not None and Path(process.socket).parent == self.directory

    def daemons(self, role: str | None = None) -> dict[int, GatewayProcess]:
        """Every live daemon of this runtime (of `role` only, if given)."""
        found: dict[int, GatewayProcess] = {}
        for pid in process_parents():
            process = describe(command_line(pid))
            if process is None or process.role == FRONT or not self.owns(process):
                continue
            if role is None or process.role == role:
                found[pid] = process
        return found

    def shared_daemon(self, home: Path) -> int | None:
        """The shared daemon serving `home`, if one runs: by its socket, or by its `--home` (a gateway of another
        version names its socket otherwise)."""
        wanted = str(self.socket(home))
        for pid, daemon in self.daemons(SHARED_DAEMON).items():
            if daemon.socket == wanted or (daemon.home is not None and Path(daemon.home) == home):
                return pid
        return None

    def fronts(self, mode: Mode | None = None) -> dict[int, GatewayProcess]:
        """This process's children that are fronts of this runtime (serving in `mode` only, if given)."""
        found: dict[int, GatewayProcess] = {}
        for pid in children(os.getpid()):
            process = describe(command_line(pid))
            if process is None or process.role != FRONT:
                continue
            env = _environment(pid)
            if env.get(RUNTIME_DIR_ENV) == str(self.directory) and mode in (None, _mode_of(env)):
                found[pid] = process
        return found


def _mode_of(env: dict[str, str]) -> Mode:
    """How a front of this runtime serves, as its environment asks (`launch.sharing_allowed`)."""
    return SHARED if env.get(STANDALONE_ENV, "") in ("", "0") else STANDALONE


def _environment(pid: int) -> dict[str, str]:
    """The process's environment; empty once it is gone."""
    try:
        raw = environment(pid)
    except OSError:
        return {}
    pairs = (entry.decode(errors="replace").partition("=") for entry in raw.split(b"\0") if entry)
    return {name: value for name, _, value in pairs}


def private_daemon(front: int) -> int | None:
    """The private daemon a standalone front started."""
    return next((pid for pid in children(front) if _role(pid) == PRIVATE_DAEMON), None)


def _role(pid: int) -> str | None:
    process = describe(command_line(pid))
    return None if process is None else process.role


async def wait_until_gone(pids: Collection[int], seconds: float) -> set[int]:
    """Poll until none of `pids` lives, at most `seconds`; those still alive then."""
    with anyio.move_on_after(seconds):
        # Polled: another's process has no event to wait on, /proc is all there is.
        while any(is_alive(pid) for pid in pids):  # noqa: ASYNC110
            await anyio.sleep(POLL_SECONDS)
    return {pid for pid in pids if is_alive(pid)}


async def stop(pids: Collection[int], seconds: float = STOP_SECONDS) -> set[int]:
    """Ask each of `pids` to stop (SIGTERM) and wait for it and everything it had started to go; kill what has
    not gone within `seconds`. The pids that had to be killed (none, when every stop was orderly)."""
    started = {pid for root in pids for pid in descendants(root)}
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    left = await wait_until_gone({*pids, *started}, seconds)
    for pid in left:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    await wait_until_gone(left, seconds)
    return left


async def stop_shared_daemon(runtime: Runtime, home: Path, seconds: float = STOP_SECONDS) -> set[int]:
    """Stop the shared daemon of `home`, if one runs (see `stop`): the next session of `home` starts one cold."""
    daemon = runtime.shared_daemon(home)
    return set() if daemon is None else await stop([daemon], seconds)


async def stop_daemons(runtime: Runtime, seconds: float = STOP_SECONDS) -> set[int]:
    """Stop every daemon of `runtime` (see `stop`)."""
    return await stop(runtime.daemons(), seconds)


@asynccontextmanager
async def private_runtime() -> AsyncGenerator[Runtime]:
    """A fresh runtime directory, removed once every daemon of it has been stopped."""
    runtime = Runtime(Path(tempfile.mkdtemp(prefix=SHORT_PREFIX, dir="/tmp")))
    try:
        yield runtime
    finally:
        with anyio.CancelScope(shield=True):
            await stop_daemons(runtime)
        shutil.rmtree(runtime.root, ignore_errors=True)
