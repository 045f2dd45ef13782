"""What the pool costs: next to nothing for a server that is not running, and an idle timer per connection.

A user with hundreds of configured servers runs a handful: the idle gateway must not hold a task (and its
stack and cancel scopes), nor a supervisor, per configured server. In-process, so tasks and bytes can be
counted.
"""

from __future__ import annotations

import gc
import logging
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest
from anyio import TaskInfo
from gateway_testing import load, write_workspace
from inprocess_fakes import FakeDownstream, InProcessConnector

from mcp_gateway.downstream.pool import Pool, State
from mcp_gateway.service.gateway import Gateway

pytestmark = pytest.mark.anyio

MANY_SERVERS = 200
BYTES_PER_UNUSED_SERVER = 256
"""A supervisor made up front for every configured server cost about 2,300 bytes each."""
IDLE_MINUTES = 0.03
"""1.8 s: long enough that a loaded machine checks the connection before its timer stops it (0.6 s was not)."""
IDLE_TIMER = "the idle timer of 'fake'"
SETTLE_SECONDS = 10.0


async def tasks_of_a_gateway_with(tmp_path: Path, servers: int) -> int:
    """How many tasks run inside an idle gateway configured with `servers` servers, none of them started."""
    workspace = write_workspace(
        tmp_path / str(servers), {f"s{index}": {"command": "never-run"} for index in range(servers)}
    )
    outside = len(anyio.get_running_tasks())
    async with Gateway(workspace, load(workspace), connector=InProcessConnector()):
        await anyio.lowlevel.checkpoint()
        return len(anyio.get_running_tasks()) - outside


async def test_servers_that_are_not_running_cost_the_idle_gateway_no_task(tmp_path: Path) -> None:
    with_one = await tasks_of_a_gateway_with(tmp_path, 1)
    with_many = await tasks_of_a_gateway_with(tmp_path, MANY_SERVERS)
    assert with_many == with_one


class IdleStops(logging.Handler):
    """Counts the pool's notes that a connection was stopped for being idle."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.count = 0
        self.changed = anyio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("stopping after"):
            self.count += 1
            self.changed.set()

    async def wait_for(self, count: int) -> None:
        with anyio.fail_after(SETTLE_SECONDS):
            while self.count < count:
                self.changed = anyio.Event()
                await self.changed.wait()


@pytest.fixture
def idle_stops() -> Iterator[IdleStops]:
    handler = IdleStops()
    notes = logging.getLogger("mcp_gateway.servers")
    notes.addHandler(handler)
    try:
        yield handler
    finally:
        notes.removeHandler(handler)


def test_a_server_never_used_costs_the_pool_next_to_no_memory(tmp_path: Path) -> None:
    workspace = write_workspace(tmp_path, {f"s{index}": {"command": "never-run"} for index in range(MANY_SERVERS)})
    config = load(workspace)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        pool = Pool(config.servers, config.settings, workspace)
        gc.collect()
        grown = sum(stat.size_diff for stat in tracemalloc.take_snapshot().compare_to(before, "filename"))
    finally:
        tracemalloc.stop()
    assert pool.status("s0").state is State.IDLE  # kept, and not started
    assert grown / MANY_SERVERS < BYTES_PER_UNUSED_SERVER


async def connected(gateway: Gateway, server: str) -> bool:
    (state,) = [state for state in (await gateway.status()).servers if state.name == server]
    return state.connected


async def test_each_new_connection_gets_its_own_idle_timer(tmp_path: Path, idle_stops: IdleStops) -> None:
    downstream = FakeDownstream()
    workspace = write_workspace(tmp_path, {"fake": {"command": "in-process"}}, {"idleTimeout": IDLE_MINUTES})
    async with Gateway(workspace, load(workspace), connector=InProcessConnector(downstream)) as gateway:
        for round_trip in range(3):
            result = await gateway.execute("fake.echo", {"message": f"round {round_trip}"})
            assert result["content"] == [{"type": "text", "text": f"round {round_trip}"}]
            assert await connected(gateway, "fake")
            assert len(running(IDLE_TIMER)) == 1, "its own timer, and none left from the connection before"
            await idle_stops.wait_for(round_trip + 1)
            assert not await connected(gateway, "fake")
        # The timer ends as it stops its connection: a stopped connection's timer does not linger.
        assert running(IDLE_TIMER) == []
    assert downstream.connections == 3


def running(name: str) -> list[TaskInfo]:
    """The running tasks of that name (the connection's own task may still be closing: it is not counted)."""
    return [task for task in anyio.get_running_tasks() if task.name == name]
