"""A gateway workspace whose cache.json already holds a bench-data catalog: the real gateway serves
thousands of real tools without starting a single server.

Every catalog server becomes a config entry that would start the fake fixture server (with a spawn log, so
a benchmark can prove that nothing was started) and a cache entry fingerprinted for exactly that entry,
through the gateway's own config loader and cache store, so the gateway trusts it as it would its own.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.bench_data import BenchServer
from benchmarks.repo_paths import FAKE_SERVER
from mcp_gateway.catalog import CacheStore, ServerCatalog, fingerprint
from mcp_gateway.config import load_config
from mcp_gateway.paths import Workspace

CACHED_PROTOCOL = "2025-11-25"


def write_bench_workspace(
    home: Path,
    servers: Sequence[BenchServer],
    *,
    spawn_log: Path,
    settings: Mapping[str, Any] | None = None,
) -> Workspace:
    """`home` as a workspace serving `servers` from cache; any server start is appended to `spawn_log`."""
    home.mkdir(parents=True, exist_ok=True)
    entries = {
        server.name: {
            "command": sys.executable,
            "args": [str(FAKE_SERVER)],
            "env": {"FAKE_MCP_SPAWN_LOG": str(spawn_log)},
            **({"aliases": list(server.aliases)} if server.aliases else {}),
        }
        for server in servers
    }
    document: dict[str, Any] = {"version": 1, "mcpServers": entries}
    if settings:
        document["settings"] = dict(settings)
    workspace = Workspace.from_environment(home)
    workspace.config_path.write_text(json.dumps(document, indent=2))
    config = load_config(workspace.config_path)
    rejected = [name for name in entries if name not in config.servers]
    if rejected:
        raise ValueError(f"the gateway's config loader rejected these catalog servers: {rejected}")
    now = time.time()
    tools = {server.name: server.tools for server in servers}
    CacheStore.for_workspace(workspace).save_many(
        ServerCatalog(
            server=name,
            fingerprint=fingerprint(loaded.identity),
            fetched_at=now,
            tools=tools[name],
            protocol_version=CACHED_PROTOCOL,
        )
        for name, loaded in config.servers.items()
    )
    return workspace


def spawned(spawn_log: Path) -> list[int]:
    """The pids of every server process started since the workspace was written."""
    return [int(line) for line in spawn_log.read_text().split()] if spawn_log.exists() else []
