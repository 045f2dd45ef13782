"""The gateway as the daemon serves it: the same one door, which also knows its sessions and what runs for them.

One addition to `Gateway`, for the daemon's state file (`service/daemon_state.py`): `processes()`, per server
each process the pool runs for it (one per resolved definition, `downstream/slots.py`), its state, its calls
in flight and the open sessions that use it. Each call carries its session's `Origin`, whose label is the
session's id, so the pool itself knows who used which process; `pool_processes` is the one place that reads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set

from mcp_gateway.config import GatewayConfig
from mcp_gateway.downstream.server_state import State
from mcp_gateway.downstream.slots import ProcessView
from mcp_gateway.paths import Workspace
from mcp_gateway.service.daemon_record import ProcessEntry
from mcp_gateway.service.daemon_sessions import DaemonSessions
from mcp_gateway.service.gateway import Gateway


class DaemonGateway(Gateway):
    def __init__(
        self,
        workspace: Workspace,
        config: GatewayConfig,
        sessions: DaemonSessions,
        *,
        config_problem: str | None = None,
    ) -> None:
        super().__init__(workspace, config, load_in_background=True, config_problem=config_problem)
        self.workspace = workspace
        self.sessions = sessions

    def processes(self) -> tuple[ProcessEntry, ...]:
        """What the pool runs for each enabled server now, with the open sessions that use it."""
        return pool_processes(self._pool.processes(), self.config.enabled_servers, self.sessions.open_ids())


def pool_processes(
    views: Mapping[str, Sequence[ProcessView]], servers: Iterable[str], open_sessions: Set[int]
) -> tuple[ProcessEntry, ...]:
    """A process per supervisor the pool has started for an enabled server (starting, ready, draining or
    backing off; one per resolved definition), with the open sessions that made calls or subscriptions on it:
    a session's label in the pool is its id (`server/daemon.py`)."""
    processes: list[ProcessEntry] = []
    for server in servers:
        for view in views.get(server, ()):
            if view.state in (State.IDLE, State.STOPPED) and view.pid is None:
                continue
            users = sorted(int(label) for label in view.sessions if label.isdigit() and int(label) in open_sessions)
            processes.append(ProcessEntry(server, view.pid, view.state.value, view.calls_in_flight, tuple(users)))
    return tuple(processes)
