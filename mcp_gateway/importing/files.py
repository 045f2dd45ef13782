"""Writing a config file so that a reader never sees half of it and its permissions survive.

The new bytes go to a temporary file in the same directory, are flushed to disk, and replace the old file
with one rename. A symlinked file is written through its link (dotfile managers link client configs).
A client file keeps its mode (`~/.claude.json` is 0600 and must stay so); a new file, and the gateway's
own config, get 0600 because they hold tokens.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from mcp_gateway.paths import FILE_MODE


def write_atomically(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace `path` with `data`; `mode` defaults to the existing file's permissions, else 0600.

    Raises:
        OSError: the directory is not writable, the disk is full, …; the old file is then untouched.
    """
    if path.is_symlink():
        path = path.resolve()  # dotfile managers link client configs: write the file, keep the link
    if mode is None:
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = FILE_MODE
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    # Created exclusively, never through a link planted at the temp name; one of ours left over is removed.
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)  # the umask may have narrowed it at creation
        os.replace(temporary, path)
    except Exception:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
