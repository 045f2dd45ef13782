"""The workspace's daemon in `mcp-gateway status`: for a person, lines in the words of the rest of `status`;
for a program (`--json`), the state as the daemon wrote it, with whether it runs.

Everything comes from `StatusReport` (the daemons' state files, judged running or stale by `service/status.py`).
The daemon's line says its pid, how long it has run, its version and socket, then one line per session (the
client's name and version from its handshake, when it connected, its calls in flight); each server's lines in
`status` then name the daemon's processes for it and the sessions that use them. A daemon SIGKILLed left its
file behind: it is said to be not running, with when it was last heard of.
"""

from __future__ import annotations

import time
from typing import Any

from mcp_gateway.cli.overview import ago
from mcp_gateway.daemon import DaemonState, ProcessEntry, SessionEntry
from mcp_gateway.service.reports import StatusReport
from mcp_gateway.wording import counted

NO_DAEMON = "daemon: not running (the next client session starts one, unless sharing is off)"
INDENT = "    "


def daemon_lines(report: StatusReport) -> list[str]:
    """The daemon's line and its sessions' lines; what is known of daemons that no longer run."""
    lines: list[str] = []
    for daemon in report.daemons:
        lines.append(f"daemon: {_daemon_words(daemon)}")
        lines += [f"{INDENT}session {session.id}: {_session_words(session)}" for session in daemon.sessions]
        if daemon.sessions_left_out:
            lines.append(f"{INDENT}and {counted(daemon.sessions_left_out, 'more session')}")
    if not report.daemons:
        lines.append(NO_DAEMON)
    lines += [
        f"daemon: not running (stale state from pid {stale.pid}, {_started(stale)}, last written "
        f"{ago(stale.written_at)}; the next daemon removes it)"
        for stale in report.stale_daemons
    ]
    return lines


def process_lines(report: StatusReport, server: str) -> list[str]:
    """The daemons' processes for `server`, each with its state and the sessions that use it."""
    lines: list[str] = []
    for daemon in report.daemons:
        names = {session.id: session.client_name for session in daemon.sessions}
        for process in daemon.processes:
            if process.server == server:
                lines.append(f"{INDENT}{_process_words(daemon, process, names)}")
    return lines


def daemons_json(report: StatusReport) -> dict[str, Any]:
    now = time.time()
    return {
        "daemons": [_daemon_json(daemon, running=True, now=now) for daemon in report.daemons],
        "staleDaemons": [_daemon_json(daemon, running=False, now=now) for daemon in report.stale_daemons],
    }


def _daemon_words(daemon: DaemonState) -> str:
    parts = [
        f"pid {daemon.pid}",
        f"up {_duration(time.time() - daemon.start)}" if daemon.start is not None else "running",
        f"mcp-gateway {daemon.version} (front protocol {daemon.front_protocol})",
        f"socket {daemon.socket}",
    ]
    if daemon.sessions:
        parts.append(counted(len(daemon.sessions) + daemon.sessions_left_out, "session"))
    elif daemon.idle_since is not None:
        left = daemon.idle_since + daemon.grace_seconds - time.time()
        parts.append(f"no session: it stops in {_duration(left)} unless one connects")
    return ", ".join(parts)


def _session_words(session: SessionEntry) -> str:
    if session.client_name is None:
        who = "a client that has not finished its handshake"
    else:
        who = f"{session.client_name} {session.client_version or ''}".rstrip()
    calls = counted(session.calls_in_flight, "call") if session.calls_in_flight else "no call"
    return f"{who}, connected {ago(session.connected_at)}, {calls} in flight"


def _process_words(daemon: DaemonState, process: ProcessEntry, names: dict[int, str | None]) -> str:
    what = f"pid {process.pid}" if process.pid is not None else "no local process"
    users = [f"session {user} ({names.get(user) or 'unnamed'})" for user in process.sessions]
    if process.sessions_left_out:
        users.append(counted(process.sessions_left_out, "more session"))
    used = f"used by {', '.join(users)}" if users else "used by no open session"
    calls = counted(process.calls_in_flight, "call") if process.calls_in_flight else "no call"
    return f"daemon {daemon.pid}: {what}, {process.state}, {calls} in flight; {used}"


def _daemon_json(daemon: DaemonState, *, running: bool, now: float) -> dict[str, Any]:
    written = daemon.document()
    return {
        "pid": daemon.pid,
        "running": running,
        "startedAt": daemon.start,
        "uptimeSeconds": max(0.0, now - daemon.start) if running and daemon.start is not None else None,
        **{
            key: written[key]
            for key in ("version", "frontProtocol", "socket", "graceSeconds", "idleSince", "writtenAt")
        },
        "sessions": [
            {
                "id": session.id,
                "client": {"name": session.client_name, "version": session.client_version},
                "connectedAt": session.connected_at,
                "callsInFlight": session.calls_in_flight,
            }
            for session in daemon.sessions
        ],
        "sessionsLeftOut": daemon.sessions_left_out,
        "processes": written["processes"],  # as the file has them
        "processesLeftOut": daemon.processes_left_out,
    }


def _started(daemon: DaemonState) -> str:
    return f"started {ago(daemon.start)}" if daemon.start is not None else "start unknown"


def _duration(seconds: float) -> str:
    """ "3m", "2h", "40s": as `ago` counts, without the "ago"."""
    return ago(time.time() - max(0.0, seconds)).removesuffix(" ago")
