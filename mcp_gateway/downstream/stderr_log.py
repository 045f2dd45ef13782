"""A downstream server's stderr, kept in `logs/<server>.stderr.log`, capped and rotated.

A stdio server's stderr must never reach the AI client's stderr (clients show it as gateway noise, and
some treat it as an error), yet it is the first thing a user needs when a server misbehaves. So each
server gets its own file, rotated to `.1` at `MAX_LOG_BYTES`, and every line (the server's own and the
gateway's notes about it) passes through the gateway's `SecretMask` before it is written.

The file is opened as `workspace_files` says: never through a link (the file's or the `logs` directory's),
never blocking on a FIFO, and a `.1` that is not a regular file is never rotated over. Such a log is noted
once (a warning) and its lines dropped until it is removed; a `logs` that is not a directory at all was
reported by the workspace check, so its lines are dropped silently. Logging never takes a server down.

The gateway's own notes about a server (started, stopped, failed, retired) go through `logging`, like every
diagnostic of the gateway, and handlers decide where they land: a note is a record of the `mcp_gateway.servers`
logger carrying the server's name and its pool, which the pool's `ServerLogHandler` writes into that server's
log, next to what the server itself printed; like any record it also reaches the gateway's log with `debug` on.
Notes are INFO, below what the terminal shows, so a client's MCP log is not filled with them: a failed start
already reaches the caller as the call's error and `status` as the server's last error.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

from mcp_gateway.errors import UnusableFileError
from mcp_gateway.masking import SecretMask
from mcp_gateway.workspace_files import kind_of, open_append, open_directory

logger = logging.getLogger(__name__)
notes_logger = logging.getLogger("mcp_gateway.servers")
notes_logger.setLevel(logging.INFO)  # notes are kept in each server's log whatever the gateway's own level is

MAX_LOG_BYTES = 1024 * 1024
MAX_LINE_CHARS = 8192
"""Longer lines are cut: one runaway line must not rotate away everything before it."""


class StderrLog:
    def __init__(self, path: Path, secrets: SecretMask | None = None) -> None:
        self._path = path
        self._secrets = secrets if secrets is not None else SecretMask()
        self._pending = ""
        self._noted = False
        """Whether the warning that this log cannot be written was given (it is given once)."""

    @property
    def path(self) -> Path:
        return self._path

    def note(self, text: str) -> None:
        """A line from the gateway itself about this server (start, exit, ignored stdout noise)."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        self._write_line(f"[mcp-gateway {stamp}] {text}")

    def feed(self, chunk: str) -> list[str]:
        """Append raw stderr text; complete lines are written, a partial line waits for its end. The lines
        written, as written (masked and cut), for whoever quotes them (`StderrTail`).

        A runaway line (no newline past `MAX_LINE_CHARS`) is written in pieces, masked first and keeping back
        enough of its end that a secret arriving across the break is still whole when it is masked.
        """
        lines = (self._pending + chunk).split("\n")
        self._pending = lines.pop()
        written = [self._write_line(line) for line in lines]
        if len(self._pending) > MAX_LINE_CHARS:
            masked = self._secrets.mask(self._pending)
            keep = self._secrets.longest - 1
            head, self._pending = (masked[:-keep], masked[-keep:]) if keep > 0 else (masked, "")
            written.append(self._write_line(head))
        return written

    def flush(self) -> list[str]:
        """Write a pending partial line (the stream ended without a newline); the lines written, as `feed`."""
        if not self._pending:
            return []
        line, self._pending = self._pending, ""
        return [self._write_line(line)]

    def _write_line(self, line: str) -> str:
        # Only what can be kept is masked (a megabyte line costs no more than a full one), with one secret's
        # length beyond the cut, so a secret straddling the cut is masked whole and not even its start is kept.
        reach = MAX_LINE_CHARS + self._secrets.longest
        kept = self._secrets.mask(line[:reach])
        if len(kept) > MAX_LINE_CHARS or len(line) > reach:
            kept = kept[:MAX_LINE_CHARS] + " …[cut]"
        data = (kept + "\n").encode("utf-8", errors="replace")
        try:
            with open_directory(self._path.parent) as directory:
                self._append(directory, data)
        except UnusableFileError as exc:
            # `not-a-directory`: `logs` itself is unusable, which the workspace check reported once already.
            if exc.tag != "not-a-directory" and not self._noted:
                self._noted = True
                problem = f"{self._path.parent / exc.path} {exc.problem}"
                logger.warning("%s: this server's stderr is not logged; remove it to log it again", problem)
        except OSError:
            pass  # a full disk or a removed logs directory must never take the server down with it
        return kept

    def _append(self, directory: int, data: bytes) -> None:
        name = self._path.name
        fd = open_append(name, directory)
        try:
            if os.fstat(fd).st_size + len(data) > MAX_LOG_BYTES:
                os.close(fd)
                fd = -1
                _rotate(directory, name)
                fd = open_append(name, directory)
            os.write(fd, data)
        finally:
            if fd >= 0:
                os.close(fd)


def _rotate(directory: int, name: str) -> None:
    """Move the full log to `<name>.1`, unless something that is not a regular file sits there."""
    rotated = f"{name}.1"
    with contextlib.suppress(FileNotFoundError):
        mode = os.stat(rotated, dir_fd=directory, follow_symlinks=False).st_mode
        if not stat.S_ISREG(mode):
            raise UnusableFileError(rotated, f"is {kind_of(mode)}, so the full log cannot be rotated to it", "rotate")
    os.rename(name, rotated, src_dir_fd=directory, dst_dir_fd=directory)


_SERVER = "mcp_server"
_POOL = "mcp_pool"


class ServerNotes:
    """The notes of one server of one pool."""

    def __init__(self, server: str, pool: object) -> None:
        self._extra = {_SERVER: server, _POOL: id(pool)}

    def info(self, text: str) -> None:
        notes_logger.info("%s", text, extra=self._extra)


class ServerLogHandler(logging.Handler):
    """Writes the notes of one pool's servers into each server's own log."""

    def __init__(self, pool: object, log_for: Callable[[str], StderrLog]) -> None:
        super().__init__(logging.INFO)
        self._pool = id(pool)
        self._log_for = log_for

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, _POOL, None) != self._pool:
            return
        server = getattr(record, _SERVER, None)
        if isinstance(server, str):
            self._log_for(server).note(record.getMessage())
