"""A first session on an empty cache, and what the servers say of themselves, end to end.

The real `mcp-gateway` process serves a fresh workspace (no cache.json): it lists its servers in the
background as it starts. Behind it runs `@modelcontextprotocol/server-everything` (npm).
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from e2e_gateway import SESSION_SECONDS, everything_server, gateway_session, payload_of
from gateway_testing import write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

EASTER_EGG = "Server instructions are working!"
"""The line server-everything's instructions ask a model to answer with, when asked about them."""


async def test_server_everything_s_instructions_reach_the_model_through_the_gateway(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"everything": everything_server()})
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            first = client.instructions or ""
            listed = payload_of(await client.call_tool("list_tools", {"server": "everything"}))
            described = payload_of(await client.call_tool("describe_tool", {"tool": "everything.get-sum"}))
        async with gateway_session(tmp_path) as client:
            later = client.instructions or ""
    assert EASTER_EGG in listed["serverInstructions"]
    assert EASTER_EGG in described["serverInstructions"]
    # The gateway's own instructions: nothing was known of the server in the first session; the next one
    # routes to it by what it says it is.
    assert first.splitlines()[-1] == "- everything"
    assert later.splitlines()[-1] == "- everything: Everything Reference Server"
    assert len(later.encode()) <= 2048
