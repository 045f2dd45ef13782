"""The shared daemon against standalone sessions, side by side in one run: what several sessions of one
workspace cost.

Every session is a front (what a client starts as `mcp-gateway`); shared, the fronts of a workspace share one
daemon, which the first starts (what a user gets); standalone, each front starts a private daemon of its own,
gone with its session. For each count of concurrent sessions (1, 4 and 8 by default: the official SDK client
starting `mcp-gateway` with no `--home`, as most clients do, its default workspace placed by `XDG_CONFIG_HOME`),
each calling a tool of each of three servers (the demo's toolbox and notes, and the SDK's smallest server), it
measures in each mode:
- downstream server processes, and daemons, once every session has called each server;
- the total resident memory of everything the mode started (fronts, daemons, servers, and each apart), the
  first front (which started the shared daemon, and answered the handshake itself meanwhile) and the largest
  of the others;
- session start to answered `tools/list`: the first session alone (a cold daemon, when shared), then the
  others started together (the daemon running); the minimal SDK server (`benchmarks/minimal_sdk_server.py`)
  is then started alike, once alone and the others together, as the baseline of issue 25's start goal (with
  the daemon running, at most a quarter of its time; `benchmarks.latency` pair 3 judges it per workspace, in
  a rotation);
- warm `execute_tool` round trips, median and 90th percentile, one call at a time, the two modes' sessions
  taking turns (the order swapped every round) so that the machine's noise falls on both alike. Both go
  through a front and a daemon: the difference is what sharing a daemon costs a call (latency's pair 1 sets
  them against calling the server directly).
Standalone sessions open first and stay open, idle, while the shared ones open. The catalog is refreshed
once, so no session lists any server at start. Ratios (shared ÷ standalone) are the result, and the last
lines say which of the goals were met: the machine is shared and noisy, ratios much less so. The package is
compiled to bytecode first, as an install does (`compile_package`). All rounds share one runtime directory of
the benchmark's own, as a user's sessions do: the first cold start makes its handshake, the later ones answer
from the one it kept (`front.remembered_handshake`) unless something it was made from changed; each round says
which. Every daemon there is stopped before the benchmark ends.

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
from typing import Any, NamedTuple

import anyio
import anyio.abc
from mcp import Client, StdioServerParameters

from benchmarks.gateway_processes import FRONT, PRIVATE_DAEMON, SHARED_DAEMON, describe
from benchmarks.gateway_runtime import SHARED, STANDALONE, Runtime, stop_daemons
from benchmarks.gateway_runtime import Mode as GatewayMode
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
MINIMAL_SERVER = ROOT / "benchmarks" / "minimal_sdk_server.py"
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
GOAL_SHARING_MS = 1.0
GOAL_WARM_START = 0.25
GOAL_COLD_START = 1.0
"""The goals: total RSS at 8 sessions, a front's RSS, what sharing a daemon adds to a warm call's median, each
against standalone; start with the daemon running against the minimal SDK server started alike (issue 25), and
without one against standalone."""


@dataclass
class Mode:
    name: GatewayMode
    starts: list[float] = field(default_factory=list[float])
    """The first session's start, then the others' (started together)."""
    warm_calls: list[float] = field(default_factory=list[float])
    server_processes: int = 0
    daemons: int = 0
    total_rss_mb: float = 0.0
    fronts_mb: float = 0.0
    daemons_mb: float = 0.0
    servers_mb: float = 0.0
    first_front_mb: float = 0.0
    other_fronts_mb: float = 0.0
    pids: set[int] = field(default_factory=set[int])
    cold_handshake: str = ""
    """Shared: whether the cold front answered from the handshake the last cold start kept, or made it."""


class Round(NamedTuple):
    """One count of sessions, measured in both modes, and the minimal SDK server's starts beside them."""

    sessions: int
    alone: Mode
    shared: Mode
    minimal: list[float]
    """The minimal SDK server started as the sessions were: once alone, then the others together."""


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


async def minimal_starts(count: int) -> list[float]:
    """Start to an answered `tools/list` of the minimal SDK server (`benchmarks/minimal_sdk_server.py`), started
    as the sessions are: once alone, then `count - 1` together."""
    params = StdioServerParameters(command=sys.executable, args=[str(MINIMAL_SERVER)], env=gateway_environment())
    starts: list[float] = []

    async def one() -> None:
        started = time.perf_counter()
        async with Client(params, mode="legacy", cache=None) as client:
            await client.list_tools()
            starts.append(time.perf_counter() - started)

    with anyio.fail_after(SESSION_SECONDS):
        await one()
        async with anyio.create_task_group() as together:
            for _ in range(count - 1):
                together.start_soon(one)
    return starts


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
    config["mcpServers"]["minimal"] = {"command": sys.executable, "args": [str(MINIMAL_SERVER)]}
    config["settings"] = {"daemonGraceSeconds": GRACE_SECONDS, "startupMetadataCheck": False}
    (home / "config.json").write_text(json.dumps(config))
    refresh_catalog(home)
    return home


