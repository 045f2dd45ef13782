"""After a call times out, the pool asks the connection a trivial question: silence retires it, an answer keeps it.

In-process, so both probes are exercised: `ping` under the handshake protocols and the first page of
`tools/list` from 2026-07-28 on (where `ping` no longer exists). A wedged server is one whose `tools/list`
never answers; the e2e suite covers a whole process whose output freezes.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from gateway_testing import load, write_workspace
from inprocess_fakes import FakeDownstream, InProcessConnector

from mcp_gateway.downstream import pool
from mcp_gateway.downstream.connection import Connection
from mcp_gateway.service.gateway import Gateway

pytestmark = pytest.mark.anyio

PROBE_SECONDS = 0.3
SETTLE_SECONDS = 10.0


@pytest.fixture
def probed(monkeypatch: pytest.MonkeyPatch) -> anyio.Event:
    """Set once a liveness probe has finished (the pool decides right after, without yielding)."""
    finished = anyio.Event()
    original = Connection.responds

    async def observed(self: Connection, *, timeout_seconds: float) -> bool:
        try:
            return await original(self, timeout_seconds=timeout_seconds)
        finally:
            finished.set()

    monkeypatch.setattr(pool, "WEDGE_PROBE_SECONDS", PROBE_SECONDS)
    monkeypatch.setattr(Connection, "responds", observed)
    return finished


async def test_a_timed_out_call_on_a_modern_connection_that_no_longer_lists_tools_retires_it(
    tmp_path: Path, probed: anyio.Event
) -> None:
    downstream = FakeDownstream()
    workspace = write_workspace(tmp_path, {"fake": {"command": "in-process"}}, {"requestTimeoutMs": 200})
    connector = InProcessConnector(downstream, mode="2026-07-28")
    async with Gateway(workspace, load(workspace), connector=connector) as gateway:
        await gateway.refresh()
        downstream.list_gate = anyio.Event()  # from now on the server never finishes a listing: wedged
        with pytest.raises(Exception, match=r"did not answer within 0\.2s"):
            await gateway.execute("fake.slow", {})
        with anyio.fail_after(SETTLE_SECONDS):
            await probed.wait()
        assert not await connected(gateway, "fake")
        downstream.list_gate.set()
        result = await gateway.execute("fake.echo", {"message": "fresh"})
    assert result["content"] == [{"type": "text", "text": "fresh"}]
    assert downstream.connections == 2


async def connected(gateway: Gateway, server: str) -> bool:
    (state,) = [state for state in (await gateway.status()).servers if state.name == server]
    return state.connected


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_timed_out_call_on_a_connection_that_still_answers_keeps_it(
    tmp_path: Path, mode: str, probed: anyio.Event
) -> None:
    downstream = FakeDownstream()
    workspace = write_workspace(tmp_path, {"fake": {"command": "in-process"}}, {"requestTimeoutMs": 200})
    async with Gateway(workspace, load(workspace), connector=InProcessConnector(downstream, mode=mode)) as gateway:
        await gateway.refresh()
        with pytest.raises(Exception, match=r"did not answer within 0\.2s"):
            await gateway.execute("fake.slow", {})
        with anyio.fail_after(SETTLE_SECONDS):
            await probed.wait()
        assert await connected(gateway, "fake")
        result = await gateway.execute("fake.echo", {"message": "same"})
    assert result["content"] == [{"type": "text", "text": "same"}]
    assert downstream.connections == 1
