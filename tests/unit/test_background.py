"""The guard every background task runs under: a failure is logged and recorded, never fatal; cancellation
still stops everything."""

from __future__ import annotations

import logging
from typing import NoReturn

import anyio
import anyio.lowlevel
import pytest

from mcp_gateway.background import MAX_PROBLEMS_KEPT, BackgroundProblem, BackgroundProblems, background_tasks

pytestmark = pytest.mark.anyio

WAIT_SECONDS = 5.0
SECRET = "hunter2-token-value"


async def fail(message: str) -> NoReturn:
    raise RuntimeError(message)


async def test_a_failing_task_is_logged_and_recorded_and_its_siblings_and_owner_carry_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sibling_done = anyio.Event()
    caplog.set_level(logging.ERROR, logger="mcp_gateway.background")

    async def sibling() -> None:
        await anyio.lowlevel.checkpoint()
        sibling_done.set()

    with anyio.fail_after(WAIT_SECONDS):
        async with background_tasks() as tasks:
            tasks.start_soon(fail, "the cache is unreadable", name="reading the cache")
            tasks.start_soon(sibling)
            await sibling_done.wait()
            while not list(tasks.problems):
                await anyio.lowlevel.checkpoint()
            owner_still_running = True
    assert owner_still_running
    [problem] = list(tasks.problems)
    assert problem.task == "reading the cache"
    assert problem.error == "RuntimeError: the cache is unreadable"
    assert "reading the cache failed" in caplog.text
    assert "Traceback" in caplog.text
    assert "the cache is unreadable" in caplog.text


async def test_cancellation_is_not_a_problem_and_still_ends_every_task() -> None:
    started = anyio.Event()
    cancelled = anyio.Event()

    async def forever() -> None:
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()

    with anyio.fail_after(WAIT_SECONDS):
        async with background_tasks() as tasks:
            tasks.start_soon(forever, name="a reaper")
            await started.wait()
    assert cancelled.is_set()
    assert list(tasks.problems) == []


async def test_the_owners_own_exception_travels_on_unchanged() -> None:
    async def owner() -> None:
        async with background_tasks() as tasks:
            tasks.start_soon(anyio.sleep_forever)
            raise KeyError("mine")

    with anyio.fail_after(WAIT_SECONDS), pytest.raises(KeyError):
        await owner()


async def test_secrets_are_masked_in_the_log_and_the_record_and_each_problem_is_persisted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    persisted: list[BackgroundProblem] = []
    problems = BackgroundProblems(persist=persisted.append, mask=lambda text: text.replace(SECRET, "***"))
    caplog.set_level(logging.ERROR, logger="mcp_gateway.background")
    with anyio.fail_after(WAIT_SECONDS):
        async with background_tasks(problems) as tasks:
            tasks.start_soon(fail, f"bad header Authorization: Bearer {SECRET}", name="the startup refresh")
            while True:
                if persisted:
                    break
                await anyio.lowlevel.checkpoint()
    assert persisted == list(problems)
    assert persisted[0].error == "RuntimeError: bad header Authorization: Bearer ***"
    assert SECRET not in caplog.text
    assert "Bearer ***" in caplog.text


async def test_only_the_most_recent_problems_are_kept() -> None:
    problems = BackgroundProblems()
    for index in range(MAX_PROBLEMS_KEPT + 5):
        await problems.record(f"task {index}", RuntimeError("x"))
    kept = [problem.task for problem in problems]
    assert kept == [f"task {index}" for index in range(5, MAX_PROBLEMS_KEPT + 5)]
