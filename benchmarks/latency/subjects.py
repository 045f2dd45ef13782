"""What the latency pairs measure: the downstream tools called both through the gateway and directly, the
demo servers, the workspaces serving them, and the processes answering.

Both sides start the same process the same way (the direct side as the gateway would start it), and every
result is checked, so that a wrong answer never passes as a fast one.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import mcp_types as types
from mcp import Client, StdioServerParameters

from benchmarks.gateway_session import text_of
from benchmarks.latency.failure import BenchError
from benchmarks.procfs import children, command_line
from benchmarks.repo_paths import FAKE_SERVER, ROOT
from mcp_gateway.cli.demo import DEMO_SERVERS

EVERYTHING_BIN = ROOT / "tests" / "e2e" / "peers" / "node_modules" / ".bin" / "mcp-server-everything"
PLAIN_SDK_SERVER = "toolbox"
"""The demo server whose `tools/list` shows what one hop through a plain Python SDK server costs."""
ECHO_MESSAGE = "latency probe"
SESSION_TIMEOUT_SECONDS = 120.0
"""Upper bound for one whole client session (start, calls, shutdown); a hang fails the run, never stalls it."""


@dataclass(frozen=True)
class Target:
    """A downstream tool called both through the gateway and directly."""

    label: str
    server: str
    entry: dict[str, Any]
    tool: str
    arguments: dict[str, Any]
    expected: str
    """Text the result must contain: a wrong answer must never pass as a fast one."""
    trivial: bool = False
    """A trivial echo, the call whose added time issue 25 bounds."""

    @property
    def qualified(self) -> str:
        return f"{self.server}.{self.tool}"


def targets(spawn_log: Path) -> list[Target]:
    fake = {"command": sys.executable, "args": [str(FAKE_SERVER)], "env": {"FAKE_MCP_SPAWN_LOG": str(spawn_log)}}
    everything = {"command": str(EVERYTHING_BIN)}
    echo = {"message": ECHO_MESSAGE}
    return [
        Target("fake echo", "fake", fake, "echo", echo, ECHO_MESSAGE, trivial=True),
        Target("everything echo", "everything", everything, "echo", echo, ECHO_MESSAGE, trivial=True),
        # The same fixed cost set against a tool that does some work, as most real tools do.
        Target("fake sleep 10 ms", "fake", fake, "sleep", {"seconds": 0.01}, "slept 0.01"),
    ]


def demo_entries(home: Path) -> dict[str, dict[str, Any]]:
    """The servers `mcp-gateway demo` configures, as it configures them."""
    return {
        name: {
            "command": sys.executable,
            "args": ["-m", module],
            "env": {"DEMO_NOTES_DIR": str(home)},
            "aliases": aliases,
        }
        for name, (module, aliases) in DEMO_SERVERS.items()
    }


def write_config(home: Path, servers: Mapping[str, Mapping[str, Any]]) -> None:
    home.mkdir(parents=True, exist_ok=True)
    document = {"version": 1, "mcpServers": {name: dict(entry) for name, entry in servers.items()}}
    (home / "config.json").write_text(json.dumps(document, indent=2, ensure_ascii=False))


def direct_params(entry: Mapping[str, Any]) -> StdioServerParameters:
    # As the gateway starts it (inheritEnv defaults to true), so both sides run the same process.
    env = dict(os.environ) | cast(dict[str, str], entry.get("env", {}))
    return StdioServerParameters(command=entry["command"], args=list(entry.get("args", [])), env=env)


def checked(result: types.CallToolResult, expected: str, what: str) -> types.CallToolResult:
    if result.is_error or expected not in text_of(result):
        raise BenchError(f"{what} returned an unexpected result: {text_of(result)[:300]!r}")
    return result


async def call_through_gateway(gateway: Client, target: Target) -> types.CallToolResult:
    result = await gateway.call_tool("execute_tool", {"tool": target.qualified, "arguments": target.arguments})
    return checked(result, target.expected, f"execute_tool {target.qualified}")


async def call_directly(direct: Client, target: Target) -> types.CallToolResult:
    result = await direct.call_tool(target.tool, target.arguments)
    return checked(result, target.expected, f"{target.label} called directly")


def child_pid(argument: str) -> int | None:
    """Our child process with `argument` in its command line; the SDK does not expose the process it started."""
    return next((pid for pid in children(os.getpid()) if argument in command_line(pid)), None)


def command_argument(entry: Mapping[str, Any]) -> str:
    """An argument that tells this server's process apart from our other children."""
    args = cast(list[str], entry.get("args", []))
    return args[-1] if args else cast(str, entry["command"])
