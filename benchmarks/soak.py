"""Soak test of the gateway's downstream pool: many concurrent calls of every kind, then count what went wrong.

    python -m benchmarks.soak --seconds 60 [--servers 4] [--concurrency 16] [--seed 1] [--json] [--keep]

Builds a throw-away workspace with K fake stdio servers (`fixtures/fake_mcp_server.py`; some spawn a
grandchild, some ignore EOF and SIGTERM), runs `mcp-gateway refresh`, then starts the real gateway as a
stdio MCP server and drives it with the official SDK client. C workers keep calling `execute_tool` for
the whole run, each call a random kind (seeded): fast echo, slow sleep, failing tool, crashing server,
cancelled by the client, timed out by the gateway, big result. One server at a time rests, so the short
`idleTimeout` reaps servers during the run as well.

Measured and reported:
- calls made, calls/s, results by kind and outcome, latency per kind;
- lost results: calls whose await never returned within requestTimeout + 30 s (must be 0);
- unexpected results: wrong content, a result for another call, an exception, an outcome the kind cannot
  have (a lost connection only counts as expected when a crash of that server overlapped the call);
- gateway RSS after warm-up and at the end, its CPU time during the run, downstream spawns and idle stops;
- leaked processes after the client disconnects: every spawned server, and every member of its process
  group, still alive ~10 s later (must be 0). Leftovers are SIGKILLed, so a soak never leaves any behind.
Exits 1 when anything was lost, leaked or unexpected.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import Client

from benchmarks.gateway_session import GatewaySessionError, gateway_client, refresh_catalog, wait_for_gateway_pid
from benchmarks.procfs import command_line, cpu_seconds
from mcp_gateway.paths import Workspace

ROOT = Path(__file__).resolve().parent.parent
FAKE_SERVER = ROOT / "fixtures" / "fake_mcp_server.py"

REQUEST_TIMEOUT_MS = 2000
IDLE_TIMEOUT_MINUTES = 0.05
SETTINGS: dict[str, Any] = {
    "requestTimeoutMs": REQUEST_TIMEOUT_MS,
    "failureBackoffMs": 200,
    "idleTimeout": IDLE_TIMEOUT_MINUTES,
}
LOST_AFTER_SECONDS = REQUEST_TIMEOUT_MS / 1000 + 30
"""A call still unanswered after this long never will be: its result was lost."""
REST_SECONDS = 8.0
"""How long each server in turn gets no calls: the idle timeout (3 s) plus the longest call, with margin."""
BIG_BYTES = 200_000
CANCEL_SLEEP_SECONDS = 5.0
LEAK_WAIT_SECONDS = 10.0
POLL_SECONDS = 0.1
EXAMPLES_SHOWN = 5
GATEWAY_STDERR = "gateway.stderr.log"
IDLE_STOP_NOTE = "s idle"
"""In the line the gateway notes in a server's log when it stops it for idleness ("stopping after 3s idle")."""
STDERR_LINES_SHOWN = 5

Kind = Literal["fast", "slow", "failing", "crashing", "cancelled", "timed_out", "big"]
Outcome = Literal["ok", "tool_error", "connection_lost", "timeout", "cancelled", "backoff", "unexpected", "lost"]
OUTCOMES: tuple[Outcome, ...] = (
    "ok",
    "tool_error",
    "connection_lost",
    "timeout",
    "cancelled",
    "backoff",
    "unexpected",
    "lost",
)
KIND_WEIGHTS: dict[Kind, int] = {
    "fast": 30,
    "slow": 15,
    "failing": 10,
    "big": 10,
    "cancelled": 10,
    "timed_out": 5,
    # Each crash also fails every call in flight on that server, so crashes stay rare.
    "crashing": 3,
}
EXPECTED: dict[Kind, Outcome] = {
    "fast": "ok",
    "slow": "ok",
    "failing": "tool_error",
    "big": "ok",
    "cancelled": "cancelled",
    "timed_out": "timeout",
    "crashing": "connection_lost",
}


# The workspace.


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


class SoakError(Exception):
    """The soak could not run at all (as opposed to finding problems, which it reports)."""


# Processes, from /proc.


