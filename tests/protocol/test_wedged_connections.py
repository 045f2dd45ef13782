"""After a call times out, the pool asks the connection a trivial question: silence retires it, an answer keeps it.

In-process, so both probes are exercised: `ping` under the handshake protocols and the first page of
`tools/list` from 2026-07-28 on (where `ping` no longer exists). A wedged server is one whose `tools/list`
never answers; the e2e suite covers a whole process whose output freezes.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import anyio
import pytest
from gateway_testing import load, write_workspace
from inprocess_fakes import FakeDownstream, InProcessConnector

from mcp_gateway.service.gateway import Gateway

pytestmark = pytest.mark.anyio

PROBE_SECONDS = 0.3
SETTLE_SECONDS = 10.0


class ProbeEnded(logging.Handler):
    """Sets `ended` at the pool's note that a liveness probe ended (the pool decides before noting it)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.ended = anyio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if "liveness probe" in record.getMessage():
            self.ended.set()


@pytest.fixture
def probed() -> Iterator[Callable[[], Awaitable[None]]]:
    """Waits for the end of a liveness probe."""
    handler = ProbeEnded()
    notes = logging.getLogger("mcp_gateway.servers")
    notes.addHandler(handler)

    async def wait() -> None:
        with anyio.fail_after(SETTLE_SECONDS):
            await handler.ended.wait()

    try:
        yield wait
    finally:
        notes.removeHandler(handler)


async def test_a_timed_out_call_on_a_modern_connection_that_no_longer_lists_tools_retires_it(
    tmp_path: Path, probed: Callable[[], Awaitable[None]]
) -> None:
    downstream = FakeDownstream()
    workspace = write_workspace(tmp_path, {"fake": {"command": "in-process"}}, {"requestTimeoutMs": 200})
    connector = InProcessConnector(downstream, mode="2026-07-28")
    async with Gateway(workspace, load(workspace), connector=connector, probe_seconds=PROBE_SECONDS) as gateway:
        await gateway.refresh()
        downstream.list_gate = anyio.Event()  # from now on the server never finishes a listing: wedged
        with pytest.raises(Exception, match=r"did not answer within 0\.2s"):
            await gateway.execute("fake.slow", {})
        await probed()
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
    tmp_path: Path, mode: str, probed: Callable[[], Awaitable[None]]
) -> None:
    downstream = FakeDownstream()
    workspace = write_workspace(tmp_path, {"fake": {"command": "in-process"}}, {"requestTimeoutMs": 200})
    async with Gateway(
        workspace, load(workspace), connector=InProcessConnector(downstream, mode=mode), probe_seconds=PROBE_SECONDS
    ) as gateway:
        await gateway.refresh()
        with pytest.raises(Exception, match=r"did not answer within 0\.2s"):
            await gateway.execute("fake.slow", {})
        await probed()
        assert await connected(gateway, "fake")
        result = await gateway.execute("fake.echo", {"message": "same"})
    assert result["content"] == [{"type": "text", "text": "same"}]
    assert downstream.connections == 1
