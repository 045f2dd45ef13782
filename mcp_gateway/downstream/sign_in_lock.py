"""One renewal of a server's sign-in at a time across every gateway serving the workspace: a `flock(2)` per server.

Authorization servers commonly make refresh tokens single-use (rotated on every refresh, as OAuth 2.1 asks for
public clients). Two gateways (one per AI client session) that find the same token due at the same moment would
both send its refresh token: the first is renewed, the second is refused `invalid_grant` and its call ends in
"sign in again" although the workspace holds a good sign-in. So a renewal runs under an exclusive lock on
`oauth/NAME-DIGEST.lock`, and the holder re-reads the stored sign-in after taking it: the gateway that waited
finds the token the other one saved, and renews nothing.

The lock is the OS's, through `filelock` (as `catalog/cache_lock.py` does for `cache.json`): it dies with its
holder, so a killed gateway leaves no stale lock, and the file is never deleted (two holders would lock two
inodes). `filelock` opens it `O_NOFOLLOW` and sets the mode only of a file it creates, so a link planted there is
refused, never followed or chmodded. The wait is bounded (`RENEWAL_LOCK_SECONDS`); a lock that cannot be had
(the wait ran out, the directory is unusable) yields `False` and the caller renews unlocked, as it would have
without this module: the lock prevents a race, and its absence must not stop a call. POSIX only.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.to_thread

from mcp_gateway.paths import FILE_MODE, directory_problem

RENEWAL_LOCK_SECONDS = 20.0
"""How long a gateway waits for another one's renewal: one POST to the token endpoint, which the connection's
client bounds at `HTTP_CONNECT_TIMEOUT_SECONDS` (10 s) to connect plus the server's answer; twice that is room."""
RENEWAL_LOCK_POLL_SECONDS = 0.05
"""How often a waiting gateway retries the lock; a renewal takes tens of milliseconds to seconds."""


@asynccontextmanager
async def renewal_lock(path: Path, timeout_s: float = RENEWAL_LOCK_SECONDS) -> AsyncGenerator[bool]:
    """Hold the exclusive lock on `path` for the body; yields whether it is held (False: renew unlocked).

    The directory check, the wait and the release run in a worker thread (the wait sleeps). The acquiring thread
    is shielded from cancellation: a cancelled wait would otherwise leave a lock taken that nobody releases.
    """
    # Imported here: only a renewal needs it, and a serving gateway answers its client before any renewal.
    from filelock import Timeout, UnixFileLock

    # thread_local=False: the lock is taken in one worker thread and released in another.
    lock = UnixFileLock(
        path,
        timeout=timeout_s,
        mode=FILE_MODE,
        poll_interval=RENEWAL_LOCK_POLL_SECONDS,
        fallback_to_soft=False,
        preserve_lock_file=True,
        thread_local=False,
    )

    def acquire() -> bool:
        if directory_problem(path.parent, allow_link=False) is not None:
            return False  # no private oauth/ directory to lock in (a link there is refused): renew unlocked
        try:
            lock.acquire()
        except (Timeout, OSError):
            return False
        return True

    held = False
    with anyio.CancelScope(shield=True):
        held = await anyio.to_thread.run_sync(acquire)
    try:
        yield held
    finally:
        if held:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(lock.release)
