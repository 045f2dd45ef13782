"""Shared daemon against standalone gateways, side by side in one run: what several sessions of one workspace cost.

For 1, 4 and 8 concurrent sessions (the official SDK client starting `mcp-gateway --home HOME`, as a client
does), each calling a tool of each of three servers (the demo's toolbox and notes, and the SDK's smallest
server), it measures, in each mode:
- downstream server processes while every session is open;
- the total resident memory of everything started (fronts or gateways, the daemon, the servers), and the
  largest front;
- session start to answered `tools/list`: the first session (which starts the daemon, when shared) apart
  from the others (which find it running);
- the median warm `execute_tool` round trip (after each server answered once).
The catalog is listed before each mode, so no session lists anything at start. Times are reported as
measured and as ratios (shared ÷ standalone): the machine is shared and noisy, ratios less so.

    python -m benchmarks.sharing [--sessions 1 4 8] [--calls 20]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

from benchmarks.gateway_session import gateway_command, gateway_environment, refresh_catalog
from benchmarks.procfs import command_line, descendants, is_alive, rss_mb
from benchmarks.repo_paths import ROOT
from mcp_gateway.cli.demo import write_demo_config

CALLS: dict[str, tuple[str, dict[str, str]]] = {
    "toolbox": ("toolbox.text_stats", {"text": "one two three"}),
    "notes": ("notes.list_notes", {}),
    "minimal": ("minimal.echo", {"message": "hi"}),
}
SESSION_SECONDS = 120.0
GONE_SECONDS = 60.0
POLL_SECONDS = 0.05
GRACE_SECONDS = 1.0
"""The daemon's grace in this benchmark: it must be gone before the next round measures."""


@dataclass
class Round:
    mode: str
    sessions: int
    first_start: float = 0.0
    later_starts: list[float] = field(default_factory=list[float])
    warm_calls: list[float] = field(default_factory=list[float])
    server_processes: int = 0
    total_rss_mb: float = 0.0
    largest_front_mb: float = 0.0


def workspace(root: Path) -> Path:
    home = root / "home"
    home.mkdir()
    write_demo_config(home)
    config = json.loads((home / "config.json").read_text())
    minimal = ROOT / "benchmarks" / "minimal_sdk_server.py"
    config["mcpServers"]["minimal"] = {"command": sys.executable, "args": [str(minimal)]}
    config["settings"] = {"daemonGraceSeconds": GRACE_SECONDS, "startupMetadataCheck": False}
    (home / "config.json").write_text(json.dumps(config))
    refresh_catalog(home)
    return home


async def measure(home: Path, runtime: Path, mode: str, sessions: int, calls: int) -> Round:
    env = gateway_environment()
    env["XDG_RUNTIME_DIR"] = str(runtime)
    if mode == "standalone":
        env["MCP_GATEWAY_STANDALONE"] = "1"
    else:
        env.pop("MCP_GATEWAY_STANDALONE", None)
    command, *args = gateway_command(home)
    params = StdioServerParameters(command=command, args=args, env=env)
    result = Round(mode, sessions)
    warmed = anyio.Event()
    ready = 0
    finished = anyio.Event()
    done = anyio.Event()

    async def one(first: bool) -> None:
        nonlocal ready
        started = time.perf_counter()
        async with Client(params, mode="legacy", cache=None) as client:
            await client.list_tools()
            took = time.perf_counter() - started
            if first:
                result.first_start = took
            else:
                result.later_starts.append(took)
            for tool, arguments in CALLS.values():
                await client.call_tool("execute_tool", {"tool": tool, "arguments": arguments})
            ready += 1
            if ready == sessions:
                warmed.set()
            await warmed.wait()
            for _ in range(calls):
                tool, arguments = CALLS["toolbox"]
                began = time.perf_counter()
                await client.call_tool("execute_tool", {"tool": tool, "arguments": arguments})
                result.warm_calls.append(time.perf_counter() - began)
            if len(result.warm_calls) == calls * sessions:
                finished.set()
            await done.wait()

    with anyio.fail_after(SESSION_SECONDS):
        async with anyio.create_task_group() as tg:
            tg.start_soon(one, True)
            await _wait_daemon_or_gateway(runtime, mode)
            for _ in range(sessions - 1):
                tg.start_soon(one, False)
            await warmed.wait()
            await anyio.sleep(0.5)  # every warm call under way or done; the processes are all there
            _count(result)
            await finished.wait()
            done.set()
    await _wait_everything_gone()
    return result


