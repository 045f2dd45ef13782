"""The daemon's state files on disk: `run/daemon-<pid>.state`, written by the daemon, read by `status`.

One file per daemon process, so two daemons of one workspace (two gateway versions during an upgrade, each
with its own socket) never overwrite each other's. They sit in the `run` directory beside the process
records, whose reader takes only `*.json` names, so neither mistakes the other's files for its own.

`run` is touched only through a descriptor of the directory itself, opened without following a link (as
the process records are, `downstream/record_directory.py`): a state file is written to an exclusive temp
file renamed over its name, so a link planted in its place is replaced, never followed, and a reader sees
the old content or the new, never half of one. A file is read only when it is a regular file of at most
`MAX_STATE_BYTES`, opened `O_NOFOLLOW | O_NONBLOCK`.

A daemon SIGKILLed leaves its file behind, and its pid may be reused, so a file proves nothing by itself:
`runs` takes a daemon as running only when its pid is alive and that process started when the file says.
The next daemon removes the files of daemons that no longer run (`remove_stale`); until then `status`
reports them as stale. Every function here does disk I/O: call it from a worker thread.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from mcp_gateway.downstream.processes import is_zombie, pid_alive, same_start, start_time
from mcp_gateway.paths import FILE_MODE, ensure_private_dir
from mcp_gateway.service.daemon_record import MAX_STATE_BYTES, BadState, DaemonState
from mcp_gateway.workspace_files import usable_directory

_NAME = re.compile(r"daemon-(?P<pid>[1-9][0-9]{0,9})\.state")
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


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
    data = state.encode()
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
                handle.write(data)
            os.replace(temporary, name, src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=fd)
            raise


def remove_state(directory: Path, pid: int) -> None:
    """Remove the state file of the daemon `pid` (the entry itself, whatever it is); never raises."""
    with usable_directory(directory) as fd:
        if fd is not None:
            with contextlib.suppress(OSError):
                os.unlink(state_name(pid), dir_fd=fd)


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
    removed: list[str] = []
    stale = [found.name for found in read_states(directory) if found.state is None or not runs(found.state)]
    with usable_directory(directory) as fd:
        if fd is None:
            return removed
        for name in stale:
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=fd)  # a link itself, never its target
                removed.append(name)
    return removed


def _read_small(name: str, directory_fd: int) -> bytes:
    fd = os.open(name, _READ_FLAGS, dir_fd=directory_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise BadState("it is not a regular file")
        if info.st_size > MAX_STATE_BYTES:
            raise BadState(f"it is larger than {MAX_STATE_BYTES} bytes")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, MAX_STATE_BYTES + 1 - size):
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_STATE_BYTES:
                raise BadState(f"it is larger than {MAX_STATE_BYTES} bytes")  # it grew after the check
    finally:
        os.close(fd)
    return b"".join(chunks)
