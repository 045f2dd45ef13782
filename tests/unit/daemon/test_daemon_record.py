"""The daemon's state file: its content encoded and parsed strictly, bounded on both sides."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from mcp_gateway.daemon.state_file import (
    MAX_CLIENT_TEXT_CHARS,
    MAX_LISTED_PROCESSES,
    MAX_LISTED_SESSIONS,
    MAX_SESSIONS_PER_PROCESS,
    MAX_STATE_BYTES,
    BadState,
    DaemonState,
    ProcessEntry,
    SessionEntry,
)


def state(sessions: int = 2, processes: int = 1, users: int = 2, name: str = "claude-code") -> DaemonState:
    return DaemonState(
        pid=4242,
        start=1_764_600_000.25,
        version="0.9.0",
        front_protocol=1,
        socket="/run/user/1000/mcp-gateway/0123456789abcdef0123.sock",
        grace_seconds=30.0,
        idle_since=None,
        written_at=1_764_600_060.5,
        sessions=tuple(SessionEntry(i + 1, name, "2.1.3", 1_764_600_001.0 + i, i % 3) for i in range(sessions)),
        processes=tuple(
            ProcessEntry(f"server-{i}", 5000 + i, "ready", 1, tuple(range(1, users + 1))) for i in range(processes)
        ),
    )


def document(**changes: Any) -> bytes:
    raw = json.loads(state().encode())
    raw.update(changes)
    return json.dumps(raw).encode()


def test_a_state_reads_back_as_written() -> None:
    written = replace(
        state(),
        idle_since=1_764_600_100.0,
        sessions=(*state().sessions, SessionEntry(3, None, None, 1.0, 0)),  # before its handshake
        processes=(ProcessEntry("remote", None, "starting", 0, ()),),
    )
    assert DaemonState.decode(written.encode()) == written


def test_encoding_keeps_the_lists_and_texts_within_bounds_and_counts_what_it_left_out() -> None:
    huge = state(sessions=1000, processes=1000, users=1000, name="n" * 10_000)
    data = huge.encode()
    assert len(data) <= MAX_STATE_BYTES
    read = DaemonState.decode(data)
    assert len(read.sessions) == MAX_LISTED_SESSIONS
    assert read.sessions_left_out == 1000 - MAX_LISTED_SESSIONS
    assert len(read.processes) == MAX_LISTED_PROCESSES
    assert read.processes_left_out == 1000 - MAX_LISTED_PROCESSES
    assert {len(process.sessions) for process in read.processes} == {MAX_SESSIONS_PER_PROCESS}
    assert {process.sessions_left_out for process in read.processes} == {1000 - MAX_SESSIONS_PER_PROCESS}
    name = read.sessions[0].client_name
    assert name is not None
    assert name.startswith("n" * MAX_CLIENT_TEXT_CHARS)
    assert name.endswith(f"({10_000 - MAX_CLIENT_TEXT_CHARS} more characters)")


def test_the_largest_state_the_bounds_allow_is_far_under_what_a_reader_reads() -> None:
    widest = replace(
        state(sessions=MAX_LISTED_SESSIONS, processes=MAX_LISTED_PROCESSES, users=MAX_SESSIONS_PER_PROCESS),
        processes=tuple(
            ProcessEntry("s" * 10_000, 4_194_304, "backing off", 2**31, tuple(range(10**9, 10**9 + 100)))
            for _ in range(MAX_LISTED_PROCESSES)
        ),
        sessions=tuple(
            SessionEntry(10**9 + i, "n" * 10_000, "v" * 10_000, 1e10, 2**31) for i in range(MAX_LISTED_SESSIONS)
        ),
    )
    size = len(widest.encode())
    assert size < MAX_STATE_BYTES * 0.75, size  # about 160 KB
    assert DaemonState.decode(widest.encode()).processes_left_out == 0


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not json",
        b"[]",
        b"[" * 100_000,
        document(format=2),
        document(pid=0),
        document(pid=True),
        document(pid="4242"),
        document(start="yesterday"),
        document(writtenAt=-1),
        document(sessions={}),
        document(sessions=[{"id": 1}]),
        document(
            sessions=[{"id": -1, "clientName": None, "clientVersion": None, "connectedAt": 1, "callsInFlight": 0}]
        ),
        document(sessions=[json.loads(state().encode())["sessions"][0]] * (MAX_LISTED_SESSIONS + 1)),
        document(processes=[{"server": "a", "pid": 1, "state": "x" * 1000, "callsInFlight": 0, "sessions": []}]),
        document(version="v" * 10_000),
        document(socket=None),
        b" " * (MAX_STATE_BYTES + 1),
    ],
)
def test_anything_else_is_no_state(data: bytes) -> None:
    with pytest.raises(BadState):
        DaemonState.decode(data)