async def _wait_daemon_or_gateway(runtime: Path, mode: str) -> None:
    """The first session's start stands alone: it starts the daemon the others then find running."""
    if mode == "shared":
        await _poll(lambda: bool(list((runtime / "mcp-gateway").glob("*.sock"))), SESSION_SECONDS)


def _count(result: Round) -> None:
    processes = descendants(os.getpid())
    fronts = [pid for pid in processes if _is_gateway(pid) and "daemon" not in command_line(pid)]
    daemons = [pid for pid in processes if "daemon" in command_line(pid) and _is_gateway(pid)]
    servers = [pid for pid in processes if pid not in fronts and pid not in daemons]
    sizes = {pid: rss_mb(pid) or 0.0 for pid in processes}
    result.server_processes = len(servers)
    result.total_rss_mb = sum(sizes.values())
    result.largest_front_mb = max((sizes[pid] for pid in fronts), default=0.0)


def _is_gateway(pid: int) -> bool:
    line = " ".join(command_line(pid))
    return "mcp-gateway" in line or "mcp_gateway --home" in line


async def _wait_everything_gone() -> None:
    await _poll(lambda: not [pid for pid in descendants(os.getpid()) if is_alive(pid)], GONE_SECONDS)


async def _poll(condition: Callable[[], bool], seconds: float) -> None:
    """Until `condition` holds (a file, a process: nothing to wait on but the filesystem); TimeoutError after."""
    with anyio.fail_after(seconds):
        while True:
            if condition():
                return
            await anyio.sleep(POLL_SECONDS)


def report(rounds: Sequence[Round]) -> str:
    lines = [
        "sessions  mode        servers  total RSS  largest front  first start  later starts (median)"
        "  warm call (median)",
    ]
    for r in rounds:
        later = f"{statistics.median(r.later_starts):>19.3f} s" if r.later_starts else f"{'-':>21}"
        lines.append(
            f"{r.sessions:>8}  {r.mode:<10}  {r.server_processes:>7}  {r.total_rss_mb:>7.0f} MB  "
            f"{r.largest_front_mb:>10.0f} MB  {r.first_start:>9.3f} s  {later}  "
            f"{statistics.median(r.warm_calls) * 1000:>15.2f} ms"
        )
    lines += ["", "shared against standalone, same sessions:"]
    by_key = {(r.mode, r.sessions): r for r in rounds}
    for sessions in sorted({r.sessions for r in rounds}):
        shared, alone = by_key.get(("shared", sessions)), by_key.get(("standalone", sessions))
        if shared is None or alone is None:
            continue
        extra_ms = (statistics.median(shared.warm_calls) - statistics.median(alone.warm_calls)) * 1000
        words = [
            f"servers {shared.server_processes} vs {alone.server_processes}",
            f"RSS {shared.total_rss_mb / alone.total_rss_mb:.0%}",
            f"first start {shared.first_start / alone.first_start:.0%}",
        ]
        if shared.later_starts and alone.later_starts:
            ratio = statistics.median(shared.later_starts) / statistics.median(alone.later_starts)
            words.append(f"start with the daemon running {ratio:.0%}")
        words.append(f"warm call {extra_ms:+.2f} ms")
        lines.append(f"  {sessions} sessions: " + ", ".join(words))
    return "\n".join(lines)


async def run(session_counts: Sequence[int], calls: int) -> list[Round]:
    rounds: list[Round] = []
    root = Path(tempfile.mkdtemp(prefix="mgw-bench-", dir="/tmp"))
    try:
        home = workspace(root)
        for sessions in session_counts:
            for mode in ("standalone", "shared"):
                runtime = root / f"run-{mode}-{sessions}"
                runtime.mkdir()
                rounds.append(await measure(home, runtime, mode, sessions, calls))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return rounds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.sharing", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--calls", type=int, default=20, help="warm execute_tool calls per session")
    args = parser.parse_args(argv)
    print(report(anyio.run(run, args.sessions, args.calls)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
