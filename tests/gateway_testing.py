"""Shared test helpers: workspaces with a config, the fake server's command, and the npm peers.

Imported by tests as `gateway_testing` (pytest puts `tests/` on the path, see pyproject.toml).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from mcp_gateway.config import GatewayConfig, load_config
from mcp_gateway.paths import Workspace

ROOT = Path(__file__).resolve().parent.parent
FAKE_SERVER = ROOT / "fixtures" / "fake_mcp_server.py"
PEERS_BIN = ROOT / "tests" / "e2e" / "peers" / "node_modules" / ".bin"


def fake_server(**knobs: str) -> dict[str, Any]:
    """A config entry for the fake stdio server; `knobs` become FAKE_MCP_* environment variables."""
    env = {f"FAKE_MCP_{key.upper()}": value for key, value in knobs.items()}
    return {"command": sys.executable, "args": [str(FAKE_SERVER)], "env": env}


def write_workspace(home: Path, servers: Mapping[str, Any], settings: Mapping[str, Any] | None = None) -> Workspace:
    home.mkdir(parents=True, exist_ok=True)
    document: dict[str, Any] = {"version": 1, "mcpServers": dict(servers)}
    if settings:
        document["settings"] = dict(settings)
    (home / "config.json").write_text(json.dumps(document, indent=2))
    return Workspace.from_environment(home)


def load(workspace: Workspace) -> GatewayConfig:
    return load_config(workspace.config_path)


def peer(name: str) -> Path:
    """A published peer installed by `.ci/run` (npm). Missing is a failure, never a skip: a test that did not
    run says nothing."""
    path = PEERS_BIN / name
    if not path.exists():
        pytest.fail(f"the npm peer '{name}' is not installed; run: npm install --prefix tests/e2e/peers")
    return path
