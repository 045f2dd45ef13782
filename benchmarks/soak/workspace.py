"""The soak's throw-away workspace: K fake stdio servers of four flavours (plain, with a grandchild,
stubborn about EOF and SIGTERM, both), each logging its spawns and the cancellations it received, and a
config whose short timeouts make the gateway time out, back off and reap idle servers during the run.
"""

from __future__ import annotations

import contextlib
import json
import sys
import tempfile
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.repo_paths import FAKE_SERVER

REQUEST_TIMEOUT_MS = 2000
IDLE_TIMEOUT_MINUTES = 0.05
DAEMON_GRACE_SECONDS = 1.0
"""The shared daemon stops its servers and exits a second after the last session leaves, well within the leak
check's wait (`leaks.LEAK_WAIT_SECONDS`)."""
SETTINGS: dict[str, Any] = {
    "requestTimeoutMs": REQUEST_TIMEOUT_MS,
    "failureBackoffMs": 200,
    "idleTimeout": IDLE_TIMEOUT_MINUTES,
    "daemonGraceSeconds": DAEMON_GRACE_SECONDS,
}


@dataclass(frozen=True)
class FakeServer:
    name: str
    spawn_log: Path
    cancel_log: Path
    knobs: dict[str, str]


def fake_servers(home: Path, count: int) -> list[FakeServer]:
    """s0 plain, s1 with a grandchild, s2 stubborn, s3 both, then again: leaks of either kind would show."""
    flavours: list[dict[str, str]] = [
        {},
        {"FAKE_MCP_GRANDCHILD": "1"},
        {"FAKE_MCP_STUBBORN": "1"},
        {"FAKE_MCP_GRANDCHILD": "1", "FAKE_MCP_STUBBORN": "1"},
    ]
    servers: list[FakeServer] = []
    for index in range(count):
        name = f"s{index}"
        spawn_log, cancel_log = home / f"{name}.spawns", home / f"{name}.cancels"
        knobs = {"FAKE_MCP_SPAWN_LOG": str(spawn_log), "FAKE_MCP_CANCEL_LOG": str(cancel_log)}
        servers.append(FakeServer(name, spawn_log, cancel_log, knobs | flavours[index % len(flavours)]))
    return servers


def write_config(home: Path, servers: Sequence[FakeServer]) -> None:
    entries = {s.name: {"command": sys.executable, "args": [str(FAKE_SERVER)], "env": s.knobs} for s in servers}
    document = {"version": 1, "settings": SETTINGS, "mcpServers": entries}
    (home / "config.json").write_text(json.dumps(document, indent=2))


@contextlib.contextmanager
def workspace_directory(keep: bool) -> Generator[Path]:
    """A fresh folder for the workspace: removed afterwards, unless `keep` asks to look at its logs."""
    if keep:
        yield Path(tempfile.mkdtemp(prefix="mcp-gateway-soak-"))
        return
    with tempfile.TemporaryDirectory(prefix="mcp-gateway-soak-", ignore_cleanup_errors=True) as directory:
        yield Path(directory)
