"""A cross-process exclusive lock on a lock file, for serializing writes to `cache.json`.

Several gateway processes (one per AI client session) share one workspace, so every read-merge-write of
the catalog runs under `flock(2)` on a separate lock file. The lock is tied to an open file description:
it is released when the holder closes it or dies, so a crashed gateway never leaves a stale lock, and two
`FileLock` objects conflict even inside one process. The lock file is never deleted (deleting it would
let two holders lock two different inodes). Waiting is bounded by `LOCK_TIMEOUT_S`; a lock that cannot be
taken raises `CatalogError` naming the file. POSIX only.

Use `with FileLock(path):` from a worker thread (the store's async methods run there), never on the event
loop: waiting for the lock sleeps. One object is one holder: it is neither reentrant nor shared between
threads.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from types import TracebackType

from mcp_gateway.errors import CatalogError
from mcp_gateway.paths import FILE_MODE

LOCK_TIMEOUT_S = 10.0
"""How long to wait for another process to finish its write before giving up."""
_POLL_INITIAL_S = 0.002
_POLL_MAX_S = 0.05


class FileLock:
    def __init__(self, path: Path, timeout_s: float = LOCK_TIMEOUT_S) -> None:
        self.path = path
        self.timeout_s = timeout_s
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock, waiting at most `timeout_s`.

        Raises:
            CatalogError: the lock file cannot be opened, or another holder kept it past the timeout.
        """
        self._check_not_held()
        fd = _open_lock_file(self.path)
        acquired = False
        try:
            deadline = time.monotonic() + self.timeout_s
            delay = _POLL_INITIAL_S
            while not _try_lock(fd, self.path):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self._timeout_error()
                time.sleep(min(delay, remaining))
                delay = min(delay * 2, _POLL_MAX_S)
            acquired = True
        finally:
            if not acquired:
                os.close(fd)
        self._fd = fd

    def release(self) -> None:
        """Release the lock; closing the descriptor drops it even if unlocking fails."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()

    def _check_not_held(self) -> None:
        if self._fd is not None:
            raise RuntimeError(f"lock {self.path} is already held by this FileLock (it is not reentrant)")

    def _timeout_error(self) -> CatalogError:
        return CatalogError(
            f"could not lock {self.path} within {self.timeout_s:g} s: another running mcp-gateway process "
            "holds it (the lock dies with its holder, so retry once that process is done or stopped)"
        )


def _open_lock_file(path: Path) -> int:
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
    except OSError as exc:
        raise CatalogError(f"cannot open lock file {path}: {exc.strerror}") from exc
    try:
        if os.fstat(fd).st_mode & 0o777 != FILE_MODE:
            os.fchmod(fd, FILE_MODE)
    except OSError:
        pass  # a lock file we do not own still locks; its permissions are best effort
    return fd


def _try_lock(fd: int, path: Path) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError as exc:
        raise CatalogError(f"cannot lock {path}: {exc.strerror}") from exc
    return True
