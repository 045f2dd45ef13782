"""The front's file and descriptor I/O: a bounded read that never blocks on a FIFO and never goes through a link
unless told to, small files kept whole (a temporary file, then a rename, never written through a link), and a
descriptor written to the end.

The rest of the gateway does this through `workspace_files`; the front keeps this minimal copy of the same rules
because it imports only the standard library (`workspace_files` raises the gateway's `UnusableFileError`, whose
module brings `dataclasses`). What the front keeps only saves work (`default_workspace`, `remembered_handshake`):
a file that cannot be read is None, and one that cannot be written is not, so that the caller does the work again.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from mcp_gateway.paths import FILE_MODE

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC


def read_bounded(path: Path, max_bytes: int, *, follow_symlinks: bool = False) -> bytes:
    """The regular file's bytes.

    Raises:
        OSError: it cannot be opened (`ELOOP`: a link, unless `follow_symlinks`).
        ValueError: it is not a regular file, or is over `max_bytes`.
    """
    fd = os.open(path, _READ_FLAGS if follow_symlinks else _READ_FLAGS | os.O_NOFOLLOW)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{path} is not a regular file")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, max_bytes + 1 - size):
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                raise ValueError(f"{path} is larger than {max_bytes} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_kept(path: Path, max_bytes: int) -> bytes | None:
    """The regular file's bytes; None when it is missing, a link, anything else, or over `max_bytes`."""
    try:
        return read_bounded(path, max_bytes)
    except (OSError, ValueError):
        return None


def keep(path: Path, data: bytes) -> None:
    """`data` at `path`, whole or not at all (a link there is replaced, never written through)."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
