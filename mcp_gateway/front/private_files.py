"""The small files a front keeps in the private runtime directory: read bounded and never through a link, written
whole (a temporary file, then a rename) and never through a link either.

What is kept there only saves work (`default_workspace`, `remembered_handshake`): a file that cannot be read is
None, and one that cannot be written is not, so that the caller does the work again. Standard library only.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

FILE_MODE = 0o600


def read_kept(path: Path, max_bytes: int) -> bytes | None:
    """The regular file's bytes; None when it is missing, a link, anything else, or over `max_bytes`."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes and (chunk := os.read(fd, max_bytes + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if size > max_bytes else b"".join(chunks)


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
