"""A modern (2026-07-28) server listed a second time still has its instructions and name in the catalog.

The gateway remembers which protocol a server negotiated. Adopting a remembered modern version skips
`server/discover`, and with it the server's instructions, so every listing after the first dropped them from
cache.json: from `describe_tool`, `list_tools` and the digest in the gateway's own instructions.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from e2e_gateway import run_cli_async
from workspaces import write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

TOOLBOX = {"command": sys.executable, "args": ["-m", "mcp_gateway.demo.toolbox_server"]}


async def test_a_modern_server_listed_again_keeps_its_instructions_and_name(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"toolbox": TOOLBOX})
    entry: dict[str, object] = {}
    for _ in range(2):
        done = await run_cli_async("refresh", home=tmp_path)
        assert done.returncode == 0, done.stderr
        entry = json.loads((tmp_path / "cache.json").read_text())["servers"]["toolbox"]
        assert entry["protocolVersion"] == "2026-07-28", entry
        assert entry["instructions"], entry
        assert entry["serverName"] == "demo-toolbox", entry

    described = await run_cli_async("describe", "toolbox.text_stats", home=tmp_path)
    assert described.returncode == 0, described.stderr
    assert json.loads(described.stdout)["serverInstructions"] == entry["instructions"]
