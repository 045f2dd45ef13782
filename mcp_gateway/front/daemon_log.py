"""Where a daemon's stderr goes: `logs/daemon.log` in its workspace, never the terminal of the session that left.

The daemon is started by a session front in a session of its own and outlives it, so the stderr it would
inherit is a client's pipe that closes with that session (a write then kills it with SIGPIPE, or is lost).
What it says (its warnings, masked by the gateway's logging, and a traceback if it dies) is appended to
`daemon.log` instead, beside the servers' stderr logs. The file is private (created 0600) and reached only
through a descriptor of `logs` opened without following a link, and opened itself with `O_NOFOLLOW`: a link
planted in either place is refused, never written through. It is bounded across starts: a log over
`MAX_DAEMON_LOG_BYTES` when a daemon starts is renamed `daemon.log.1` (replacing the one before).
Standard library only, as the front is.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from mcp_gateway.paths import DIR_MODE, FILE_MODE

DAEMON_LOG = "daemon.log"
MAX_DAEMON_LOG_BYTES = 1024 * 1024
"""A daemon writes a few warning lines a day; a megabyte is months of them, and a crash loop's tracebacks
are cut to the last megabyte or two."""
_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def open_daemon_log(logs_dir: Path) -> int:
    """A descriptor appending to `logs_dir/daemon.log` (the caller closes it once the daemon has it).

    Raises:
        OSError: `logs` or the log cannot be had as a private directory and a regular file of their own.
    """
    with contextlib.suppress(FileExistsError):
        logs_dir.mkdir(mode=DIR_MODE, parents=True)
    directory = os.open(logs_dir, _DIRECTORY_FLAGS)
    try:
        with contextlib.suppress(FileNotFoundError):
            if os.stat(DAEMON_LOG, dir_fd=directory, follow_symlinks=False).st_size > MAX_DAEMON_LOG_BYTES:
                os.rename(DAEMON_LOG, f"{DAEMON_LOG}.1", src_dir_fd=directory, dst_dir_fd=directory)
        fd = os.open(DAEMON_LOG, _APPEND_FLAGS, FILE_MODE, dir_fd=directory)
    finally:
        os.close(directory)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{logs_dir / DAEMON_LOG} is not a regular file")
    return fd
