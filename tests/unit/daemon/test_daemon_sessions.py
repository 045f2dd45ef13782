"""The daemon's one registry of sessions: numbered in order, saying who they are, and idle only with none open."""

from __future__ import annotations

import anyio
import pytest

from mcp_gateway.daemon import DaemonSessions

pytestmark = pytest.mark.anyio


async def test_sessions_are_numbered_in_order_and_say_who_they_are() -> None:
    sessions = DaemonSessions()
    assert sessions.idle_since is not None
    first = sessions.open()
    with anyio.fail_after(1):
        await sessions.changed()  # a session opened
    assert sessions.idle_since is None
    sessions.identified(first, "claude-code", "2.1.3")
    second = sessions.open()
    with sessions.calling(second):
        assert [entry.calls_in_flight for entry in sessions.entries()] == [0, 1]
        assert (first, second) == (1, 2)
        assert [entry.id for entry in sessions.entries()] == [1, 2]
    sessions.close(second)
    assert [entry.id for entry in sessions.entries()] == [1], "a session that left is no longer open"
    assert [(entry.id, entry.client_name, entry.client_version) for entry in sessions.entries()] == [
        (1, "claude-code", "2.1.3")
    ]
    sessions.close(first)
    assert sessions.entries() == ()
    assert sessions.idle_since is not None
    assert sessions.open() == 3, "ids are never reused"


async def test_the_daemon_is_idle_only_once_no_session_has_been_open_for_the_grace() -> None:
    sessions = DaemonSessions()
    session = sessions.open()
    idle = anyio.Event()

    async def wait_for_idle() -> None:
        await sessions.idle_for(0.01)
        idle.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(wait_for_idle)
        await anyio.sleep(0.1)
        assert not idle.is_set(), "a session is open"
        sessions.close(session)
        with anyio.fail_after(5):
            await idle.wait()
