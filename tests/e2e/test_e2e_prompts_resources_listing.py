"""How prompts and resources are listed with tools: asked only where declared, and a failure costs only itself.

Real `mcp-gateway refresh` and `status` over the fake server: one declares nothing but tools, one serves a
surface, one declares prompts but fails `prompts/list` (`FAKE_MCP_SURFACE=broken-prompts`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from e2e_gateway import SESSION_SECONDS, gateway_session, run_cli_async
from workspaces import fake_server, refreshed_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


async def test_a_failed_prompts_list_keeps_the_tools_and_resources_and_a_server_without_prompts_is_not_asked(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    servers = {
        "plain": fake_server(),
        "served": fake_server(surface="serve"),
        "broken": fake_server(surface="broken-prompts"),
    }
    with anyio.fail_after(SESSION_SECONDS):
        await refreshed_workspace(home, servers)
        status = await run_cli_async("status", "--json", home=home)
        shown = await run_cli_async("status", home=home)
        async with gateway_session(home) as client:
            prompts = await client.list_prompts()
            resources = await client.list_resources()

    cache = cast(dict[str, Any], json.loads((home / "cache.json").read_text())["servers"])
    # Not asked: the fake server answers any unknown method with an error, which would have been noted.
    assert cache["plain"]["surface"] == {
        "prompts": [],
        "resources": [],
        "resourceTemplates": [],
        "completions": False,
        "subscribe": False,
    }
    broken = cache["broken"]
    assert broken["tools"], "its tools are kept"
    assert [resource["uri"] for resource in broken["surface"]["resources"]] != []
    assert broken["surface"]["prompts"] == []
    assert broken["surface"]["skipped"][0].startswith("prompts/list failed: ")
    assert "broken on purpose" in broken["surface"]["skipped"][0]

    assert [prompt.name for prompt in prompts.prompts] == ["served__simple-prompt", "served__args-prompt"]
    assert len(resources.resources) == 4, "both servers with resources list two each"

    assert status.returncode == 0, status.stderr
    by_server = {entry["server"]: entry for entry in json.loads(status.stdout)["servers"]}
    assert (by_server["served"]["prompts"], by_server["served"]["resources"]) == (2, 2)
    assert by_server["served"]["resourceTemplates"] == 1
    assert by_server["broken"]["skippedPromptsAndResources"] == broken["surface"]["skipped"]
    assert "2 prompts, 2 resources, 1 resource template" in shown.stdout
    assert "left out of its prompts and resources: prompts/list failed" in shown.stdout
