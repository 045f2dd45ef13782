"""The cross-process lock that serializes writes to `cache.json`: `flock(2)` through the `filelock` package.

Several gateway processes (one per AI client session) share one workspace, so every read-merge-write of
the catalog runs under an exclusive `flock` on `cache.json.lock`. The lock belongs to an open file
description: it dies with its holder, so a crashed gateway never leaves a stale lock, and the lock file is
never deleted (two holders would lock two inodes). Only the OS lock is used, never `filelock`'s soft
(marker file) fallback: a marker left by a killed gateway would need breaking by age.

`filelock` (from 4.2.12; 4.2.0 and older truncate and chmod whatever they open) opens the lock file
`O_NOFOLLOW`, never truncates it and sets the mode only of a lock file it creates, so a link planted as
`cache.json.lock` is refused, never followed or chmodded. Waiting is bounded by
`LOCK_TIMEOUT_S`; every failure is a `CatalogError` naming the file. The wait sleeps: take the lock in a
worker thread (the store's callers do), never on the event loop. POSIX only.
"""

from __future__ import annotations

import errno
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

from mcp_gateway.errors import CatalogError
from mcp_gateway.paths import FILE_MODE

LOCK_TIMEOUT_S = 10.0
"""How long to wait for another process to finish its write before giving up."""
LOCK_POLL_S = 0.01
"""How often a waiting writer retries; writes take milliseconds."""


@contextmanager
def cache_lock(path: Path, timeout_s: float = LOCK_TIMEOUT_S) -> Generator[None]:
    """Hold the exclusive lock on `path` for the body, waiting at most `timeout_s` for it.

    Raises:
        CatalogError: the lock file cannot be opened or locked (a link is refused), or another holder kept
            it past the timeout.
    """
    # Imported here: only writers need it, and a serving gateway answers its client before any write.
    from filelock import Timeout, UnixFileLock

    lock = UnixFileLock(
        path,
        timeout=timeout_s,
        mode=FILE_MODE,
        poll_interval=LOCK_POLL_S,
        fallback_to_soft=False,
        preserve_lock_file=True,
    )
    try:
        lock.acquire()
    except Timeout as exc:
        raise CatalogError(
            f"could not lock {path} within {timeout_s:g} s: another running mcp-gateway process holds it "
            "(the lock dies with its holder, so retry once that process is done or stopped)"
        ) from exc
    except OSError as exc:
        raise CatalogError(_cannot_lock(path, exc)) from exc
    try:
        yield
    finally:
        lock.release()


def _cannot_lock(path: Path, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return (
            f"cannot lock {path}: it is a symbolic link, which mcp-gateway never follows; "
            "remove it so that the catalog can be written again"
        )
    reason = exc.strerror or type(exc).__name__
    return f"cannot lock {path} ({reason}); check that its directory is writable"
