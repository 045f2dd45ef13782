"""Retiring a supervisor taken out of the pool by a config edit: after its calls, within a bound."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import anyio
import pytest

from mcp_gateway.background import BackgroundTasks, background_tasks
from mcp_gateway.config import load_config
from mcp_gateway.downstream.pool import DRAIN_MARGIN_SECONDS, Retirements, drain_seconds
from mcp_gateway.downstream.supervisor import Supervisor

pytestmark = pytest.mark.anyio

WAIT_SECONDS = 10.0
"""Upper bound for what should happen at once: generous, for a loaded machine."""
SHORT_BOUND_SECONDS = 0.2


@dataclass
class _Name:
    name: str


@dataclass(eq=False)  # hashed by identity, as a real supervisor is
class FakeSupervisor:
    """What `Retirements` uses of a supervisor: its server's name and `stop()`."""

    server: _Name = field(default_factory=lambda: _Name("retired"))
    stopped: anyio.Event = field(default_factory=anyio.Event)

    def stop(self) -> None:
        self.stopped.set()


@pytest.fixture
async def tasks() -> AsyncGenerator[BackgroundTasks]:
    async with background_tasks() as group:
        yield group


def supervisor() -> tuple[FakeSupervisor, Supervisor]:
    fake = FakeSupervisor()
    return fake, cast(Supervisor, fake)


async def test_a_supervisor_no_call_holds_is_stopped_at_once(tasks: BackgroundTasks) -> None:
    fake, retired = supervisor()
    retirements = Retirements()

    retirements.retire(retired, tasks, WAIT_SECONDS * 10)

    with anyio.fail_after(WAIT_SECONDS):
        await fake.stopped.wait()
    await anyio.wait_all_tasks_blocked()
    assert retired not in retirements.draining


async def test_a_held_supervisor_is_stopped_only_when_its_last_call_ends(tasks: BackgroundTasks) -> None:
    fake, retired = supervisor()
    retirements = Retirements()
    first_done, second_done = anyio.Event(), anyio.Event()

    async def call(done: anyio.Event) -> None:
        async with retirements.lease(retired):
            await done.wait()

    async with anyio.create_task_group() as calls:
        calls.start_soon(call, first_done)
        calls.start_soon(call, second_done)
        await anyio.wait_all_tasks_blocked()
        retirements.retire(retired, tasks, WAIT_SECONDS * 10)
        await anyio.wait_all_tasks_blocked()
        assert retired in retirements.draining
        first_done.set()
        await anyio.wait_all_tasks_blocked()
        assert not fake.stopped.is_set(), "one call still runs"
        second_done.set()
    with anyio.fail_after(WAIT_SECONDS):
        await fake.stopped.wait()


async def test_a_call_that_never_lets_go_does_not_keep_the_supervisor_past_the_bound(tasks: BackgroundTasks) -> None:
    fake, retired = supervisor()
    retirements = Retirements()
    never = anyio.Event()

    async def stuck_call() -> None:
        async with retirements.lease(retired):
            await never.wait()

    async with anyio.create_task_group() as calls:
        calls.start_soon(stuck_call)
        await anyio.wait_all_tasks_blocked()
        began = anyio.current_time()
        retirements.retire(retired, tasks, SHORT_BOUND_SECONDS)
        with anyio.fail_after(WAIT_SECONDS):
            await fake.stopped.wait()
        assert anyio.current_time() - began >= SHORT_BOUND_SECONDS
        calls.cancel_scope.cancel()


def test_the_bound_is_a_start_and_a_request_each_within_its_timeout(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(
        '{"settings": {"connectTimeoutMs": 2000, "requestTimeoutMs": 3000},'
        ' "mcpServers": {"own": {"command": "x", "requestTimeoutMs": 500}, "plain": {"command": "y"}}}'
    )
    config = load_config(path, environ={}, create_missing=False)

    assert drain_seconds(config.servers["own"], config.settings) == 2.5 + DRAIN_MARGIN_SECONDS
    assert drain_seconds(config.servers["plain"], config.settings) == 5.0 + DRAIN_MARGIN_SECONDS
