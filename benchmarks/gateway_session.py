"""The real gateway as a benchmark drives it: a fresh `mcp-gateway --home HOME` process over stdio (the session
front a client starts), with the official SDK client, the gateway's stderr kept out of the report, in a
runtime directory of the benchmark's own (`gateway_runtime`): by default through the workspace's shared daemon,
as a user has it, or standalone (a private daemon), when asked. Benchmarks that also talk to a server directly
open that session the same way (`stdio_session`), so both sides of a comparison use one client.

The SDK does not expose the process it started, so the front is found as this process's child whose command
line serves `home`, and its daemon by the socket it names (`SessionProcesses`).
"""

from __future__ import annotations

import compileall
import json
import os
import subprocess
import sys
from collections.abc import AsyncGenerator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, cast

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from benchmarks.gateway_runtime import SHARED, Mode, Runtime, private_daemon, private_runtime
from benchmarks.repo_paths import ROOT

GATEWAY_BIN = Path(sys.executable).parent / "mcp-gateway"
GATEWAY_STDERR = "gateway.stderr.log"
"""Where in its workspace a benchmark keeps the gateway's stderr, out of the report."""
STILL_LOADING = "Still loading"
"""How a search's notes begin to say that some server's tools are still being fetched."""

PID_WAIT_SECONDS = 10.0
REFRESH_SECONDS = 120.0
LOADING_SECONDS = 30.0
"""Upper bound for the background startup check to finish fetching catalogs."""
POLL_SECONDS = 0.05


class GatewaySessionError(Exception):
    """The gateway could not be driven as expected (no process found, a catalog that never loads)."""


def leaf_errors(error: BaseException) -> list[BaseException]:
    """The errors in `error`, however deep in the exception groups task groups raise."""
    if isinstance(error, BaseExceptionGroup):
        group = cast(BaseExceptionGroup[BaseException], error)
        return [found for inner in group.exceptions for found in leaf_errors(inner)]
    return [error]


def could_not_run(error: BaseException, *kinds: type[Exception]) -> str | None:
    """Why a benchmark could not run, when `error` holds nothing but GatewaySessionErrors (and `kinds`); None
    for anything else, a bug to be raised as it is."""
    leaves = leaf_errors(error)
    expected = all(isinstance(leaf, (GatewaySessionError, *kinds)) for leaf in leaves)
    return "; ".join(map(str, leaves)) if expected else None


def compile_package() -> None:
    """Compile the gateway's modules to bytecode, as installing it does (pip compiles every module it installs).

    A checkout run under `PYTHONDONTWRITEBYTECODE` (as this project's machines are) never writes bytecode, so
    every process would compile each module edited since the last write again: a start time of a checkout, not
    of what a user runs, and one that would fall on whichever mode imports more of the package.
    """
    compileall.compile_dir(str(ROOT / "mcp_gateway"), quiet=1)


def gateway_command(home: Path, program: Sequence[str] | None = None) -> list[str]:
    """`program` (default: `gateway_program()`) serving `home`."""
    return [*(gateway_program() if program is None else program), "--home", str(home)]


def gateway_program() -> list[str]:
    """The installed console script when present, else the module: the gateway as a client starts it."""
    return [str(GATEWAY_BIN)] if GATEWAY_BIN.exists() else [sys.executable, "-m", "mcp_gateway"]


def gateway_environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("MCP_GATEWAY_HOME", None)  # it would compete with --home
    return env


def refresh_catalog(home: Path) -> None:
    """`mcp-gateway refresh`: a valid cache.json, so the gateway serving `home` starts no server until a call."""
    done = subprocess.run(
        [*gateway_command(home), "refresh"],
        capture_output=True,
        text=True,
        timeout=REFRESH_SECONDS,
        env=gateway_environment(),
        check=False,
    )
    if done.returncode != 0:
        raise GatewaySessionError(f"mcp-gateway refresh failed ({done.returncode}):\n{done.stdout}{done.stderr}")


def gateway_parameters(
    home: Path, runtime: Runtime, mode: Mode = SHARED, program: Sequence[str] | None = None
) -> StdioServerParameters:
    """How the SDK client starts a fresh gateway (a session front) serving `home` in `runtime`, in `mode`
    (see `gateway_command`)."""
    command, *args = gateway_command(home, program)
    return StdioServerParameters(command=command, args=args, env=runtime.environment(gateway_environment(), mode))


