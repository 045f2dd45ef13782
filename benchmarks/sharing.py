"""Shared daemon against standalone gateways, side by side in one run: what several sessions of one workspace cost.

For each count of concurrent sessions (1, 4 and 8 by default: the official SDK client starting `mcp-gateway`
with no `--home`, as most clients do, its default workspace placed by `XDG_CONFIG_HOME`), each calling a tool of
each of three servers (the demo's toolbox and notes, and the SDK's smallest server), it measures in each mode:
- downstream server processes once every session has called each server;
- the total resident memory of everything the mode started (fronts, the daemon and its servers; or the
  gateways and theirs), the first front (which started the daemon, and answered the handshake itself
  meanwhile) and the largest of the others;
- session start to answered `tools/list`: the first session alone (a cold daemon, when shared), then the
  others started together (the daemon running);
- warm `execute_tool` round trips, median and 90th percentile, one call at a time, the two modes' sessions
  taking turns (the order swapped every round) so that the machine's noise falls on both alike.
Standalone sessions open first and stay open, idle, while the shared ones open. The catalog is refreshed
once, so no session lists any server at start. Ratios (shared ÷ standalone) are the result, and the last
lines say which of the issue's goals were met: the machine is shared and noisy, ratios much less so. The package
is compiled to bytecode first, as an install does (`compile_package`). All rounds share one runtime directory, as
a user's sessions do: the first cold start makes its handshake, the later ones answer from the one it kept
(`front.remembered_handshake`) unless something it was made from changed; each round says which.

    python -m benchmarks.sharing [--sessions 1 4 8] [--calls 20]
    python -m benchmarks.sharing --sessions 1 1 1 4 4 8 8   # a count repeated: one more sample of its starts
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
from typing import Any

import anyio
import anyio.abc
from mcp import Client, StdioServerParameters

from benchmarks.gateway_session import compile_package, gateway_environment, gateway_program, refresh_catalog
from benchmarks.procfs import command_line, descendants, is_alive, process_info, rss_mb
from benchmarks.repo_paths import ROOT
from mcp_gateway.cli.demo import write_demo_config
from mcp_gateway.front.remembered_handshake import SUFFIX as REMEMBERED_SUFFIX
from mcp_gateway.paths import APP_NAME

CALLS: dict[str, tuple[str, dict[str, str]]] = {
    "toolbox": ("toolbox.text_stats", {"text": "one two three"}),
    "notes": ("notes.list_notes", {}),
    "minimal": ("minimal.echo", {"message": "hi"}),
}
WARM_CALL = CALLS["toolbox"]
SESSION_SECONDS = 180.0
"""Generous bound for one mode's sessions to open and warm up on a loaded 2-CPU machine (8 standalone
gateways each start 3 servers: about 30 s seen at a load of 6)."""
GONE_SECONDS = 60.0
"""The daemon's grace, then its servers' stop, on a loaded machine."""
POLL_SECONDS = 0.05
GRACE_SECONDS = 1.0
"""The daemon's grace in this benchmark: it must be gone before the next round measures."""
P90 = 0.9
GOAL_RSS_AT_8 = 0.40
GOAL_FRONT_MB = 20.0
GOAL_EXTRA_HOP_MS = 1.0
GOAL_WARM_START = 0.25
GOAL_COLD_START = 1.0
"""The issue's goals: total RSS at 8 sessions, a front's RSS, the extra hop's median cost, start with the
daemon running and without one, each against standalone."""


@dataclass
class Mode:
    name: str
    starts: list[float] = field(default_factory=list[float])
    """The first session's start, then the others' (started together)."""
    warm_calls: list[float] = field(default_factory=list[float])
    server_processes: int = 0
    total_rss_mb: float = 0.0
    first_front_mb: float = 0.0
    other_fronts_mb: float = 0.0
    pids: set[int] = field(default_factory=set[int])
    cold_handshake: str = ""
    """Shared: whether the cold front answered from the handshake the last cold start kept, or made it."""


