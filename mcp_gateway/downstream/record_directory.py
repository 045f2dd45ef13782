"""The `run` directory of process records, touched only through a descriptor of the directory itself.

`run` is opened with O_DIRECTORY | O_NOFOLLOW for each pass: a `run` that is a symbolic link, a regular
file or missing holds no records and takes none (the workspace check reports it), so a record is never
read from or written to a directory elsewhere, and every name is then opened relative to that descriptor,
so a link swapped in for `run` during a pass changes nothing. A record file is read only when it is a
regular file of at most MAX_RECORD_BYTES, opened O_NOFOLLOW | O_NONBLOCK: a link or a FIFO planted as a
record is unusable, never followed or blocked on. A record is written to an exclusive temp file renamed
over its name. An unusable record is renamed aside (`<name>.unusable-<UTC time>`, the newest
SET_ASIDE_KEPT kept for a person to look at) so that it costs nothing at the next start.

Every method does disk I/O: call them from a worker thread (`ProcessRecords` writes a few hundred bytes
when a server starts or stops, as it always has).
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import os
import stat
from collections.abc import Generator
from pathlib import Path

from mcp_gateway.downstream.record_format import GatewayRecord, Unusable, decode_record
from mcp_gateway.paths import FILE_MODE
from mcp_gateway.workspace_files import kind_of, usable_directory

logger = logging.getLogger(__name__)

RECORD_SUFFIX = ".json"
SET_ASIDE_MARK = ".unusable-"
SET_ASIDE_KEPT = 5
"""Unusable record files kept for inspection; older ones are deleted."""
MAX_RECORD_BYTES = 1024 * 1024
"""Far above any real record (about 80 bytes a group); a larger file is not one of ours."""

_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@contextlib.contextmanager
def records_directory(directory: Path) -> Generator[RecordDirectory | None]:
    """The record directory at `directory`, or None when there is no usable one (missing, a link, a file)."""
    with usable_directory(directory) as fd:
        yield None if fd is None else RecordDirectory(fd)


class RecordDirectory:
    def __init__(self, fd: int) -> None:
        self._fd = fd

    def names(self) -> list[str]:
        """The record files in the directory, by name."""
        try:
            with os.scandir(self._fd) as entries:
                return sorted(entry.name for entry in entries if entry.name.endswith(RECORD_SUFFIX))
        except OSError:
            return []

    def read(self, name: str) -> GatewayRecord | Unusable | None:
        """The record `name`, why it cannot be used, or None when it is gone (another gateway took it)."""
        try:
            fd = os.open(name, _READ_FLAGS, dir_fd=self._fd)
        except FileNotFoundError:
            return None
        except OSError as error:
            return Unusable(_open_failure(name, self._fd, error))
        try:
            data = _read_small_regular(fd)
        except OSError as error:
            return Unusable(f"it cannot be read ({error.strerror or error})")
        finally:
            os.close(fd)
        return data if isinstance(data, Unusable) else decode_record(data)

    def write(self, name: str, record: GatewayRecord) -> None:
        """Replace the record `name` atomically (never through a link).

        Raises:
            OSError: the directory cannot be written.
        """
        temporary = f".{name}.{os.getpid()}.tmp"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary, dir_fd=self._fd)  # ours, left by a write that failed
        fd = os.open(temporary, _CREATE_FLAGS, FILE_MODE, dir_fd=self._fd)
        with os.fdopen(fd, "wb") as handle:
            handle.write(record.to_json().encode())
        os.replace(temporary, name, src_dir_fd=self._fd, dst_dir_fd=self._fd)

    def remove(self, name: str) -> None:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=self._fd)  # a link itself, never its target

    def set_aside(self, name: str, reason: str) -> str | None:
        """Rename an unusable record out of the way; its new name, or None if it could not be moved."""
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S%fZ")
        target = f"{name}{SET_ASIDE_MARK}{stamp}"
        try:
            os.rename(name, target, src_dir_fd=self._fd, dst_dir_fd=self._fd)  # a link itself, never its target
        except OSError as error:
            logger.warning("could not set aside the unusable process record %s (%s): %s", name, reason, error)
            return None
        logger.warning(
            "set aside the unusable process record %s as %s (%s); nothing it names was signalled; it may be deleted",
            name,
            target,
            reason,
        )
        self._prune_set_aside()
        return target

    def _prune_set_aside(self) -> None:
        try:
            with os.scandir(self._fd) as entries:
                aside = [entry.name for entry in entries if SET_ASIDE_MARK in entry.name]
        except OSError:
            return
        aside.sort(key=lambda name: name.rsplit(SET_ASIDE_MARK, 1)[1])
        for name in aside[:-SET_ASIDE_KEPT]:
            self.remove(name)


def _open_failure(name: str, directory_fd: int, error: OSError) -> str:
    with contextlib.suppress(OSError):
        info = os.stat(name, dir_fd=directory_fd, follow_symlinks=False)
        if not stat.S_ISREG(info.st_mode):
            return f"it is {kind_of(info.st_mode)}"
    return f"it cannot be opened ({error.strerror or error})"


def _read_small_regular(fd: int) -> bytes | Unusable:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        return Unusable(f"it is {kind_of(info.st_mode)}")
    chunks: list[bytes] = []
    size = 0
    while chunk := os.read(fd, MAX_RECORD_BYTES + 1 - size):
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_RECORD_BYTES:
            return Unusable(f"it is larger than {MAX_RECORD_BYTES} bytes")
    return b"".join(chunks)
