"""What the workspace's daemon says it is serving: the content of its state file, encoded, bounded, parsed strictly.

A running daemon writes one (`service/daemon_files.py`) for `mcp-gateway status`, which runs in another
process: the daemon's pid and start time, its version and front protocol, its socket, its sessions (the
`clientInfo` each session's handshake gave, when it connected, its calls in flight) and, per server, the
processes it runs for them with the sessions that use each. Nothing secret is in it: no environment, no
arguments, no headers.

The file may be anything by the time it is read (half-written by another version, planted, edited by
hand), so `decode` accepts only this shape, and anything else is `BadState`. It is bounded on both sides:
`encode` lists at most `MAX_LISTED_SESSIONS` sessions, `MAX_LISTED_PROCESSES` processes and
`MAX_SESSIONS_PER_PROCESS` sessions of each, and cuts outside text (a client's name and version) to
`MAX_CLIENT_TEXT_CHARS`, saying how many were left out, so the largest possible file stays far under
`MAX_STATE_BYTES`, which is all a reader reads.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from typing import Any, cast

from mcp_gateway.bounds import MAX_ECHOED_NAME_CHARS, clip

STATE_FORMAT = 1
MAX_STATE_BYTES = 256 * 1024
"""What a reader reads of a state file: the largest the bounds below allow is about 160 KB."""
MAX_LISTED_SESSIONS = 64
"""Sessions listed by name; more are counted. A person reads them one a line."""
MAX_LISTED_PROCESSES = 256
"""Processes listed; more are counted. Servers a daemon runs at once are a few dozen in the largest reports."""
MAX_SESSIONS_PER_PROCESS = 16
"""Session ids listed per process; more are counted."""
MAX_CLIENT_TEXT_CHARS = 100
"""A client's name or version, as its `initialize` said: real ones ("claude-code", "2.1.3") are short."""
MAX_STATE_WORD_CHARS = 40
"""A process's state ("backing off" is the longest the pool has)."""
MAX_PID = 4_194_304
"""Linux's PID_MAX_LIMIT, as the process records check it."""


class BadState(ValueError):  # noqa: N818  # a fact about a file, like `json.JSONDecodeError`'s kin
    """The content is no daemon state of this format."""


@dataclass(frozen=True)
class SessionEntry:
    id: int
    client_name: str | None
    """From the session's `clientInfo`; None until its handshake gave one."""
    client_version: str | None
    connected_at: float
    calls_in_flight: int


@dataclass(frozen=True)
class ProcessEntry:
    server: str
    pid: int | None
    """None for a remote server (no process of ours) or one still starting."""
    state: str
    calls_in_flight: int
    sessions: tuple[int, ...]
    """The ids of the open sessions that use it."""
    sessions_left_out: int = 0


@dataclass(frozen=True)
class DaemonState:
    pid: int
    start: float | None
    """The daemon process's start time (psutil's create time): with the pid, it proves the daemon still runs."""
    version: str
    front_protocol: int
    socket: str
    grace_seconds: float
    idle_since: float | None
    """When its last session left (None while it serves one): it exits `grace_seconds` after."""
    written_at: float
    sessions: tuple[SessionEntry, ...]
    processes: tuple[ProcessEntry, ...]
    sessions_left_out: int = 0
    processes_left_out: int = 0

    def bounded(self) -> DaemonState:
        """This state within the bounds a file may hold (see the module)."""
        processes = tuple(_bounded_process(process) for process in self.processes[:MAX_LISTED_PROCESSES])
        return replace(
            self,
            sessions=tuple(_bounded_session(session) for session in self.sessions[:MAX_LISTED_SESSIONS]),
            processes=processes,
            sessions_left_out=self.sessions_left_out + max(0, len(self.sessions) - MAX_LISTED_SESSIONS),
            processes_left_out=self.processes_left_out + max(0, len(self.processes) - MAX_LISTED_PROCESSES),
        )

    def encode(self) -> bytes:
        state = self.bounded()
        document = {
            "format": STATE_FORMAT,
            "pid": state.pid,
            "start": state.start,
            "version": state.version,
            "frontProtocol": state.front_protocol,
            "socket": state.socket,
            "graceSeconds": state.grace_seconds,
            "idleSince": state.idle_since,
            "writtenAt": state.written_at,
            "sessions": [
                {
                    "id": session.id,
                    "clientName": session.client_name,
                    "clientVersion": session.client_version,
                    "connectedAt": session.connected_at,
                    "callsInFlight": session.calls_in_flight,
                }
                for session in state.sessions
            ],
            "sessionsLeftOut": state.sessions_left_out,
            "processes": [
                {
                    "server": process.server,
                    "pid": process.pid,
                    "state": process.state,
                    "callsInFlight": process.calls_in_flight,
                    "sessions": list(process.sessions),
                    "sessionsLeftOut": process.sessions_left_out,
                }
                for process in state.processes
            ],
            "processesLeftOut": state.processes_left_out,
        }
        return json.dumps(document, separators=(",", ":")).encode()

    @classmethod
    def decode(cls, data: bytes) -> DaemonState:
        """The state `data` holds; `BadState` unless it is exactly this format, within its bounds."""
        if len(data) > MAX_STATE_BYTES:
            raise BadState(f"it is larger than {MAX_STATE_BYTES} bytes")
        try:
            raw: object = json.loads(data)
        except (ValueError, RecursionError) as exc:
            raise BadState("it is not JSON") from exc
        document = _object(raw, "the state")
        if document.get("format") != STATE_FORMAT:
            raise BadState(f"its format is not {STATE_FORMAT}")
        sessions = _list(document.get("sessions"), "sessions", MAX_LISTED_SESSIONS)
        processes = _list(document.get("processes"), "processes", MAX_LISTED_PROCESSES)
        return cls(
            pid=_pid(document.get("pid"), "pid"),
            start=_optional_time(document.get("start"), "start"),
            version=_text(document.get("version"), "version", MAX_CLIENT_TEXT_CHARS),
            front_protocol=_count(document.get("frontProtocol"), "frontProtocol"),
            socket=_text(document.get("socket"), "socket", 4096),
            grace_seconds=_time(document.get("graceSeconds"), "graceSeconds"),
            idle_since=_optional_time(document.get("idleSince"), "idleSince"),
            written_at=_time(document.get("writtenAt"), "writtenAt"),
            sessions=tuple(_session(item) for item in sessions),
            processes=tuple(_process(item) for item in processes),
            sessions_left_out=_count(document.get("sessionsLeftOut"), "sessionsLeftOut"),
            processes_left_out=_count(document.get("processesLeftOut"), "processesLeftOut"),
        )