class Sessions:
    """One mode's sessions, held open (each in a task of the round) until `done` is set."""

    def __init__(self, params: StdioServerParameters, mode: Mode) -> None:
        self.params = params
        self.mode = mode
        self.clients: list[Client] = []
        self.done = anyio.Event()

    async def open(self, tg: anyio.abc.TaskGroup, count: int) -> None:
        await tg.start(self._one)
        async with anyio.create_task_group() as later:
            for _ in range(count - 1):
                later.start_soon(tg.start, self._one)

    async def _one(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        started = time.perf_counter()
        async with Client(self.params, mode="legacy", cache=None) as client:
            await client.list_tools()
            self.mode.starts.append(time.perf_counter() - started)
            for tool, arguments in CALLS.values():
                await call(client, tool, arguments)
            self.clients.append(client)
            task_status.started()
            await self.done.wait()


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> None:
    result = await client.call_tool("execute_tool", {"tool": tool, "arguments": arguments})
    if result.is_error:
        raise RuntimeError(f"{tool} failed: {result.content}")


def workspace(root: Path) -> Path:
    """The default workspace of a user whose `XDG_CONFIG_HOME` and `XDG_CACHE_HOME` are both `root/xdg`
    (`default_workspace_environment`), as most users run the gateway: with no `--home`."""
    home = root / "xdg" / APP_NAME
    home.mkdir(parents=True)
    write_demo_config(home)
    config = json.loads((home / "config.json").read_text())
    minimal = ROOT / "benchmarks" / "minimal_sdk_server.py"
    config["mcpServers"]["minimal"] = {"command": sys.executable, "args": [str(minimal)]}
    config["settings"] = {"daemonGraceSeconds": GRACE_SECONDS, "startupMetadataCheck": False}
    (home / "config.json").write_text(json.dumps(config))
    refresh_catalog(home)
    return home


def parameters(home: Path, runtime: Path, mode: str) -> StdioServerParameters:
    env = gateway_environment() | default_workspace_environment(home)
    env["MCP_GATEWAY_RUNTIME_DIR"] = str(runtime / "mcp-gateway")
    if mode == "standalone":
        env["MCP_GATEWAY_STANDALONE"] = "1"
    else:
        env.pop("MCP_GATEWAY_STANDALONE", None)
    command, *args = gateway_program()
    return StdioServerParameters(command=command, args=args, env=env)


def default_workspace_environment(home: Path) -> dict[str, str]:
    """What makes `home` (`workspace`) the default workspace, where platformdirs finds it."""
    return {"XDG_CONFIG_HOME": str(home.parent), "XDG_CACHE_HOME": str(home.parent)}


async def measure(home: Path, runtime: Path, sessions: int, calls: int) -> tuple[Mode, Mode]:
    alone, shared = Mode("standalone"), Mode("shared")
    opened = [Sessions(parameters(home, runtime, mode.name), mode) for mode in (alone, shared)]
    try:
        with anyio.fail_after(SESSION_SECONDS * 3):
            async with anyio.create_task_group() as tg:
                for each in opened:
                    before = descendants(os.getpid())
                    await each.open(tg, sessions)
                    _count(each.mode, descendants(os.getpid()) - before)
                for turn in range(calls):
                    for index in range(sessions):
                        pair = [opened[0], opened[1]] if (turn + index) % 2 == 0 else [opened[1], opened[0]]
                        for each in pair:
                            began = time.perf_counter()
                            await call(each.clients[index], *WARM_CALL)
                            each.mode.warm_calls.append(time.perf_counter() - began)
                for each in opened:
                    each.done.set()
    finally:
        await _poll(lambda: not any(is_alive(pid) for pid in alone.pids | shared.pids), GONE_SECONDS)
    return alone, shared


def _count(mode: Mode, processes: set[int]) -> None:
    """What `mode` started: its gateways or its fronts and daemon, and every server behind them."""
    argvs = {pid: command_line(pid) for pid in processes}
    gateways = {pid for pid, argv in argvs.items() if _is_gateway(argv)}
    daemons = {pid for pid in gateways if "daemon" in argvs[pid] and "--socket" in argvs[pid]}
    fronts = gateways - daemons
    sizes = {pid: rss_mb(pid) or 0.0 for pid in processes}
    mode.pids = set(processes)
    mode.server_processes = len(processes - gateways)
    mode.total_rss_mb = sum(sizes.values())
    first = {info.ppid for pid in daemons if (info := process_info(pid)) is not None} & fronts
    mode.first_front_mb = max((sizes[pid] for pid in first), default=0.0)
    mode.other_fronts_mb = max((sizes[pid] for pid in fronts - first), default=0.0)


def _is_gateway(argv: list[str]) -> bool:
    """The console script (run by its interpreter) or `python -m mcp_gateway` (the daemon); not the demo's
    servers, which are modules of the package too (`python -m mcp_gateway.demo...`)."""
    return any(Path(arg).name == "mcp-gateway" for arg in argv[:2]) or argv[1:3] == ["-m", "mcp_gateway"]


async def _poll(condition: Callable[[], bool], seconds: float) -> None:
    """Until `condition` holds (processes: nothing to wait on but /proc); TimeoutError after."""
    with anyio.fail_after(seconds):
        while True:
            if condition():
                return
            await anyio.sleep(POLL_SECONDS)


def median_ms(values: Sequence[float]) -> float:
    return statistics.median(values) * 1000


def p90_ms(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(P90 * len(ordered)))] * 1000


def later(mode: Mode) -> float | None:
    return statistics.median(mode.starts[1:]) if len(mode.starts) > 1 else None


