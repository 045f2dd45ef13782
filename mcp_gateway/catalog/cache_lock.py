"""The cross-process lock that serializes writes to `cache.json` (`workspace_files.private_lock`).

Several gateway processes (one per AI client session) share one workspace, so every read-merge-write of the
catalog runs under an exclusive lock on `cache.json.lock`. Waiting is bounded by `LOCK_TIMEOUT_S`; every
failure is a `CatalogError` naming the file. Take it in a worker thread (the store's callers do).
"""

from __future__ import annotations

import errno
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

from mcp_gateway.errors import CatalogError
from mcp_gateway.workspace_files import private_lock

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
    from filelock import Timeout

    lock = private_lock(path, timeout_s=timeout_s, poll_s=LOCK_POLL_S)
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
