"""The daemon as the rest of the gateway knows it: the sessions it serves and the state file it keeps for `status`.

The daemon process itself (its door, each front's hello, each session's MCP server, its shutdown) is
`server/`, which serves every session, shared or private. What that process knows of itself is here:
`DaemonSessions`, its one registry of sessions (who each is, its calls in flight, whether the daemon is idle),
and `keep_state`, which keeps `run/daemon-<pid>.state` true for `mcp-gateway status` in another process, which
reads it with `read_states` and `runs` (`state_file`). This package imports nothing of `service`, `server` or
`cli`: the service's `status` and the server's daemon both stand on it.
"""

from mcp_gateway.daemon.sessions import DaemonSessions, keep_state
from mcp_gateway.daemon.state_file import DaemonState, ProcessEntry, SessionEntry, read_states, runs

__all__ = ["DaemonSessions", "DaemonState", "ProcessEntry", "SessionEntry", "keep_state", "read_states", "runs"]
