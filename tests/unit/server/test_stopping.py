"""The stop policy: repeated stop signals are one graceful shutdown; a third one, or the bound, forces it."""

from __future__ import annotations

from typing import NoReturn

import anyio
import anyio.abc
import pytest

from mcp_gateway.server.stopping import FORCE_GRACE_SECONDS, FORCED_EXIT_STATUS, Stopper

pytestmark = pytest.mark.anyio

STEP_SECONDS = 10.0
"""Generous bound for anything that should happen at once."""
SHORT_BOUND_SECONDS = FORCE_GRACE_SECONDS + 0.2


class Left(Exception):  # noqa: N818  # stands for the process leaving
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def leave(status: int) -> NoReturn:
    raise Left(status)


class Harness:
    def __init__(self, bound_seconds: float = STEP_SECONDS * 3) -> None:
        self.stopper = Stopper(leave, bound_seconds=bound_seconds)
        self.stopper.kill_everything = self._kill
        self.kills = 0
        self.killed = anyio.Event()
        self.signals, self.receive = anyio.create_memory_object_stream[int](10)

    def _kill(self) -> None:
        self.kills += 1
        self.killed.set()

    async def serve_until_stopped(self, task_group: anyio.abc.TaskGroup) -> bool:
        """Start the watchers, serve until a stop request; whether serving was cancelled."""
        task_group.start_soon(self.stopper.watch, self.receive)
        task_group.start_soon(self.stopper.enforce_bound)
        with anyio.CancelScope() as serving:
            self.stopper.serve_in(serving)
            await anyio.sleep_forever()
        self.stopper.serving_ended()
        return serving.cancelled_caught


async def test_sigint_then_sigterm_cancel_serving_once_and_kill_nothing() -> None:
    harness = Harness()
    with anyio.fail_after(STEP_SECONDS):
        async with anyio.create_task_group() as tg:
            await harness.signals.send(2)
            await harness.signals.send(15)
            assert await harness.serve_until_stopped(tg)
            # The orderly shutdown would run here; it finishes well inside the bound.
            await anyio.wait_all_tasks_blocked()
            tg.cancel_scope.cancel()
    assert harness.kills == 0
    assert harness.stopper.exit_status == 0


async def test_a_third_stop_signal_kills_everything_and_the_orderly_path_may_still_finish() -> None:
    harness = Harness()
    with anyio.fail_after(STEP_SECONDS):
        async with anyio.create_task_group() as tg:
            for signum in (2, 15, 1):
                await harness.signals.send(signum)
            assert await harness.serve_until_stopped(tg)
            await harness.killed.wait()
            tg.cancel_scope.cancel()  # the orderly path ends within the grace: no need to leave
    assert harness.kills == 1
    assert harness.stopper.exit_status == FORCED_EXIT_STATUS


async def test_a_shutdown_that_overruns_the_bound_kills_everything_and_leaves() -> None:
    harness = Harness(bound_seconds=SHORT_BOUND_SECONDS)
    began = anyio.current_time()
    with pytest.RaisesGroup(pytest.RaisesExc(Left, check=lambda left: left.status == FORCED_EXIT_STATUS)):
        with anyio.fail_after(STEP_SECONDS):
            async with anyio.create_task_group() as tg:
                await harness.signals.send(15)
                assert await harness.serve_until_stopped(tg)
                await anyio.sleep_forever()  # an orderly shutdown that never ends
    assert harness.kills == 1
    assert anyio.current_time() - began >= SHORT_BOUND_SECONDS - 0.01


async def test_the_bound_also_holds_when_the_client_closed_stdin() -> None:
    harness = Harness(bound_seconds=SHORT_BOUND_SECONDS)
    with pytest.RaisesGroup(pytest.RaisesExc(Left)):
        with anyio.fail_after(STEP_SECONDS):
            async with anyio.create_task_group() as tg:
                tg.start_soon(harness.stopper.watch, harness.receive)
                tg.start_soon(harness.stopper.enforce_bound)
                harness.stopper.serving_ended()
                await anyio.sleep_forever()
    assert harness.kills == 1
    assert harness.stopper.stop_requested
    assert harness.stopper.exit_status == FORCED_EXIT_STATUS