def _bounded_session(session: SessionEntry) -> SessionEntry:
    return replace(
        session,
        client_name=_clipped(session.client_name),
        client_version=_clipped(session.client_version),
    )


def _bounded_process(process: ProcessEntry) -> ProcessEntry:
    return replace(
        process,
        server=clip(process.server, MAX_ECHOED_NAME_CHARS),
        state=process.state[:MAX_STATE_WORD_CHARS],
        sessions=process.sessions[:MAX_SESSIONS_PER_PROCESS],
        sessions_left_out=process.sessions_left_out + max(0, len(process.sessions) - MAX_SESSIONS_PER_PROCESS),
    )


def _clipped(text: str | None) -> str | None:
    return None if text is None else clip(text, MAX_CLIENT_TEXT_CHARS)


def _session(raw: object) -> SessionEntry:
    item = _object(raw, "a session")
    return SessionEntry(
        id=_count(item.get("id"), "a session's id"),
        client_name=_optional_text(item.get("clientName"), "a client name"),
        client_version=_optional_text(item.get("clientVersion"), "a client version"),
        connected_at=_time(item.get("connectedAt"), "connectedAt"),
        calls_in_flight=_count(item.get("callsInFlight"), "callsInFlight"),
    )


def _process(raw: object) -> ProcessEntry:
    item = _object(raw, "a process")
    pid = item.get("pid")
    return ProcessEntry(
        server=_text(item.get("server"), "a server", MAX_ECHOED_NAME_CHARS * 2),
        pid=None if pid is None else _pid(pid, "a process's pid"),
        state=_text(item.get("state"), "a process's state", MAX_STATE_WORD_CHARS),
        calls_in_flight=_count(item.get("callsInFlight"), "callsInFlight"),
        sessions=tuple(
            _count(session, "a session id")
            for session in _list(item.get("sessions"), "a process's sessions", MAX_SESSIONS_PER_PROCESS)
        ),
        sessions_left_out=_count(item.get("sessionsLeftOut"), "sessionsLeftOut"),
    )


def _object(raw: object, what: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise BadState(f"{what} is not an object")
    return cast(dict[str, Any], raw)


def _list(raw: object, what: str, limit: int) -> list[object]:
    if not isinstance(raw, list):
        raise BadState(f"{what} is not a list")
    items = cast(list[object], raw)
    if len(items) > limit:
        raise BadState(f"{what} lists more than {limit}")
    return items


def _count(raw: object, what: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= 2**53:
        raise BadState(f"{what} is not a count")
    return raw


def _pid(raw: object, what: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= MAX_PID:
        raise BadState(f"{what} is not a process id")
    return raw


def _time(raw: object, what: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw) or raw < 0:
        raise BadState(f"{what} is not a time")
    return float(raw)


def _optional_time(raw: object, what: str) -> float | None:
    return None if raw is None else _time(raw, what)


def _text(raw: object, what: str, limit: int) -> str:
    if not isinstance(raw, str) or len(raw) > limit:
        raise BadState(f"{what} is not a text of at most {limit} characters")
    return raw


def _optional_text(raw: object, what: str) -> str | None:
    # A clipped text says how much was cut ("… (n more characters)"), a few characters past the bound.
    return None if raw is None else _text(raw, what, MAX_CLIENT_TEXT_CHARS * 2)
