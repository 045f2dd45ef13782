"""The daemon's state file, `run/daemon-<pid>.state`: what a daemon says it serves, for `status` in another process.

Its pid and start time, version and front protocol, socket, its sessions (each one's `clientInfo`, when it
connected, its calls in flight) and, per server, its processes with the sessions that use each; nothing secret
(no environment, arguments or headers). A file may be anything by the time it is read (another version's,
half-written, planted, edited by hand), so it is read strictly as `DaemonState`, else `BadState`. It is bounded
on both sides: `encode` lists and clips within the bounds below, counting what it left out, so the largest file
stays far under `MAX_STATE_BYTES`, all a reader reads.

One file per daemon process (two versions during an upgrade never overwrite each other's), beside the process
records, which are `*.json`. `run` is touched only through a descriptor of the directory itself, no link
followed: a file is written to an exclusive temp file renamed over its name (a planted link is replaced, and a
reader sees the old content or the new), and read only as a regular file opened `O_NONBLOCK`. A SIGKILLed
daemon's file stays and its pid may be reused: `runs` proves a daemon by its pid and start time, and the next
daemon removes the others' (`remove_stale`). The functions that touch the disk block: use a worker thread.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, ClassVar, Literal

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel

from mcp_gateway.bounds import MAX_ECHOED_NAME_CHARS, clip
from mcp_gateway.downstream.processes import is_zombie, pid_alive, same_start, start_time
from mcp_gateway.paths import FILE_MODE, ensure_private_dir
from mcp_gateway.workspace_files import usable_directory

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

_FILE = ConfigDict(strict=True, alias_generator=to_camel)
Count = Annotated[int, Field(ge=0, le=2**53)]
Pid = Annotated[int, Field(ge=1, le=MAX_PID)]
Time = Annotated[float, Field(ge=0, allow_inf_nan=False)]
ClientText = Annotated[str, Field(max_length=MAX_CLIENT_TEXT_CHARS * 2)] | None
"""A clipped text says how much was cut ("… (n more characters)"), a few characters past the bound."""

_NAME = re.compile(r"daemon-(?P<pid>[1-9][0-9]{0,9})\.state")
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class BadState(ValueError):  # noqa: N818  # a fact about a file, like `json.JSONDecodeError`'s kin
    """The content is no daemon state of this format."""


@dataclass(frozen=True)
class SessionEntry:
    __pydantic_config__: ClassVar[ConfigDict] = _FILE
    id: Count
    client_name: ClientText
    """From the session's `clientInfo`; None until its handshake gave one."""
    client_version: ClientText
    connected_at: Time
    calls_in_flight: Count

    def with_words(self, change: Callable[[str], str]) -> SessionEntry:
        """This session with `change` applied to its client's words (clipped, masked)."""
        name, version = self.client_name, self.client_version
        return replace(
            self,
            client_name=None if name is None else change(name),
            client_version=None if version is None else change(version),
        )


@dataclass(frozen=True)
class ProcessEntry:
    __pydantic_config__: ClassVar[ConfigDict] = _FILE
    server: Annotated[str, Field(max_length=MAX_ECHOED_NAME_CHARS * 2)]
    pid: Pid | None
    """None for a remote server (no process of ours) or one still starting."""
    state: Annotated[str, Field(max_length=MAX_STATE_WORD_CHARS)]
    calls_in_flight: Count
    sessions: Annotated[tuple[Count, ...], Field(max_length=MAX_SESSIONS_PER_PROCESS)]
    """The ids of the open sessions that use it."""
    sessions_left_out: Count = 0


@dataclass(frozen=True)
class DaemonState:
    __pydantic_config__: ClassVar[ConfigDict] = _FILE
    pid: Pid
    start: Time | None
    """The daemon process's start time (psutil's create time): with the pid, it proves the daemon still runs."""
    version: Annotated[str, Field(max_length=MAX_CLIENT_TEXT_CHARS)]
    front_protocol: Count
    socket: Annotated[str, Field(max_length=4096)]
    grace_seconds: Time
    idle_since: Time | None
    """When its last session left (None while it serves one): it exits `grace_seconds` after."""
    written_at: Time
    sessions: Annotated[tuple[SessionEntry, ...], Field(max_length=MAX_LISTED_SESSIONS)]
    processes: Annotated[tuple[ProcessEntry, ...], Field(max_length=MAX_LISTED_PROCESSES)]
    sessions_left_out: Count = 0
    processes_left_out: Count = 0
    file_format: Annotated[Literal[1], Field(alias="format")] = STATE_FORMAT

    def bounded(self) -> DaemonState:
        """This state within the bounds a file may hold (see the module)."""
        processes = tuple(
            replace(
                process,
                server=clip(process.server, MAX_ECHOED_NAME_CHARS),
                state=process.state[:MAX_STATE_WORD_CHARS],
                sessions=process.sessions[:MAX_SESSIONS_PER_PROCESS],
                sessions_left_out=process.sessions_left_out + _beyond(process.sessions, MAX_SESSIONS_PER_PROCESS),
            )
            for process in self.processes[:MAX_LISTED_PROCESSES]
        )
        return replace(
            self,
            sessions=tuple(
                session.with_words(lambda text: clip(text, MAX_CLIENT_TEXT_CHARS))
                for session in self.sessions[:MAX_LISTED_SESSIONS]
            ),
            processes=processes,
            sessions_left_out=self.sessions_left_out + _beyond(self.sessions, MAX_LISTED_SESSIONS),
            processes_left_out=self.processes_left_out + _beyond(self.processes, MAX_LISTED_PROCESSES),
        )

    def masked(self, mask: Callable[[str], str]) -> DaemonState:
        """The clients' words masked, as every text the gateway shows is (a file read may come from a daemon that
        did not mask)."""
        return replace(self, sessions=tuple(session.with_words(mask) for session in self.sessions))

    def encode(self) -> bytes:
        return _adapter().dump_json(self.bounded(), by_alias=True)

    def document(self) -> dict[str, object]:
        """This state as the file's JSON object (unbounded)."""
        return _adapter().dump_python(self, mode="json", by_alias=True)

    @classmethod
    def decode(cls, data: bytes) -> DaemonState:
        """The state `data` holds; `BadState` unless it is exactly this format, within its bounds."""
        if len(data) > MAX_STATE_BYTES:
            raise BadState(f"it is larger than {MAX_STATE_BYTES} bytes")
        try:
            return _adapter().validate_json(data)
        except ValidationError as error:
            first = error.errors()[0]
            if first["type"] == "json_invalid":
                raise BadState("it is not JSON") from None
            where = ".".join(str(part) for part in first["loc"]) or "the state"
            raise BadState(f"{where}: {first['msg']}") from None


