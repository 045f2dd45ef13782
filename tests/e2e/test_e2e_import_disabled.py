"""A Claude Code config with every way of turning a server off, moved in: nothing turned off is ever started.

The real `mcp-gateway import --client claude --write-client-config` on a scratch HOME whose `~/.claude.json` holds
a server that is on, one whose entry says `"disabled": true`, and a stdio and a remote server turned off by a
project's `disabledMcpServers` (Claude Code's /mcp menu). The three arrive disabled, the remote one is not
contacted, and Claude Code's switch no longer names servers it does not have. Then `refresh`, `doctor` and a real
session of the gateway: only the server that is on starts (each fake server writes a line to its spawn log as it
starts), and the model is offered only its tools.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_gateway import gateway_session, run_cli_async, search
from workspaces import fake_server

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

REMOTE = "http://127.0.0.1:9/mcp"
"""Port 9 (discard) refuses: were it contacted, the import would say so among the urls it asked."""


def server(name: str, logs: Path, **fields: object) -> dict[str, object]:
    return {"type": "stdio", **fake_server(name=name, spawn_log=str(logs / f"{name}.spawned")), **fields}


async def test_servers_claude_code_keeps_off_arrive_disabled_and_nothing_starts_them(tmp_path: Path) -> None:
    home, workspace, project, logs = (tmp_path / name for name in ("home", "workspace", "project", "logs"))
    for directory in (home, project, logs):
        directory.mkdir()
    state: dict[str, object] = {
        "numStartups": 9,
        "mcpServers": {
            "notes": server("notes", logs),
            "old": server("old", logs, disabled=True),
            "paused": server("paused", logs),
            "docs": {"type": "http", "url": REMOTE},
        },
        "projects": {str(project): {"disabledMcpServers": ["paused", "docs", "elsewhere"], "mcpServers": {}}},
    }
    claude_json = home / ".claude.json"
    claude_json.write_text(json.dumps(state, indent=2))
    person = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home)}

    imported = await run_cli_async(
        "import", "--client", "claude", "--write-client-config", home=workspace, extra_env=person
    )

    assert imported.returncode == 0, imported.stdout + imported.stderr
    servers = json.loads((workspace / "config.json").read_text())["mcpServers"]
    assert {name: entry.get("disabled", False) for name, entry in servers.items()} == {
        "notes": False,
        "old": True,
        "paused": True,
        "docs": True,
    }
    assert imported.stdout.count("imported disabled, so the gateway never starts it") == 3
    assert REMOTE not in imported.stdout.split("Contacted", 1)[-1].split("\n", 1)[0]
    assert "login docs" not in imported.stdout
    after = json.loads(claude_json.read_text())
    assert list(after["mcpServers"]) == ["mcp-gateway"]
    assert after["projects"][str(project)]["disabledMcpServers"] == ["elsewhere"]
    assert after["numStartups"] == 9

    refreshed = await run_cli_async("refresh", home=workspace)
    assert refreshed.returncode == 0, refreshed.stdout + refreshed.stderr
    examined = await run_cli_async("doctor", home=workspace)
    assert examined.returncode == 0, examined.stdout + examined.stderr
    async with gateway_session(workspace) as client:
        instructions = client.instructions or ""
        found = await search(client, "echo a message back")

    assert sorted(path.name for path in logs.iterdir()) == ["notes.spawned"]
    assert "notes" in instructions
    assert not {"old", "paused", "docs"} & set(instructions.replace(",", " ").replace("(", " ").split())
    assert {hit["tool"].split(".")[0] for hit in found["results"]} == {"notes"}