@dataclass(frozen=True)
class ProcessInfo:
    pid: int
    ppid: int
    pgid: int
    state: str


def process_info(pid: int) -> ProcessInfo | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name may hold spaces and parentheses; the fields after the last ')' are fixed.
    state, ppid, pgid = stat[stat.rindex(")") + 2 :].split()[:3]
    return ProcessInfo(pid, int(ppid), int(pgid), state)


def all_processes() -> Iterator[ProcessInfo]:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (info := process_info(int(entry.name))) is not None:
            yield info


def is_alive(pid: int) -> bool:
    """A zombie (exited, not yet reaped) counts as gone."""
    info = process_info(pid)
    return info is not None and info.state != "Z"


def mentions(pid: int, marker: str) -> bool:
    """Whether the process's environment names `marker`; pids are reused, this proves the process is ours."""
    try:
        return marker.encode() in Path(f"/proc/{pid}/environ").read_bytes()
    except PermissionError:
        return True  # cannot tell: count it rather than miss a leak
    except OSError:
        return False  # gone


def rss_mb(pid: int) -> float | None:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return None


def read_pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def leftovers(servers: Sequence[FakeServer], gateway_pid: int | None, marker: str) -> list[ProcessInfo]:
    """Live processes we started: spawned servers, members of their groups, and the gateway itself."""
    spawned = {pid for server in servers for pid in read_pids(server.spawn_log)}
    found: list[ProcessInfo] = []
    for info in all_processes():
        if info.state == "Z":
            continue
        server = (info.pid in spawned or info.pgid in spawned) and mentions(info.pid, marker)
        gateway = info.pid == gateway_pid and marker in command_line(info.pid)
        if server or gateway:
            found.append(info)
    return found


async def wait_for_leftovers(servers: Sequence[FakeServer], gateway_pid: int | None, marker: str) -> list[ProcessInfo]:
    with anyio.move_on_after(LEAK_WAIT_SECONDS):
        while True:
            found = leftovers(servers, gateway_pid, marker)
            if not found:
                return found
            await anyio.sleep(POLL_SECONDS)
    return leftovers(servers, gateway_pid, marker)


def kill_leftovers(servers: Sequence[FakeServer], gateway_pid: int | None, marker: str) -> None:
    for info in leftovers(servers, gateway_pid, marker):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(info.pid, signal.SIGKILL)


def describe_process(info: ProcessInfo, gateway_pid: int | None) -> str:
    role = "gateway" if info.pid == gateway_pid else "server" if info.pid == info.pgid else "grandchild"
    return f"pid {info.pid} ({role}, group {info.pgid}, state {info.state}): {' '.join(command_line(info.pid))}"


# Calls.


@dataclass(frozen=True)
class Plan:
    """One `execute_tool` call and what must come back from it."""

    index: int
    kind: Kind
    server: str
    tool: str
    arguments: dict[str, Any]
    expected_text: str | None = None
    cancel_after: float | None = None


def unique_seconds(seconds: float, index: int) -> float:
    # The call's index in the low digits: `sleep` echoes its argument, so the answer names its call.
    return float(f"{seconds:.3f}{index % 1_000_000:06d}")


def plan_call(index: int, kind: Kind, server: str, rng: random.Random) -> Plan:
    token = f"soak-{index}-{rng.getrandbits(32):08x}"
    expected: str | None = None
    cancel_after: float | None = None
    match kind:
        case "fast":
            tool, arguments, expected = "echo", {"message": token}, token
        case "slow":
            seconds = unique_seconds(rng.uniform(0.2, 1.0), index)
            tool, arguments, expected = "sleep", {"seconds": seconds}, f"slept {seconds}"
        case "failing":
            expected = f"failed on purpose: {token}"
            tool, arguments = "fail", {"message": expected}
        case "crashing":
            tool, arguments = "crash", {}
        case "cancelled":
            tool, arguments = "sleep", {"seconds": unique_seconds(CANCEL_SLEEP_SECONDS, index)}
            cancel_after = rng.uniform(0.1, 0.5)
        case "timed_out":
            seconds = unique_seconds(REQUEST_TIMEOUT_MS / 1000 + rng.uniform(0.5, 1.5), index)
            tool, arguments = "sleep", {"seconds": seconds}
        case "big":
            tool, arguments, expected = "big", {"bytes": BIG_BYTES}, "x" * BIG_BYTES
    return Plan(index, kind, server, tool, arguments, expected, cancel_after)