def report(rounds: Sequence[tuple[int, Mode, Mode]]) -> str:
    lines = [
        "sessions  mode        servers  total RSS  first front  other fronts  first start  later starts"
        "  warm call median / p90",
    ]
    for sessions, *modes in rounds:
        for m in modes:
            rest = later(m)
            lines.append(
                f"{sessions:>8}  {m.name:<10}  {m.server_processes:>7}  {m.total_rss_mb:>6.0f} MB  "
                f"{m.first_front_mb:>8.1f} MB  {m.other_fronts_mb:>9.1f} MB  {m.starts[0]:>9.3f} s  "
                f"{'-' if rest is None else f'{rest:.3f} s':>12}  "
                f"{median_ms(m.warm_calls):>8.2f} / {p90_ms(m.warm_calls):.2f} ms"
            )
    lines += ["", "shared against standalone, same sessions:"]
    for sessions, alone, shared in rounds:
        words = [
            f"servers {shared.server_processes} vs {alone.server_processes}",
            f"RSS {shared.total_rss_mb / alone.total_rss_mb:.0%}",
            f"first start (cold daemon, handshake {shared.cold_handshake}) {shared.starts[0] / alone.starts[0]:.0%}",
        ]
        shared_later, alone_later = later(shared), later(alone)
        if shared_later is not None and alone_later is not None:
            words.append(f"start with the daemon running {shared_later / alone_later:.0%}")
        words.append(f"warm call {median_ms(shared.warm_calls) - median_ms(alone.warm_calls):+.2f} ms median")
        lines.append(f"  {sessions} sessions: " + ", ".join(words))
    return "\n".join([*lines, "", *goals(rounds)])


def goals(rounds: Sequence[tuple[int, Mode, Mode]]) -> list[str]:
    """The issue's goals, each met or missed in this run (RSS at the largest count of sessions measured)."""
    largest, alone_at, shared_at = max(rounds, key=lambda r: r[0])
    starts = [
        (shared_later / alone_later)
        for _, alone, shared in rounds
        if (shared_later := later(shared)) is not None and (alone_later := later(alone)) is not None
    ]
    front = max(max(s.first_front_mb, s.other_fronts_mb) for _, _, s in rounds)
    checks = [
        ("processes = servers used", all(s.server_processes == len(CALLS) for _, _, s in rounds), ""),
        (
            f"total RSS at {largest} sessions <= {GOAL_RSS_AT_8:.0%}",
            shared_at.total_rss_mb / alone_at.total_rss_mb <= GOAL_RSS_AT_8,
            f"{shared_at.total_rss_mb / alone_at.total_rss_mb:.0%}",
        ),
        (f"a front <= {GOAL_FRONT_MB:g} MB", front <= GOAL_FRONT_MB, f"largest {front:.1f} MB"),
        *[
            (
                f"extra hop <= {GOAL_EXTRA_HOP_MS:g} ms median ({sessions} sessions)",
                (extra := median_ms(s.warm_calls) - median_ms(a.warm_calls)) <= GOAL_EXTRA_HOP_MS,
                f"{extra:+.2f} ms",
            )
            for sessions, a, s in rounds
        ],
        _by_median(f"start with the daemon running <= {GOAL_WARM_START:.0%}", starts, GOAL_WARM_START),
        _by_median(
            f"cold start no slower than standalone (<= {GOAL_COLD_START:.0%})",
            [s.starts[0] / a.starts[0] for _, a, s in rounds],
            GOAL_COLD_START,
        ),
        *[
            _by_median(
                f"  of which the handshake {how} (<= {GOAL_COLD_START:.0%})",
                [s.starts[0] / a.starts[0] for _, a, s in rounds if s.cold_handshake == how],
                GOAL_COLD_START,
            )
            for how in ("made", "remembered")
        ],
    ]
    return ["goals:"] + [f"  {'met   ' if met else 'MISSED'}  {what}  {said}".rstrip() for what, met, said in checks]


def _by_median(what: str, ratios: Sequence[float], goal: float) -> tuple[str, bool, str]:
    """A start-time goal judged by the median of its samples (one per round: repeat a session count for
    more): a single start on a shared machine is one draw of its noise."""
    if not ratios:
        return (what, False, "no sample: give a session count above 1")
    median = statistics.median(ratios)
    samples = ", ".join(f"{ratio:.0%}" for ratio in ratios)
    return (f"{what}, median of {len(ratios)}", median <= goal, f"{median:.0%} ({samples})")


async def run(session_counts: Sequence[int], calls: int) -> list[tuple[int, Mode, Mode]]:
    rounds: list[tuple[int, Mode, Mode]] = []
    compile_package()
    root = Path(tempfile.mkdtemp(prefix="mgw-bench-", dir="/tmp"))  # short: a socket path is at most 104 bytes
    try:
        home = workspace(root)
        runtime = root / "run"  # one, as a user has: each round's daemon has gone before the next round starts
        runtime.mkdir(mode=0o700)
        for sessions in session_counts:  # a count may be repeated, for more samples
            remembered = any((runtime / "mcp-gateway").glob(f"*{REMEMBERED_SUFFIX}"))
            alone, shared = await measure(home, runtime, sessions, calls)
            shared.cold_handshake = "remembered" if remembered else "made"
            rounds.append((sessions, alone, shared))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return rounds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.sharing", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--calls", type=int, default=20, help="warm execute_tool calls per session and mode")
    args = parser.parse_args(argv)
    print(report(anyio.run(run, args.sessions, args.calls)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
