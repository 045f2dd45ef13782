"""A task group for background work that must not swallow or wrap its owner's exceptions.

The pool and the gateway each run background tasks (reaping, connections, the startup refresh) for as long
as they live. Passing the owner's exception into such a group's exit makes anyio wrap it in an exception
group, so a plain `UnknownToolError` from a command reached the user as a traceback. Here the group is
cancelled and closed as if its body had ended normally, and the owner's exception travels on unchanged.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager

import anyio
import anyio.abc


@asynccontextmanager
async def background_tasks() -> AsyncGenerator[anyio.abc.TaskGroup]:
    group = anyio.create_task_group()
    await group.__aenter__()
    try:
        yield group
    finally:
        group.cancel_scope.cancel()
        await group.__aexit__(None, None, None)
