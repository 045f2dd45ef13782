"""One fresh session on a fresh workspace caching one configuration, in a runtime of its own (so a shared
daemon starts cold for it, as for a user's first session): the memory of its front and its daemon idle, after
one search and after the rest, every process it started, and whether everything left once it ended (the shared
daemon after its grace).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio
from mcp import Client

from benchmarks.bench_data import BenchServer
from benchmarks.bench_workspace import spawned, write_bench_workspace
from benchmarks.gateway_runtime import SHARED, Mode, private_runtime, wait_until_gone
from benchmarks.gateway_session import (
    GATEWAY_STDERR,
    GatewaySessionError,
    SessionProcesses,
    gateway_client,
    search,
    wait_for_session,
)
from benchmarks.memory.processes import ProcessWatch, naming
from benchmarks.memory.readings import Memory, memory_of, settle
from benchmarks.procfs import command_line

DAEMON_GRACE_SECONDS = 1.0
"""The workspaces' `daemonGraceSeconds`: the shared daemon leaves this long after the session, and the
processes left behind are counted after that."""
LEAVE_SECONDS = DAEMON_GRACE_SECONDS + 20.0
"""Bound for the session's processes to leave by themselves (a daemon stops its servers) on a loaded machine."""


@dataclass(frozen=True)
class Reading:
    """One moment of a session: its front's memory and its daemon's."""

    front: Memory
    daemon: Memory

    @property
    def total(self) -> Memory:
        """What the user's machine holds for this session."""
        return self.front.plus(self.daemon)


def reading(session: SessionProcesses) -> Reading:
    return Reading(memory_of(session.front), memory_of(session.daemon))


@dataclass(frozen=True)
class Readings:
    idle: Reading
    settled_after: float | None
    """Seconds after `tools/list` until the session went quiet and `idle` was read; None: it never did."""
    one_search: Reading
    searches: Reading
    loading_after_idle: bool
    """The first search said a catalog was still loading: the idle reading was taken too early."""


@dataclass(frozen=True)
class Run:
    config: str
    mode: Mode
    readings: Readings
    spawn_log_entries: int
    descendants: dict[int, str]
    left_after: list[str]

    @property
    def processes(self) -> int:
        """Processes started by this search-only session, or left behind by it (there should be none)."""
        return self.spawn_log_entries + len(self.descendants) + len(self.left_after)


async def drive(client: Client, session: SessionProcesses, queries: Sequence[str]) -> Readings:
    await client.list_tools()
    settled = await settle(session.pids)
    idle = reading(session)
    first = await search(client, queries[0])
    one_search = reading(session)
    for query in queries[1:]:
        await search(client, query)
    return Readings(idle, settled, one_search, reading(session), first.still_loading)


async def run_gateway(
    config: str, servers: Sequence[BenchServer], home: Path, queries: Sequence[str], mode: Mode = SHARED
) -> Run:
    """A fresh session on a fresh workspace: idle, one search, then the rest of `queries`."""
    spawn_log = home / "spawns.log"
    write_bench_workspace(home, servers, spawn_log=spawn_log, settings={"daemonGraceSeconds": DAEMON_GRACE_SECONDS})
    watch = ProcessWatch()
    readings: Readings | None = None
    session: SessionProcesses | None = None
    async with private_runtime() as runtime:
        with (home / GATEWAY_STDERR).open("w") as errlog:
            async with gateway_client(home, errlog, runtime, mode) as client, anyio.create_task_group() as watchers:
                session = await wait_for_session(home, runtime, mode)
                watchers.start_soon(watch.watch, session)
                readings = await drive(client, session, queries)
                watchers.cancel_scope.cancel()
        # The client has left: the front exits, a private daemon with it, the shared one after its grace.
        await wait_until_gone(() if session is None else session.pids, LEAVE_SECONDS)
        left = sorted(naming(str(home)))  # anything still naming the workspace outlived the session
        described = [f"pid {pid}: {' '.join(command_line(pid)).strip()}" for pid in left]
    if readings is None:
        raise GatewaySessionError(f"the session with the gateway serving {home} ended early")
    return Run(
        config=config,
        mode=mode,
        readings=readings,
        spawn_log_entries=len(spawned(spawn_log)),
        descendants=watch.seen,
        left_after=described,
    )