def parameters(home: Path, runtime: Runtime, mode: GatewayMode) -> StdioServerParameters:
    env = runtime.environment(gateway_environment() | default_workspace_environment(home), mode)
    command, *args = gateway_program()
    return StdioServerParameters(command=command, args=args, env=env)


def default_workspace_environment(home: Path) -> dict[str, str]:
    """What makes `home` (`workspace`) the default workspace, where platformdirs finds it."""
    return {"XDG_CONFIG_HOME": str(home.parent), "XDG_CACHE_HOME": str(home.parent)}


async def measure(home: Path, runtime: Runtime, sessions: int, calls: int) -> tuple[Mode, Mode]:
    alone, shared = Mode(STANDALONE), Mode(SHARED)
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
    """What `mode` started: its fronts, its daemons (the shared one, or one private daemon per front), and
    every server behind them."""
    roles = {pid: None if (found := describe(command_line(pid))) is None else found.role for pid in processes}
    fronts = {pid for pid, role in roles.items() if role == FRONT}
    daemons = {pid for pid, role in roles.items() if role in (SHARED_DAEMON, PRIVATE_DAEMON)}
    servers = processes - fronts - daemons
    sizes = {pid: rss_mb(pid) or 0.0 for pid in processes}
    mode.pids = set(processes)
    mode.server_processes, mode.daemons = len(servers), len(daemons)
    mode.total_rss_mb = sum(sizes.values())
    mode.fronts_mb, mode.daemons_mb, mode.servers_mb = (
        sum(sizes[pid] for pid in group) for group in (fronts, daemons, servers)
    )
    # The front that started the shared daemon (its parent while it lives); a standalone front has no such part.
    shared = {pid for pid in daemons if roles[pid] == SHARED_DAEMON}
    first = {info.ppid for pid in shared if (info := process_info(pid)) is not None} & fronts
    mode.first_front_mb = max((sizes[pid] for pid in first), default=0.0)
    mode.other_fronts_mb = max((sizes[pid] for pid in fronts - first), default=0.0)


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


def later(starts: Sequence[float]) -> float | None:
    """The median of the starts after the first (those made together, the daemon running when shared)."""
    return statistics.median(starts[1:]) if len(starts) > 1 else None


def report(rounds: Sequence[Round]) -> str:
    lines = [
        "sessions  mode        servers  daemons  total RSS (fronts + daemons + servers)  first front  other fronts"
        "  first start  later starts  warm call median / p90",
    ]
    for r in rounds:
        for m in (r.alone, r.shared):
            rest = later(m.starts)
            parts = f"({m.fronts_mb:.0f} + {m.daemons_mb:.0f} + {m.servers_mb:.0f})"
            lines.append(
                f"{r.sessions:>8}  {m.name:<10}  {m.server_processes:>7}  {m.daemons:>7}  {m.total_rss_mb:>6.0f} MB "
                f"{parts:<23}  {m.first_front_mb:>8.1f} MB  {m.other_fronts_mb:>9.1f} MB  {m.starts[0]:>9.3f} s  "
                f"{'-' if rest is None else f'{rest:.3f} s':>12}  "
                f"{median_ms(m.warm_calls):>8.2f} / {p90_ms(m.warm_calls):.2f} ms"
            )
        rest = later(r.minimal)
        lines.append(
            f"{r.sessions:>8}  {'minimal SDK server, started alike':<92}{r.minimal[0]:>9.3f} s  "
            f"{'-' if rest is None else f'{rest:.3f} s':>12}"
        )
    lines += ["", "shared against standalone (and the minimal SDK server), same sessions:"]
    for r in rounds:
        alone, shared = r.alone, r.shared
        words = [
            f"servers {shared.server_processes} vs {alone.server_processes}",
            f"daemons {shared.daemons} vs {alone.daemons}",
            f"RSS {shared.total_rss_mb / alone.total_rss_mb:.0%}",
            f"first start (cold daemon, handshake {shared.cold_handshake}) {shared.starts[0] / alone.starts[0]:.0%}",
        ]
        shared_later, alone_later, minimal_later = later(shared.starts), later(alone.starts), later(r.minimal)
        if shared_later is not None and alone_later is not None and minimal_later is not None:
            words.append(
                f"start with the daemon running {shared_later / alone_later:.0%} of standalone's, "
                f"{shared_later / minimal_later:.0%} of the minimal server's"
            )
        words.append(f"warm call {median_ms(shared.warm_calls) - median_ms(alone.warm_calls):+.2f} ms median")
        lines.append(f"  {r.sessions} sessions: " + ", ".join(words))
    return "\n".join([*lines, "", *goals(rounds)])