@dataclass(frozen=True)
class CallRecord:
    plan: Plan
    started: float
    ended: float
    outcome: Outcome
    detail: str = ""

    @property
    def milliseconds(self) -> float:
        return (self.ended - self.started) * 1000


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(item.text for item in result.content if isinstance(item, types.TextContent))


def preview(text: str, limit: int = 160) -> str:
    return repr(text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)")


def classify(plan: Plan, result: types.CallToolResult) -> tuple[Outcome, str]:
    """The outcome the gateway reported, checked against the call that asked (names, tokens, sizes)."""
    text = text_of(result)
    named = f"'{plan.server}.{plan.tool}'" in text or (f"'{plan.server}'" in text and f"'{plan.tool}'" in text)
    if result.is_error and "did not answer within" in text:
        return ("timeout", "") if named else ("unexpected", f"timeout for another call: {preview(text)}")
    if result.is_error and "was lost while" in text:
        return ("connection_lost", "") if named else ("unexpected", f"lost for another call: {preview(text)}")
    if result.is_error and "will not be retried for" in text:
        return ("backoff", "") if f"'{plan.server}'" in text else ("unexpected", f"other backoff: {preview(text)}")
    if plan.expected_text is not None and text == plan.expected_text:
        return ("tool_error" if result.is_error else "ok"), ""
    state = "isError" if result.is_error else "ok"
    wanted = "" if plan.expected_text is None else f", expected {preview(plan.expected_text)}"
    return "unexpected", f"{state} result {preview(text)}{wanted}"


async def perform(client: Client, plan: Plan) -> tuple[Outcome, str]:
    request = {"tool": f"{plan.server}.{plan.tool}", "arguments": plan.arguments}
    if plan.cancel_after is None:
        return classify(plan, await client.call_tool("execute_tool", request))
    result: types.CallToolResult | None = None
    # Leaving the scope cancels the request: the SDK sends notifications/cancelled to the gateway.
    with anyio.move_on_after(plan.cancel_after):
        result = await client.call_tool("execute_tool", request)
    return ("cancelled", "") if result is None else classify(plan, result)


async def run_call(client: Client, plan: Plan) -> CallRecord:
    started = anyio.current_time()
    outcome: Outcome = "lost"
    detail = f"no result within {LOST_AFTER_SECONDS:g}s"
    with anyio.move_on_after(LOST_AFTER_SECONDS):
        try:
            outcome, detail = await perform(client, plan)
        except Exception as exc:  # anything the client raises is a finding, not a reason to stop
            outcome, detail = "unexpected", f"{type(exc).__name__}: {exc}"
    return CallRecord(plan, started, anyio.current_time(), outcome, detail)


def judge(records: Sequence[CallRecord]) -> list[CallRecord]:
    """Mark outcomes the call's kind cannot explain as unexpected.

    A lost connection is expected of a crash, and of any call in flight on that server while a crash
    was; backoff may follow a failed restart. Anything else must be the kind's own outcome.
    """
    crashes = [r for r in records if r.plan.kind == "crashing"]
    judged: list[CallRecord] = []
    for record in records:
        outcome = record.outcome
        acceptable = outcome in (EXPECTED[record.plan.kind], "backoff", "unexpected", "lost")
        if outcome == "connection_lost" and not acceptable:
            acceptable = any(
                c.plan.server == record.plan.server and c.started < record.ended and c.ended > record.started
                for c in crashes
            )
        if not acceptable:
            detail = f"a {record.plan.kind} call ended as {outcome}"
            if outcome == "connection_lost":
                detail += " with no crash of that server during the call"
            judged.append(replace(record, outcome="unexpected", detail=detail))
        else:
            judged.append(record)
    return judged


# The soak itself.


