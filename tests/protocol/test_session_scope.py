"""What a session registers on a shared `Gateway` ends with it, and its requests in flight are bounded.

The daemon serves every session over one `Gateway`: a session that left must leave no change listener and no
resource subscription behind (fifty sessions here, each subscribing and leaving without unsubscribing, over
the real fake server), and one session's slots are its own (`SessionScope.slot`).
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from gateway_testing import fake_server, load, write_workspace
from mcp import Client

from mcp_gateway.errors import SessionBusyError
from mcp_gateway.questions import QuestionRelay
from mcp_gateway.server.app import build_server
from mcp_gateway.server.changes import ClientChanges
from mcp_gateway.server.session_scope import SessionScope
from mcp_gateway.service.gateway import Gateway

pytestmark = pytest.mark.anyio

SESSIONS = 50
SHARED_DOCUMENT = "demo://resource/static/document/architecture.md"
TEST_SECONDS = 60.0
"""Fifty in-memory sessions and one real server start, on a loaded machine."""
POLL_SECONDS = 0.05


async def test_fifty_sessions_that_come_and_go_leave_no_listener_and_no_subscription(tmp_path: Path) -> None:
    log = tmp_path / "subscriptions.log"
    workspace = write_workspace(tmp_path / "home", {"fake": fake_server(surface="serve", subscription_log=str(log))})
    with anyio.fail_after(TEST_SECONDS):
        async with Gateway(workspace, load(workspace)) as gateway:
            await gateway.refresh()
            for _ in range(SESSIONS):
                async with Client(build_server(gateway), mode="legacy", cache=None) as client:
                    await client.subscribe_resource(SHARED_DOCUMENT)  # pyright: ignore[reportDeprecated]
                    assert gateway.changes.listeners == 1
                    assert gateway.offerings.holders() == 1
            assert gateway.changes.listeners == 0
            assert gateway.offerings.holders() == 0
            while len(said(log)) < 2 * SESSIONS:  # noqa: ASYNC110 (a file another process writes: polled)
                await anyio.sleep(POLL_SECONDS)
    assert sorted(said(log)) == sorted(
        [f"resources/subscribe {SHARED_DOCUMENT}", f"resources/unsubscribe {SHARED_DOCUMENT}"] * SESSIONS
    )


def said(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


async def test_a_session_over_its_bound_waits_for_a_slot_then_is_refused_in_one_sentence(tmp_path: Path) -> None:
    settings = {"maxCallsPerSession": 1, "requestTimeoutMs": 200}
    workspace = write_workspace(tmp_path / "home", {}, settings)
    async with Gateway(workspace, load(workspace)) as gateway:
        relay = QuestionRelay(gateway)
        mine = SessionScope(gateway, ClientChanges(gateway.offerings), relay)
        other = SessionScope(gateway, ClientChanges(gateway.offerings), relay)
        with anyio.fail_after(TEST_SECONDS):
            async with mine.slot():
                assert mine.calls_in_flight == 1
                async with other.slot():  # another session's slots are its own
                    assert other.calls_in_flight == 1
                with pytest.raises(SessionBusyError) as refused:
                    async with mine.slot():
                        pytest.fail("a second request of a session bounded to one ran")
            async with mine.slot():  # the slot freed is taken again
                assert mine.calls_in_flight == 1
    message = refused.value.message
    assert "1 request in flight" in message
    assert "0.2s" in message
    assert "maxCallsPerSession" in message
    assert message.count(". ") == 0, "one sentence"
