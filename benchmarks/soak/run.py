"""One soak, start to end: refresh the catalog, run the client sessions in a runtime directory of the soak's
own, wait for every process they started to go by itself (the fronts, the daemon once its grace has passed,
the servers it stopped), kill those that did not, then count what the logs say: spawns per server, idle stops,
the cancellations the servers received, the fronts' stderr (a private daemon's is its session's).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.bench_workspace import spawned
from benchmarks.gateway_runtime import private_runtime
from benchmarks.gateway_session import GATEWAY_STDERR, refresh_catalog
from benchmarks.soak.driver import Session, run_session
from benchmarks.soak.leaks import describe_process, kill_leftovers, wait_for_leftovers
from benchmarks.soak.outcomes import Outcome
from benchmarks.soak.plan import Options
from benchmarks.soak.workspace import FakeServer
from mcp_gateway.front.daemon_log import DAEMON_LOG
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
    """The gateway processes of the run: the daemon and the session fronts."""
    return {pid for pid in (session.daemon_pid, *session.front_pids) if pid is not None}


def gateway_stderr(home: Path) -> list[str]:
    """What the gateway wrote to stderr: the fronts' (a private daemon's is its session's), then the shared
    daemon's, which is the workspace's `logs/daemon.log`."""
    logs = [home / GATEWAY_STDERR, Workspace.from_environment(home).logs_dir / DAEMON_LOG]
    return [line for log in logs if log.exists() for line in log.read_text(errors="replace").splitlines()]


async def soak(home: Path, servers: Sequence[FakeServer], options: Options) -> Report:
    refresh_catalog(home)
    after_refresh = spawn_counts(servers)
    session = Session()
    marker = str(home)
    async with private_runtime() as runtime:  # whatever is left of it at its end is stopped
        try:
            await run_session(home, runtime, servers, options, session)
            # The clients are gone: the fronts saw stdin EOF, and the daemon, its last session gone (the shared
            # one after its grace), must have stopped every server it started, and itself.
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
        gateway_stderr=gateway_stderr(home),
    )