@dataclass
class Schedule:
    """Hands out the next call: kinds and servers drawn from one seeded RNG, in call order."""

    servers: list[str]
    rng: random.Random
    started: float
    next_index: int = 0

    def resting(self, now: float) -> str | None:
        """The server that gets no calls now, in turn, so idle reaping happens during the run."""
        if len(self.servers) < 2:
            return None
        return self.servers[int((now - self.started) / REST_SECONDS) % len(self.servers)]

    def next_plan(self, now: float) -> Plan:
        resting = self.resting(now)
        kind = self.rng.choices(list(KIND_WEIGHTS), weights=list(KIND_WEIGHTS.values()))[0]
        server = self.rng.choice([name for name in self.servers if name != resting])
        self.next_index += 1
        return plan_call(self.next_index, kind, server, self.rng)


@dataclass
class Options:
    seconds: float
    servers: int
    concurrency: int
    seed: int


@dataclass
class Session:
    """What one client session with the gateway measured; filled in as it goes, so clean-up knows the pid."""

    gateway_pid: int | None = None
    records: list[CallRecord] = field(default_factory=list[CallRecord])
    elapsed: float = 0.0
    rss_warm_mb: float | None = None
    rss_end_mb: float | None = None
    cpu_seconds: float | None = None
    aborted: str | None = None


@dataclass
class Report:
    options: Options
    session: Session
    leaked: list[str]
    refresh_spawns: int
    spawns_by_server: dict[str, int]
    downstream_cancellations: int
    idle_stops: int
    gateway_stderr: list[str]
    outcomes: Counter[Outcome] = field(init=False)

    def __post_init__(self) -> None:
        self.outcomes = Counter(record.outcome for record in self.session.records)

    @property
    def failed(self) -> bool:
        return bool(self.outcomes["lost"] or self.outcomes["unexpected"] or self.leaked or self.session.aborted)


async def warm_up(client: Client, servers: Sequence[FakeServer]) -> None:
    """One echo per server, so every server ran once before the first RSS reading."""
    for server in servers:
        plan = plan_call(0, "fast", server.name, random.Random(0))
        record = await run_call(client, plan)
        if record.outcome != "ok":
            raise SoakError(f"warm-up call to {server.name} failed: {record.outcome} {record.detail}")


async def drive(client: Client, schedule: Schedule, options: Options, gateway_pid: int) -> list[CallRecord]:
    """C workers calling until the deadline; calls in flight then are waited for (each is bounded)."""
    records: list[CallRecord] = []
    deadline = schedule.started + options.seconds

    async def worker() -> None:
        # A dead gateway would turn every further call into an instant exception: stop instead.
        while anyio.current_time() < deadline and is_alive(gateway_pid):
            records.append(await run_call(client, schedule.next_plan(anyio.current_time())))

    async with anyio.create_task_group() as workers:
        for _ in range(options.concurrency):
            workers.start_soon(worker)
    return records


async def run_session(home: Path, servers: Sequence[FakeServer], options: Options, session: Session) -> None:
    """Start the gateway, warm up, soak, read its RSS and CPU, disconnect (the gateway then stops itself)."""
    with (home / GATEWAY_STDERR).open("w") as errlog:
        async with gateway_client(home, errlog) as client:
            session.gateway_pid = pid = await wait_for_gateway_pid(home)
            await warm_up(client, servers)
            session.rss_warm_mb, cpu_warm = rss_mb(pid), cpu_seconds(pid)
            schedule = Schedule([s.name for s in servers], random.Random(options.seed), anyio.current_time())
            session.records = judge(await drive(client, schedule, options, pid))
            session.elapsed = anyio.current_time() - schedule.started
            if not is_alive(pid):
                session.aborted = "the gateway process died during the soak"
            session.rss_end_mb, cpu_end = rss_mb(pid), cpu_seconds(pid)
            if cpu_warm is not None and cpu_end is not None:
                session.cpu_seconds = cpu_end - cpu_warm


def count_lines(paths: Sequence[Path], needle: str = "") -> int:
    return sum(
        sum(needle in line for line in path.read_text(errors="replace").splitlines()) for path in paths if path.exists()
    )


def spawn_counts(servers: Sequence[FakeServer]) -> dict[str, int]:
    return {server.name: len(read_pids(server.spawn_log)) for server in servers}


