"""A client that is not ours: the MCP Inspector CLI (npm) drives the real gateway over stdio.

The Inspector starts `mcp-gateway --home H` itself, makes one request and prints the result as JSON on
stdout (with a banner around it on some versions, so the JSON is found, not assumed to be all of stdout).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any, cast

import pytest
from e2e_gateway import CLI_SECONDS, META_TOOLS, client_environment, gateway_command, parse_json_output
from gateway_testing import peer
from workspaces import cached_everything, everything_server, write_workspace

pytestmark = pytest.mark.e2e


def inspector(home: Path, *request: str) -> dict[str, Any]:
    env = client_environment()
    # The Inspector keeps a catalog of servers (default ~/.mcp-inspector); keep it inside the test's directory.
    env["MCP_CATALOG_PATH"] = str(home.parent / "inspector-catalog.json")
    done = subprocess.run(
        [str(peer("mcp-inspector")), "--cli", *gateway_command(home), *request],
        capture_output=True,
        text=True,
        timeout=CLI_SECONDS,
        env=env,
        check=False,
    )
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return parse_json_output(done.stdout)


def test_inspector_tools_list_shows_exactly_the_four_meta_tools_marked_always_load(
    tmp_path: Path, everything_cache: Path
) -> None:
    home = tmp_path / "home"
    cached_everything(home, everything_cache)
    listed = inspector(home, "--method", "tools/list")
    tools = cast(list[dict[str, Any]], listed["tools"])
    assert [tool["name"] for tool in tools] == META_TOOLS
    for tool in tools:
        assert tool.get("_meta", {}).get("anthropic/alwaysLoad") is True, tool


def test_inspector_execute_tool_runs_get_sum_and_prints_five(tmp_path: Path) -> None:
    # A fresh workspace, as a first session would have: the gateway lists server-everything meanwhile.
    home = tmp_path / "home"
    write_workspace(home, {"everything": everything_server()})
    result = inspector(
        home,
        "--method",
        "tools/call",
        "--tool-name",
        "execute_tool",
        "--tool-arg",
        "tool=everything.get-sum",
        'arguments={"a":2,"b":3}',
    )
    assert not result.get("isError"), result
    texts = [str(item["text"]) for item in cast(list[dict[str, Any]], result["content"]) if item["type"] == "text"]
    assert any(re.search(r"\b5\b", text) for text in texts), result