def goals(rounds: Sequence[Round]) -> list[str]:
    """The goals, each met or missed in this run (RSS at the largest count of sessions measured)."""
    largest = max(rounds, key=lambda r: r.sessions)
    alone_at, shared_at = largest.alone, largest.shared
    starts = [
        shared_later / minimal_later
        for r in rounds
        if (shared_later := later(r.shared.starts)) is not None and (minimal_later := later(r.minimal)) is not None
    ]
    front = max(max(r.shared.first_front_mb, r.shared.other_fronts_mb) for r in rounds)
    checks = [
        ("processes = servers used", all(r.shared.server_processes == len(CALLS) for r in rounds), ""),
        ("one daemon, whatever the sessions", all(r.shared.daemons == 1 for r in rounds), ""),
        (
            f"total RSS at {largest.sessions} sessions <= {GOAL_RSS_AT_8:.0%} of standalone",
            shared_at.total_rss_mb / alone_at.total_rss_mb <= GOAL_RSS_AT_8,
            f"{shared_at.total_rss_mb / alone_at.total_rss_mb:.0%}",
        ),
        (f"a front <= {GOAL_FRONT_MB:g} MB", front <= GOAL_FRONT_MB, f"largest {front:.1f} MB"),
        *[
            (
                f"sharing adds <= {GOAL_SHARING_MS:g} ms to a warm call's median ({r.sessions} sessions)",
                (extra := median_ms(r.shared.warm_calls) - median_ms(r.alone.warm_calls)) <= GOAL_SHARING_MS,
                f"{extra:+.2f} ms",
            )
            for r in rounds
        ],
        _by_median(
            f"start with the daemon running <= {GOAL_WARM_START:.0%} of the minimal SDK server's",
            starts,
            GOAL_WARM_START,
        ),
        _by_median(
            f"cold start no slower than standalone (<= {GOAL_COLD_START:.0%})",
            [r.shared.starts[0] / r.alone.starts[0] for r in rounds],
            GOAL_COLD_START,
        ),
        *[
            _by_median(
                f"  of which the handshake {how} (<= {GOAL_COLD_START:.0%})",
                [r.shared.starts[0] / r.alone.starts[0] for r in rounds if r.shared.cold_handshake == how],
                GOAL_COLD_START,
            )
            for how in ("made", "remembered")
        ],
    ]
    return ["goals:"] + [f"  {'PASS' if met else 'MISS'}  {what}  {said}".rstrip() for what, met, said in checks]


def _by_median(what: str, ratios: Sequence[float], goal: float) -> tuple[str, bool, str]:
    """A start-time goal judged by the median of its samples (one per round: repeat a session count for
    more): a single start on a shared machine is one draw of its noise."""
    if not ratios:
        return (what, False, "no sample: give a session count above 1")
    median = statistics.median(ratios)
    samples = ", ".join(f"{ratio:.0%}" for ratio in ratios)
    return (f"{what}, median of {len(ratios)}", median <= goal, f"{median:.0%} ({samples})")


async def run(session_counts: Sequence[int], calls: int) -> list[Round]:
    rounds: list[Round] = []
    compile_package()
    root = Path(tempfile.mkdtemp(prefix="mgw-bench-", dir="/tmp"))  # short: a socket path is at most 104 bytes
    # One runtime, as a user has: each round's daemon has gone before the next round starts.
    runtime = Runtime(root / "run")
    try:
        home = workspace(root)
        for sessions in session_counts:  # a count may be repeated, for more samples
            remembered = any(runtime.directory.glob(f"*{REMEMBERED_SUFFIX}"))
            alone, shared = await measure(home, runtime, sessions, calls)
            shared.cold_handshake = "remembered" if remembered else "made"
            rounds.append(Round(sessions, alone, shared, await minimal_starts(sessions)))
    finally:
        with anyio.CancelScope(shield=True):
            await stop_daemons(runtime)
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