async def soak(home: Path, servers: Sequence[FakeServer], options: Options) -> Report:
    refresh_catalog(home)
    after_refresh = spawn_counts(servers)
    session = Session()
    marker = str(home)
    try:
        await run_session(home, servers, options, session)
        # The client is gone: the gateway saw stdin EOF and must have stopped every server it started.
        found = await wait_for_leftovers(servers, session.gateway_pid, marker)
        leaked = [describe_process(info, session.gateway_pid) for info in found]
    finally:
        kill_leftovers(servers, session.gateway_pid, marker)
    logs = [Workspace.from_environment(home).stderr_log_path(s.name) for s in servers]
    return Report(
        options=options,
        session=session,
        leaked=leaked,
        refresh_spawns=sum(after_refresh.values()),
        spawns_by_server={name: count - after_refresh[name] for name, count in spawn_counts(servers).items()},
        downstream_cancellations=count_lines([s.cancel_log for s in servers]),
        idle_stops=count_lines(logs, IDLE_STOP_NOTE),
        gateway_stderr=(home / GATEWAY_STDERR).read_text(errors="replace").splitlines(),
    )


# Output.


def latency_ms(records: Sequence[CallRecord]) -> dict[str, float]:
    values = [record.milliseconds for record in records]
    if not values:
        return {}
    return {"p50": statistics.median(values), "max": max(values)}


def by_kind(records: Sequence[CallRecord]) -> dict[Kind, list[CallRecord]]:
    grouped: dict[Kind, list[CallRecord]] = {kind: [] for kind in KIND_WEIGHTS}
    for record in records:
        grouped[record.plan.kind].append(record)
    return grouped


def example(record: CallRecord) -> str:
    plan = record.plan
    return f"#{plan.index} {plan.kind} {plan.server}.{plan.tool} after {record.milliseconds:.0f} ms: {record.detail}"


