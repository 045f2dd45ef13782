"""`Gateway.refresh(on_progress=…)`: each server's turn and its end, in order, with the count the report gives.

In-process: two fake downstreams, listed one at a time (`refreshConcurrency: 1`), one of them filtered.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gateway_testing import load, write_workspace
from inprocess_fakes import TOOLS, FakeDownstream, InProcessConnector

from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.progress import ServerProgress

pytestmark = pytest.mark.anyio


async def test_refresh_reports_each_server_starting_then_listed_with_the_tools_it_keeps(tmp_path: Path) -> None:
    whole, filtered = FakeDownstream("whole"), FakeDownstream("filtered")
    servers = {"whole": {"command": "in-process"}, "filtered": {"command": "in-process", "includeTools": ["echo"]}}
    workspace = write_workspace(tmp_path, servers, {"refreshConcurrency": 1})
    events: list[ServerProgress] = []

    async with Gateway(workspace, load(workspace), connector=InProcessConnector(whole, filtered)) as gateway:
        report = await gateway.refresh(on_progress=events.append)
        quiet = await gateway.refresh()  # without a listener nothing is said, and the report is the same

    assert [(event.server, event.stage) for event in events] == [
        ("whole", "starting"),
        ("whole", "listed"),
        ("filtered", "starting"),
        ("filtered", "listed"),
    ]
    ended = {event.server: event for event in events if event.stage == "listed"}
    assert ended["whole"].tool_count == len(TOOLS)
    assert ended["filtered"].tool_count == 1  # what the catalog keeps, not what the server listed
    assert {outcome.server: outcome.tool_count for outcome in report.outcomes} == {
        name: event.tool_count for name, event in ended.items()
    }
    assert all(event.seconds is not None and event.seconds >= 0 for event in ended.values())
    assert quiet == report
