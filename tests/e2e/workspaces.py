"""The workspaces of the end-to-end tests, in one place: a home whose config.json lists servers and settings,
one whose cache the real gateway has built, a config edited as an editor saves it, and the environment a client
starts a front in (its own runtime directory, so its shared daemon is the test's own).

Every e2e test sets up its workspace through these; `write_workspace` and `fake_server` are the shared test
helpers' (`gateway_testing`), named here too so that an e2e test finds all of it in one module.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
from collections.abc import AsyncGenerator, Generator, Mapping
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
from e2e_gateway import TIME_SERVER_BIN, client_environment, gateway_command, run_cli_async, wait_gone
from gateway_testing import fake_server, peer, write_workspace
from mcp import Client, StdioServerParameters

__all__ = [
    "DAEMON_GONE_SECONDS",
    "GRACE_SECONDS",
    "STANDALONE",
    "cached_everything",
    "daemon_cleanup",
    "daemon_pids",
    "daemon_settings",
    "edited_config",
    "everything_server",
    "fake_server",
    "refreshed_workspace",
    "save_config",
    "save_text",
    "shared_environment",
    "shared_session",
    "time_server",
    "write_workspace",
]

STANDALONE = {"shared": False}
"""A session of its own (a private daemon behind its front): what the client's signals then stop is everything."""
GRACE_SECONDS = 0.5
"""The shared daemon's grace in the daemon tests: it leaves a fraction of a second after its last session."""
DAEMON_GONE_SECONDS = 30.0
"""The daemon's grace, then its servers' stop (each well within its close budget), on a loaded machine."""


# Downstream servers.


def everything_server() -> dict[str, Any]:
    return {"command": str(peer("mcp-server-everything"))}


def time_server() -> dict[str, Any]:
    if not TIME_SERVER_BIN.exists():
        # mcp-server-time is a test extra of this package (pyproject.toml): missing means a broken install.
        raise AssertionError(f"{TIME_SERVER_BIN} is missing; install the test extras: pip install -e '.[test]'")
    return {"command": str(TIME_SERVER_BIN)}


# Workspaces.


def daemon_settings(**settings: Any) -> dict[str, Any]:
    """The daemon tests' settings: a short grace, no metadata check at start, and `settings` on top."""
    return {"daemonGraceSeconds": GRACE_SECONDS, "startupMetadataCheck": False, **settings}


async def refreshed_workspace(
    home: Path, servers: Mapping[str, Any], settings: Mapping[str, Any] | None = None
) -> None:
    """A workspace whose cache.json already lists every server (built by `mcp-gateway refresh`)."""
    write_workspace(home, servers, settings)
    done = await run_cli_async("refresh", home=home)
    assert done.returncode == 0, done.stderr


def cached_everything(home: Path, cache: Path) -> None:
    """A workspace holding server-everything with a valid cache.json (copied from the `everything_cache` fixture)."""
    write_workspace(home, {"everything": everything_server()})
    shutil.copyfile(cache, home / "cache.json")


def save_config(home: Path, servers: Mapping[str, Any], settings: Mapping[str, Any] | None = None) -> None:
    """Replace config.json as a careful editor does: the whole new file renamed over the old one."""
    document: dict[str, Any] = {"version": 1, "mcpServers": dict(servers)}
    if settings:
        document["settings"] = dict(settings)
    save_text(home, json.dumps(document, indent=2))


@contextmanager
def edited_config(home: Path) -> Generator[dict[str, Any]]:
    """The config.json of `home` (one an import wrote, say) as a document to change, written back on the way out."""
    config = home / "config.json"
    document = json.loads(config.read_text())
    yield document
    config.write_text(json.dumps(document, indent=2))


def save_text(home: Path, text: str) -> None:
    temporary = home / ".config.json.test-edit"
    temporary.write_text(text)
    os.replace(temporary, home / "config.json")


# A client's environment, with the test's own shared daemon.


def shared_environment(runtime_dir: Path) -> dict[str, str]:
    """A client's environment whose fronts share the daemon of `runtime_dir` (see the `runtime_dir` fixture)."""
    env = client_environment()
    env.pop("MCP_GATEWAY_STANDALONE", None)
    env["MCP_GATEWAY_RUNTIME_DIR"] = str(runtime_dir / "mcp-gateway")
    return env


@asynccontextmanager
async def shared_session(
    home: Path, runtime_dir: Path, *, cwd: Path | None = None, mode: str = "legacy", **client_options: Any
) -> AsyncGenerator[Client]:
    """An SDK client of a front started as a client starts it (in the project `cwd`, if given), behind the shared
    daemon of `runtime_dir`; `client_options` go to the `Client` (its `client_info`, an `elicitation_callback`)."""
    command, *args = gateway_command(home)
    env = shared_environment(runtime_dir)
    params = StdioServerParameters(command=command, args=args, env=env, cwd=None if cwd is None else str(cwd))
    async with Client(params, mode=mode, cache=None, **client_options) as client:  # pyright: ignore[reportArgumentType]
        yield client


def daemon_pids(runtime_dir: Path) -> list[int]:
    """The daemons whose socket is in `runtime_dir` (by their command line)."""
    pattern = f"daemon --socket {runtime_dir}"
    found = subprocess.run(["pgrep", "-f", pattern], check=False, capture_output=True, text=True)
    return [int(pid) for pid in found.stdout.split()]


@asynccontextmanager
async def daemon_cleanup(runtime_dir: Path) -> AsyncGenerator[None]:
    """Wait, at the end, for the daemon to leave by itself (its grace period); kill it if it does not."""
    try:
        yield
    finally:
        with anyio.CancelScope(shield=True):
            pids = daemon_pids(runtime_dir)
            try:
                await wait_gone(pids, DAEMON_GONE_SECONDS)
            finally:
                for pid in daemon_pids(runtime_dir):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