@functools.cache
def _adapter() -> TypeAdapter[DaemonState]:
    return TypeAdapter(DaemonState)  # built at first use: the daemon answers hellos before it writes a state


def _beyond(items: tuple[object, ...], limit: int) -> int:
    return max(0, len(items) - limit)


@dataclass(frozen=True)
class FoundState:
    name: str
    state: DaemonState | None
    """None when the file could not be used (`problem` says why)."""
    problem: str | None = None


def state_name(pid: int) -> str:
    return f"daemon-{pid}.state"


def write_state(directory: Path, state: DaemonState) -> None:
    """Replace the daemon's state file atomically, never through a link.

    Raises:
        OSError: `run` cannot be had as a directory of its own, or cannot be written.
    """
    ensure_private_dir(directory)
    name = state_name(state.pid)
    with usable_directory(directory) as fd:
        if fd is None:
            raise NotADirectoryError(f"{directory} is not a directory of its own")
        temporary = f".{name}.{os.getpid()}.tmp"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary, dir_fd=fd)  # ours, left by a write that failed
        out = os.open(temporary, _CREATE_FLAGS, FILE_MODE, dir_fd=fd)
        try:
            with os.fdopen(out, "wb") as handle:
                handle.write(state.encode())
            os.replace(temporary, name, src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=fd)
            raise


def remove_state(directory: Path, pid: int) -> None:
    """Remove the state file of the daemon `pid` (the entry itself, whatever it is); never raises."""
    _remove(directory, [state_name(pid)])


def read_states(directory: Path) -> list[FoundState]:
    """Every daemon state file in `run`, parsed, in the order of their names; never raises."""
    found: list[FoundState] = []
    with usable_directory(directory) as fd:
        if fd is None:
            return found
        try:
            with os.scandir(fd) as entries:
                names = sorted(entry.name for entry in entries if _NAME.fullmatch(entry.name))
        except OSError:
            return found
        for name in names:
            try:
                found.append(FoundState(name, DaemonState.decode(_read_small(name, fd))))
            except FileNotFoundError:
                continue  # its daemon left meanwhile
            except (OSError, BadState) as problem:
                found.append(FoundState(name, None, str(problem)))
    return found


def runs(state: DaemonState) -> bool:
    """Whether the daemon that wrote `state` still runs: its pid is alive, no zombie (a killed daemon whose
    parent has left waits for an init that may never reap it), and started when the file says."""
    if state.start is None or not pid_alive(state.pid) or is_zombie(state.pid):
        return False
    return same_start(state.start, start_time(state.pid))


def remove_stale(directory: Path) -> list[str]:
    """Remove the state files of daemons that no longer run, and unusable ones; the names removed."""
    return _remove(directory, [found.name for found in read_states(directory) if not _running(found)])


def _running(found: FoundState) -> bool:
    return found.state is not None and runs(found.state)


def _remove(directory: Path, names: list[str]) -> list[str]:
    removed: list[str] = []
    with usable_directory(directory) as fd:
        if fd is None:
            return removed
        for name in names:
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=fd)  # a link itself, never its target
                removed.append(name)
    return removed


def _read_small(name: str, directory_fd: int) -> bytes:
    fd = os.open(name, _READ_FLAGS, dir_fd=directory_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise BadState("it is not a regular file")
        data = b""
        while len(data) <= MAX_STATE_BYTES and (chunk := os.read(fd, MAX_STATE_BYTES + 1 - len(data))):
            data += chunk
    finally:
        os.close(fd)
    if len(data) > MAX_STATE_BYTES:
        raise BadState(f"it is larger than {MAX_STATE_BYTES} bytes")
    return data
