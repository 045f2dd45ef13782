"""Background work of the gateway and the pool: tasks that can fail but never take their owner down.

The gateway is the one door to all of a user's tools, so nothing it does in the background (reading the
cache, the startup refresh, starting `eager` servers, warm-ups, owning connections, reaping idle ones)
may end it. Contract:
- `background_tasks()` yields a `BackgroundTasks` group that lives as long as its owner. Every task
  started in it runs under one guard: an `Exception` it raises is logged with its traceback and recorded
  in the group's `BackgroundProblems` (which `status` reports), and goes no further; its siblings and the
  owner carry on. Cancellation is not an `Exception` and still propagates, so stopping is unchanged.
- The owner's own exception is not passed into the group's exit: anyio would wrap it in an exception
  group, and a plain `UnknownToolError` from a command would reach the user as a traceback. The group is
  cancelled and closed as if its body had ended normally, and the owner's exception travels on unchanged.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc
import anyio.to_thread

logger = logging.getLogger(__name__)

MAX_PROBLEMS_KEPT = 20
"""The most recent background failures kept for `status`; older ones are only in the log."""


@dataclass(frozen=True)
class BackgroundProblem:
    task: str
    """What was running, in words ("the startup refresh")."""
    error: str
    """The exception's type and message."""
    at: float
    """Wall-clock time (epoch seconds)."""


class BackgroundProblems:
    """The background failures of one process, most recent last.

    `persist` (if any) gets each one too, in a worker thread (it writes a file for `mcp-gateway status`
    in another process), and `forget` each task that `resolved` says works again. `mask` hides secrets in the
    text logged and recorded.
    """

    def __init__(
        self,
        persist: Callable[[BackgroundProblem], None] | None = None,
        mask: Callable[[str], str] = str,
        forget: Callable[[str], None] | None = None,
    ) -> None:
        self._problems: deque[BackgroundProblem] = deque(maxlen=MAX_PROBLEMS_KEPT)
        self._persist = persist
        self._forget = forget
        self._mask = mask

    def __iter__(self) -> Iterator[BackgroundProblem]:
        return iter(tuple(self._problems))

    async def record(self, task: str, error: Exception) -> None:
        trace = self._mask("".join(traceback.format_exception(error)).rstrip())
        logger.error("%s failed; the gateway serves on without it.\n%s", task, trace)
        problem = BackgroundProblem(task, self._mask(f"{type(error).__name__}: {error}"), time.time())
        self._problems.append(problem)
        if self._persist is not None:
            try:
                await anyio.to_thread.run_sync(self._persist, problem)
            except Exception as failure:
                note = self._mask(repr(failure))
                logger.warning("could not record that %s failed for `mcp-gateway status`: %s", task, note)

    async def resolved(self, task: str) -> None:
        """`task` works again (an edit of config.json that could not be used was fixed): its problems are no
        longer reported, here nor on disk."""
        kept = [problem for problem in self._problems if problem.task != task]
        self._problems = deque(kept, maxlen=MAX_PROBLEMS_KEPT)
        if self._forget is not None:
            try:
                await anyio.to_thread.run_sync(self._forget, task)
            except Exception as failure:
                logger.warning("could not clear what failed in %s for `mcp-gateway status`: %r", task, failure)


class BackgroundTasks:
    """A task group whose tasks are guarded (see the module docstring)."""

    def __init__(self, group: anyio.abc.TaskGroup, problems: BackgroundProblems) -> None:
        self._group = group
        self.problems = problems

    def start_soon(self, func: Callable[..., Awaitable[Any]], *args: Any, name: str | None = None) -> None:
        """Run `func(*args)` in the background; `name` says what it is in the log and in `status`."""
        task = name or getattr(func, "__qualname__", repr(func))

        async def guarded() -> None:
            try:
                await func(*args)
            except Exception as error:  # the guard itself: anything a task raises stops here
                await self.problems.record(task, error)

        self._group.start_soon(guarded, name=task)

    def cancel(self) -> None:
        self._group.cancel_scope.cancel()


@asynccontextmanager
async def background_tasks(problems: BackgroundProblems | None = None) -> AsyncGenerator[BackgroundTasks]:
    owners: BaseException | None = None
    async with anyio.create_task_group() as group:
        try:
            yield BackgroundTasks(group, problems if problems is not None else BackgroundProblems())
        except BaseException as exc:  # the owner's own; kept out of the group's exit, which would wrap it
            owners = exc
        finally:
            group.cancel_scope.cancel()
    if owners is not None:
        raise owners