def report_json(report: Report) -> dict[str, Any]:
    """Everything the soak found, as the --json object; the text report prints the same numbers."""
    options, session = report.options, report.session
    records = session.records
    problems = [record for record in records if record.outcome in ("unexpected", "lost")]
    return {
        "servers": options.servers,
        "concurrency": options.concurrency,
        "seed": options.seed,
        "seconds": round(session.elapsed, 2),
        "calls": len(records),
        "calls_per_second": round(len(records) / session.elapsed, 1) if session.elapsed else 0.0,
        "outcomes": {outcome: report.outcomes[outcome] for outcome in OUTCOMES},
        "by_kind": {
            kind: {
                "calls": len(group),
                "outcomes": dict(Counter(record.outcome for record in group)),
                "latency_ms": {key: round(value, 1) for key, value in latency_ms(group).items()},
            }
            for kind, group in by_kind(records).items()
        },
        "lost": report.outcomes["lost"],
        "unexpected": report.outcomes["unexpected"],
        "unexpected_examples": [example(record) for record in problems[:EXAMPLES_SHOWN]],
        "leaked_processes": len(report.leaked),
        "leaked": report.leaked,
        "gateway_rss_mb": {"warm": _round(session.rss_warm_mb), "end": _round(session.rss_end_mb)},
        "gateway_cpu_seconds": _round(session.cpu_seconds),
        "downstream_spawns": sum(report.spawns_by_server.values()),
        "downstream_spawns_by_server": report.spawns_by_server,
        "refresh_spawns": report.refresh_spawns,
        "idle_stops": report.idle_stops,
        "downstream_cancellations": report.downstream_cancellations,
        "gateway_stderr_lines": len(report.gateway_stderr),
        "aborted": session.aborted,
        "passed": not report.failed,
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def megabytes(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f} MB"


def print_outcome_table(records: Sequence[CallRecord], outcomes: Counter[Outcome]) -> None:
    columns: list[Outcome] = [outcome for outcome in OUTCOMES if outcomes[outcome]] or ["ok"]
    widths = [max(len(column), 5) + 2 for column in columns]

    def cells(counts: Counter[Outcome]) -> str:
        return "".join(f"{counts[column]:>{width}}" for column, width in zip(columns, widths, strict=True))

    header = "".join(f"{column:>{width}}" for column, width in zip(columns, widths, strict=True))
    print(f"{'kind':<11}{'calls':>7}{header}{'p50 ms':>9}{'max ms':>9}")
    for kind, group in by_kind(records).items():
        latency = latency_ms(group)
        counts: Counter[Outcome] = Counter(record.outcome for record in group)
        print(f"{kind:<11}{len(group):>7}{cells(counts)}{latency.get('p50', 0):>9.0f}{latency.get('max', 0):>9.0f}")
    print(f"{'all':<11}{len(records):>7}{cells(outcomes)}")


def print_report(report: Report) -> None:
    data = report_json(report)
    session = report.session
    print(
        f"mcp-gateway soak: {data['servers']} servers, {data['concurrency']} workers, "
        f"{data['seconds']} s, seed {data['seed']}"
    )
    print(f"calls made          {data['calls']} ({data['calls_per_second']}/s)")
    print()
    print_outcome_table(session.records, report.outcomes)
    print()
    print(f"lost results        {data['lost']}")
    print(f"unexpected          {data['unexpected']}")
    for line in data["unexpected_examples"]:
        print(f"  {line}")
    print(f"leaked processes    {data['leaked_processes']}")
    for line in report.leaked:
        print(f"  {line}")
    growth = ""
    if session.rss_warm_mb is not None and session.rss_end_mb is not None:
        growth = f" ({session.rss_end_mb - session.rss_warm_mb:+.1f} MB)"
    print(
        f"gateway RSS         {megabytes(session.rss_warm_mb)} after warm-up, "
        f"{megabytes(session.rss_end_mb)} at the end{growth}"
    )
    if session.cpu_seconds is not None and session.elapsed:
        share = session.cpu_seconds / session.elapsed
        print(f"gateway CPU         {session.cpu_seconds:.1f} s during the run ({share:.0%} of one core)")
    spawns = ", ".join(f"{name} {count}" for name, count in report.spawns_by_server.items())
    print(f"downstream spawns   {data['downstream_spawns']} ({spawns}); {report.refresh_spawns} more by refresh")
    print(f"idle stops          {report.idle_stops}")
    print(f"cancels downstream  {report.downstream_cancellations} (of cancelled and timed-out calls)")
    print(f"gateway stderr      {len(report.gateway_stderr)} lines")
    for line in report.gateway_stderr[-STDERR_LINES_SHOWN:]:
        print(f"  {line}")
    if session.aborted:
        print(f"aborted             {session.aborted}")
    print(f"verdict             {'FAIL' if report.failed else 'PASS'}")


# Entry point.


@contextlib.contextmanager
def workspace_directory(keep: bool) -> Generator[Path]:
    if keep:
        yield Path(tempfile.mkdtemp(prefix="mcp-gateway-soak-"))
        return
    with tempfile.TemporaryDirectory(prefix="mcp-gateway-soak-", ignore_cleanup_errors=True) as directory:
        yield Path(directory)


def parse_options(argv: Sequence[str] | None) -> tuple[Options, bool, bool]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to keep calling (default 30)")
    parser.add_argument("--servers", type=int, default=4, help="number of fake downstream servers (default 4)")
    parser.add_argument("--concurrency", type=int, default=16, help="concurrent calls (default 16)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the call mix (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    parser.add_argument("--keep", action="store_true", help="keep the workspace (config, logs) and say where")
    args = parser.parse_args(argv)
    if args.servers < 1 or args.concurrency < 1 or args.seconds <= 0:
        parser.error("--servers, --concurrency and --seconds must be positive")
    return Options(args.seconds, args.servers, args.concurrency, args.seed), args.json, args.keep


def main(argv: Sequence[str] | None = None) -> int:
    options, as_json, keep = parse_options(argv)
    with workspace_directory(keep) as home:
        servers = fake_servers(home, options.servers)
        write_config(home, servers)
        try:
            report = anyio.run(soak, home, servers, options)
        except (SoakError, GatewaySessionError) as error:
            print(f"soak could not run: {error}", file=sys.stderr)
            return 2
        finally:
            if keep:
                print(f"workspace kept in {home}", file=sys.stderr)
    if as_json:
        print(json.dumps(report_json(report), indent=2))
    else:
        print_report(report)
    return 1 if report.failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