@asynccontextmanager
async def stdio_session(params: StdioServerParameters, errlog: TextIO) -> AsyncGenerator[Client]:
    """An SDK client over stdio; the server's stderr goes to `errlog`, never into the report."""
    # stdio_client(params) is what Client(params) builds; only the server's stderr is redirected.
    async with Client(stdio_client(params, errlog=errlog), mode="legacy", cache=None) as client:
        yield client


@asynccontextmanager
async def gateway_client(
    home: Path, errlog: TextIO, runtime: Runtime | None = None, mode: Mode = SHARED
) -> AsyncGenerator[Client]:
    """An SDK client connected to a fresh gateway serving `home`; its stderr goes to `errlog`. In `runtime`, with
    whatever daemon runs there; without one, in a runtime of its own, whose daemon is stopped (with its servers)
    when the session ends: what the session started has gone by the time this returns."""
    if runtime is not None:
        async with stdio_session(gateway_parameters(home, runtime, mode), errlog) as client:
            yield client
        return
    async with private_runtime() as own, stdio_session(gateway_parameters(home, own, mode), errlog) as client:
        yield client


# Finding the gateway's processes.


@dataclass(frozen=True)
class SessionProcesses:
    """One session's processes: its front, and the daemon serving it (the workspace's shared one, or private)."""

    front: int
    daemon: int

    @property
    def pids(self) -> tuple[int, int]:
        return (self.front, self.daemon)


def find_fronts(home: Path, runtime: Runtime, mode: Mode) -> list[int]:
    """Our child processes that are fronts of `runtime` serving `home` in `mode`."""
    return [pid for pid, front in runtime.fronts(mode).items() if front.home == str(home)]


def find_session(home: Path, runtime: Runtime, mode: Mode) -> SessionProcesses | None:
    """A session serving `home` in `mode` (the first found, when there are several)."""
    for front in find_fronts(home, runtime, mode):
        daemon = runtime.shared_daemon(home) if mode == SHARED else private_daemon(front)
        if daemon is not None:
            return SessionProcesses(front, daemon)
    return None


async def wait_for_session(home: Path, runtime: Runtime, mode: Mode = SHARED) -> SessionProcesses:
    """The front and the daemon of the session serving `home` just opened (the daemon answered it already)."""
    with anyio.move_on_after(PID_WAIT_SECONDS):
        while True:
            found = find_session(home, runtime, mode)
            if found is not None:
                return found
            await anyio.sleep(POLL_SECONDS)
    raise GatewaySessionError(f"no {mode} front and daemon serving {home} found within {PID_WAIT_SECONDS:g} s")


# Searching.


@dataclass(frozen=True)
class SearchResponse:
    """One `search_tools` result: the text the model reads (one compact JSON item) and what it says."""

    text: str
    is_error: bool
    hits: int
    notes: tuple[str, ...]

    @property
    def still_loading(self) -> bool:
        return any(note.startswith(STILL_LOADING) for note in self.notes)


def text_of(result: types.CallToolResult) -> str:
    """The text a tool result carries, its text items joined by newlines."""
    return "\n".join(item.text for item in result.content if isinstance(item, types.TextContent))


async def search(client: Client, query: str) -> SearchResponse:
    """`search_tools` with the query alone: the server hint and the limit stay at their defaults."""
    result = await client.call_tool("search_tools", {"query": query})
    text = text_of(result)
    try:
        payload = cast(dict[str, Any], json.loads(text))
    except json.JSONDecodeError:
        payload = {}  # an error sentence rather than a payload: it still counts as read
    hits = len(cast(list[Any], payload.get("results", [])))
    notes = tuple(str(note) for note in cast(list[Any], payload.get("notes", [])))
    return SearchResponse(text, bool(result.is_error), hits, notes)


async def wait_until_loaded(client: Client, query: str) -> SearchResponse:
    """Search until no note says a catalog is still loading (the background startup check is over)."""
    with anyio.move_on_after(LOADING_SECONDS):
        while True:
            response = await search(client, query)
            if not response.still_loading:
                return response
            await anyio.sleep(POLL_SECONDS)
    raise GatewaySessionError(f"catalogs still loading after {LOADING_SECONDS:g} s")
