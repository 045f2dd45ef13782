"""The gateway as the daemon serves it: the same one door, which also knows its sessions and what runs for them.

Two additions to `Gateway`, both for the daemon's state file (`service/daemon_state.py`):
- `execute` notes which server the session being served (`DaemonSessions`) uses, before the call goes on
  exactly as a standalone gateway's does (the tool is resolved once more for it: a lookup in the catalog,
  since the call's own resolution has listed the server).
- `processes()`: per server, the process the pool runs for it, its state, its calls in flight and the
  sessions that use it. `pool_processes` is the one place that reads the pool for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from mcp_gateway.config import GatewayConfig
from mcp_gateway.downstream.asking import Asking
from mcp_gateway.downstream.connection import ProgressCallback
from mcp_gateway.downstream.pool import Pool
from mcp_gateway.downstream.server_state import State
from mcp_gateway.json_object import JsonObject
from mcp_gateway.paths import Workspace
from mcp_gateway.service.daemon_record import ProcessEntry
from mcp_gateway.service.daemon_sessions import DaemonSessions
from mcp_gateway.service.gateway import Gateway


class DaemonGateway(Gateway):
    def __init__(self, workspace: Workspace, config: GatewayConfig, sessions: DaemonSessions) -> None:
        super().__init__(workspace, config, load_in_background=True)
        self.workspace = workspace
        self.sessions = sessions

    async def execute(
        self,
        tool: str,
        arguments: JsonObject,
        *,
        server: str | None = None,
        on_progress: ProgressCallback | None = None,
        asking: Asking | None = None,
    ) -> JsonObject:
        resolved = await self._resolver.tool(tool, server)
        self.sessions.using(resolved.server)
        return await super().execute(tool, arguments, server=server, on_progress=on_progress, asking=asking)

    def processes(self) -> tuple[ProcessEntry, ...]:
        """What the pool runs for each enabled server now, with the sessions that use it."""
        return pool_processes(self._pool, self.config.enabled_servers, self.sessions.users_of)


def pool_processes(
    pool: Pool, servers: Iterable[str], users_of: Callable[[str], tuple[int, ...]]
) -> tuple[ProcessEntry, ...]:
    """A process per server the pool has started (starting, ready, draining or backing off), from
    `Pool.status`: one supervisor, so at most one process, per server."""
    processes: list[ProcessEntry] = []
    for server in servers:
        status = pool.status(server)
        if status.state in (State.IDLE, State.STOPPED) and status.pid is None:
            continue
        processes.append(ProcessEntry(server, status.pid, status.state.value, status.in_flight, users_of(server)))
    return tuple(processes)
