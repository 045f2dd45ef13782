"""One soak, start to end: refresh the catalog, run the client session, wait for every process it started
to go (and kill those that did not), then count what the logs say: spawns per server, idle stops, the
cancellations the servers received, the gateway's stderr.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.bench_workspace import spawned
from benchmarks.gateway_session import GATEWAY_STDERR, refresh_catalog
from benchmarks.soak.driver import Session, run_session
from benchmarks.soak.leaks import describe_process, kill_leftovers, wait_for_leftovers
from benchmarks.soak.outcomes import Outcome
from benchmarks.soak.plan import Options
from benchmarks.soak.workspace import FakeServer
from mcp_gateway.paths import Workspace

IDLE_STOP_NOTE = "s idle"
"""In the line the gateway notes in a server's log when it stops it for idleness ("stopping after 3s idle")."""


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


def count_lines(paths: Sequence[Path], needle: str = "") -> int:
    return sum(
        sum(needle in line for line in path.read_text(errors="replace").splitlines()) for path in paths if path.exists()
    )


def spawn_counts(servers: Sequence[FakeServer]) -> dict[str, int]:
    return {server.name: len(spawned(server.spawn_log)) for server in servers}


def gateways(session: Session) -> set[int]:
    """The gateway processes of the run: the standalone gateway, or the daemon and its session fronts."""
    return {pid for pid in (session.gateway_pid, *session.front_pids) if pid is not None}


async def soak(home: Path, servers: Sequence[FakeServer], options: Options) -> Report:
    refresh_catalog(home)
    after_refresh = spawn_counts(servers)
    session = Session()
    marker = str(home)
    try:
        await run_session(home, servers, options, session)
        # The client is gone: the gateway saw stdin EOF and must have stopped every server it started.
        found = await wait_for_leftovers(servers, gateways(session), marker)
        leaked = [describe_process(info, gateways(session)) for info in found]
    finally:
        kill_leftovers(servers, gateways(session), marker)
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
