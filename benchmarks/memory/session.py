"""One fresh gateway on a fresh workspace caching one configuration: its memory idle, after one search and
after the rest, and every process it started.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio
from mcp import Client

from benchmarks.bench_data import BenchServer
from benchmarks.bench_workspace import spawned, write_bench_workspace
from benchmarks.gateway_session import (
    GATEWAY_STDERR,
    GatewaySessionError,
    gateway_client,
    search,
    wait_for_gateway_pid,
)
from benchmarks.memory.processes import ProcessWatch, naming
from benchmarks.memory.readings import Memory, memory_of, settle
from benchmarks.procfs import command_line


@dataclass(frozen=True)
class Readings:
    idle: Memory
    settled_after: float | None
    """Seconds after `tools/list` until the gateway went quiet and `idle` was read; None: it never did."""
    one_search: Memory
    searches: Memory
    loading_after_idle: bool
    """The first search said a catalog was still loading: the idle reading was taken too early."""


@dataclass(frozen=True)
class Run:
    config: str
    readings: Readings
    spawn_log_entries: int
    descendants: dict[int, str]
    left_after: list[str]

    @property
    def processes(self) -> int:
        return self.spawn_log_entries + len(self.descendants) + len(self.left_after)


async def drive(client: Client, pid: int, queries: Sequence[str]) -> Readings:
    await client.list_tools()
    settled = await settle(pid)
    idle = memory_of(pid)
    first = await search(client, queries[0])
    one_search = memory_of(pid)
    for query in queries[1:]:
        await search(client, query)
    return Readings(idle, settled, one_search, memory_of(pid), first.still_loading)


async def run_gateway(config: str, servers: Sequence[BenchServer], home: Path, queries: Sequence[str]) -> Run:
    """A fresh gateway on a fresh workspace: idle, one search, then the rest of `queries`."""
    spawn_log = home / "spawns.log"
    write_bench_workspace(home, servers, spawn_log=spawn_log)
    watch = ProcessWatch()
    readings: Readings | None = None
    with (home / GATEWAY_STDERR).open("w") as errlog:
        async with gateway_client(home, errlog) as client, anyio.create_task_group() as watchers:
            pid = await wait_for_gateway_pid(home)
            watchers.start_soon(watch.watch, pid)
            readings = await drive(client, pid, queries)
            watchers.cancel_scope.cancel()
    if readings is None:
        raise GatewaySessionError(f"the session with the gateway serving {home} ended early")
    # The client has left and the gateway has exited: anything still naming the workspace outlived it.
    left = sorted(naming(str(home)))
    return Run(
        config=config,
        readings=readings,
        spawn_log_entries=len(spawned(spawn_log)),
        descendants=watch.seen,
        left_after=[f"pid {pid}: {' '.join(command_line(pid)).strip()}" for pid in left],
    )
