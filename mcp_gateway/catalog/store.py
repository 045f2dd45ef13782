"""The catalog on disk: `cache.json`, shared by every gateway process of one workspace.

Readers never lock: every write is atomic (a private temp file in the same directory, fsynced, renamed over
`cache.json`, then the directory fsynced), so a reader sees a whole old file or a whole new one. Writers
lock `cache.json.lock` (`cache_lock`: waits bounded by `LOCK_TIMEOUT_S`, a failure a `CatalogError` naming the
file) and re-read the file under the lock, so an entry another process wrote meanwhile is merged, never lost.

What is at `cache.json` is not trusted to be a catalog (see `workspace_files`): it is read only if it is a
regular file of at most `MAX_CACHE_BYTES`, never through a link, never by blocking on a FIFO or device, and
its mode is never changed. Bad content is never an exception:
- a file that is not JSON, not an object, of an older format, a link, not a regular file or too large is
  renamed aside (`cache.json.<why>-<UTC>`; a link is moved itself, its target is not touched; the newest
  `MAX_SET_ASIDE_FILES` are kept) and the catalog starts empty; if it cannot be renamed it is ignored
  (and replaced by the next write);
- a file a newer mcp-gateway wrote is read-only here: the catalog is served from memory and writes are
  refused, so that two gateway versions sharing a workspace never destroy each other's catalog.
`CatalogError` means the file system refused (unreadable file, unwritable directory, lock held past its
timeout, a newer gateway's file). Temp files of writers that were killed are removed on every read.

Every method does disk I/O (and writers wait for the lock): call them from worker threads. The store keeps
no memory of the file; each operation returns a `CacheView` whose `signature` a caller compares with
`signature()` to learn, with one `lstat`, whether another process wrote since.

Each write of cache.json also writes `cache-digest.json` beside it (see `summary`): a line per server for the
gateway's instructions, read before the first answer to a client, when cache.json is not yet. The digest is
held to the same rules (no link followed, a capped read, atomic replacement) but is advisory: failing to
write or read it is logged, never an error.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mcp_gateway.catalog.cachefile import ParsedCache, parse_cache, serialize_cache
from mcp_gateway.catalog.records import ServerCatalog
from mcp_gateway.catalog.summary import (
    DIGEST_NAME,
    EMPTY_DIGEST,
    MAX_DIGEST_BYTES,
    Digest,
    parse_digest,
    serialize_digest,
)
from mcp_gateway.errors import CatalogError, UnusableFileError
from mcp_gateway.paths import Workspace, ensure_private_dir
from mcp_gateway.workspace_files import private_lock, read_regular, remove_stale_temp_files, replace_file, set_aside

logger = logging.getLogger(__name__)

LOCK_TIMEOUT_S = 10.0
"""How long to wait for another process to finish its write before giving up."""
LOCK_POLL_S = 0.01
"""How often a waiting writer retries; writes take milliseconds."""


@contextlib.contextmanager
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


MAX_CACHE_BYTES = 256 * 1024 * 1024
"""The largest cache.json read. The largest real catalog measured (5,645 tools) is about 10 MB, so this
holds 25 times that; the cap is there to refuse what is not a catalog (a device, a runaway file), not to
judge big ones."""
MAX_SET_ASIDE_FILES = 5
"""Unusable cache files kept for inspection; older ones are deleted."""

Catalogs = dict[str, ServerCatalog]


@dataclass(frozen=True)
class CacheSignature:
    """What `lstat` says about one version of the file.

    Every write renames a new inode into place with a new mtime, so a write changes the signature; only an
    inode number reused with the same size within one mtime tick could hide one, until the next write.
    """

    mtime_ns: int
    size: int
    inode: int

    @classmethod
    def of(cls, stat: os.stat_result) -> CacheSignature:
        return cls(mtime_ns=stat.st_mtime_ns, size=stat.st_size, inode=stat.st_ino)


@dataclass(frozen=True)
class CacheView:
    """The catalog as one read or write left the file."""

    servers: Catalogs
    signature: CacheSignature | None
    """The file these servers came from; None when there is no file."""
    notice: str | None = None
    """Why this gateway does not use or cannot update the file (a newer gateway's, one it cannot move)."""


@dataclass(frozen=True)
class _Snapshot:
    parsed: ParsedCache
    signature: CacheSignature | None
    problem: str | None = field(default=None)
    """Why the file is unusable, as a phrase after its path (for messages)."""


class CacheStore:
    def __init__(self, path: Path, lock_path: Path, *, lock_timeout_s: float = LOCK_TIMEOUT_S) -> None:
        self.path = path
        self.lock_path = lock_path
        self.digest_path = path.with_name(DIGEST_NAME)
        self.lock_timeout_s = lock_timeout_s
        self._refusal_logged = False

    @classmethod
    def for_workspace(cls, workspace: Workspace) -> CacheStore:
        return cls(workspace.cache_path, workspace.cache_lock_path)

    def signature(self) -> CacheSignature | None:
        """The file's current signature (of a link itself, never its target), or None when there is none."""
        try:
            return CacheSignature.of(os.lstat(self.path))
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CatalogError(f"cannot stat {self.path}: {exc.strerror}") from exc

    def changed_since(self, signature: CacheSignature | None) -> bool:
        """Whether the file was written, created or removed since `signature` was taken."""
        return self.signature() != signature

    # Reading never takes the lock; only setting an unusable file aside does.

    def load(self) -> CacheView:
        """Every sound server entry; empty when the file is missing or unusable (which is then set aside).

        Raises:
            CatalogError: the file exists but cannot be read.
        """
        remove_stale_temp_files(self.path)
        snapshot = self._read()
        parsed = snapshot.parsed
        if parsed.newer_version is not None:
            return CacheView({}, snapshot.signature, _newer_notice(self.path, parsed.newer_version))
        if parsed.unusable is None:
            return CacheView(dict(parsed.servers), snapshot.signature)
        try:
            with self._lock():
                # Set aside only the file we judged: another process may have replaced it meanwhile.
                if self.signature() != snapshot.signature:
                    return CacheView({}, snapshot.signature)
                if self._set_aside(snapshot):
                    return CacheView({}, None)
        except CatalogError as exc:
            logger.warning("left unusable %s in place for the next writer: %s", self.path, exc)
        return CacheView({}, snapshot.signature, f"{self.path} {snapshot.problem}; it is ignored: remove it")

    # The digest: read without the lock, rewritten with every cache.json written.

    def load_digest(self) -> Digest:
        """The servers' summaries as last written beside cache.json; empty when there are none to use."""
        remove_stale_temp_files(self.digest_path)
        try:
            return parse_digest(read_regular(self.digest_path, MAX_DIGEST_BYTES))
        except FileNotFoundError:
            return EMPTY_DIGEST
        except (UnusableFileError, OSError) as exc:
            logger.warning("ignored %s: %s", self.digest_path, exc)
            return EMPTY_DIGEST

    def refresh_digest(self, view: CacheView) -> None:
        """Rewrite the digest from `view` (what load() read) when it was derived from another cache.json."""
        if view.signature is None or view.notice is not None:
            return
        cache = (view.signature.mtime_ns, view.signature.size, view.signature.inode)
        if self.load_digest().cache != cache:
            self._write_digest(view.servers, view.signature)

    def _write_digest(self, servers: Catalogs, signature: CacheSignature) -> None:
        cache = (signature.mtime_ns, signature.size, signature.inode)
        try:
            # Not fsynced: after a crash, a digest older than cache.json is told by its signature and rewritten.
            replace_file(self.digest_path, serialize_digest(servers.values(), cache), durable=False)
        except OSError as exc:
            logger.warning(
                "could not write %s (the instructions lose their lines until the next write): %s",
                self.digest_path,
                exc.strerror,
            )

    # Every write: lock, re-read (merge), change, write atomically. Each returns the merged view.

    def save_server(self, entry: ServerCatalog) -> CacheView:
        """Store one server's catalog, keeping every other server's entry as currently on disk."""
        return self.save_many((entry,))

    def save_many(self, entries: Iterable[ServerCatalog]) -> CacheView:
        """Store several servers' catalogs in one write (a batch refresh)."""
        batch = list(entries)

        def apply(servers: Catalogs) -> bool:
            servers.update((entry.server, entry) for entry in batch)
            return bool(batch)

        return self._update(apply)

    def remove_servers(self, names: Iterable[str]) -> CacheView:
        """Drop these servers' entries; unknown names are ignored."""
        doomed = set(names)

        def apply(servers: Catalogs) -> bool:
            present = doomed & servers.keys()
            for name in present:
                del servers[name]
            return bool(present)

        return self._update(apply)

    def prune(self, keep: set[str]) -> CacheView:
        """Drop every server not in `keep` (those no longer configured)."""

        def apply(servers: Catalogs) -> bool:
            stale = servers.keys() - keep
            for name in stale:
                del servers[name]
            return bool(stale)

        return self._update(apply)

    def _update(self, apply: Callable[[Catalogs], bool]) -> CacheView:
        for directory in {self.path.parent, self.lock_path.parent}:
            try:
                ensure_private_dir(directory)
            except OSError as exc:
                raise CatalogError(f"cannot create {directory}: {exc.strerror}") from exc
        with self._lock():
            remove_stale_temp_files(self.path)
            snapshot = self._read()
            if snapshot.parsed.newer_version is not None:
                raise self._refuse_newer(snapshot.parsed.newer_version)
            unusable = snapshot.parsed.unusable is not None
            if unusable:
                # If it cannot be moved, the rename below replaces it: a link or a FIFO itself, never a target.
                self._set_aside(snapshot)
            servers = dict(snapshot.parsed.servers)
            # Rewrite when entries were dropped too, so the file on disk is sound again.
            if apply(servers) or unusable or snapshot.parsed.dropped:
                return CacheView(servers, self._write(servers))
            return CacheView(servers, snapshot.signature)

    def _lock(self) -> contextlib.AbstractContextManager[None]:
        return cache_lock(self.lock_path, timeout_s=self.lock_timeout_s)

    def _read(self) -> _Snapshot:
        # The signature before the read: a file replaced in between is then seen as changed and read again.
        signature = self.signature()
        try:
            data = read_regular(self.path, MAX_CACHE_BYTES)
        except FileNotFoundError:
            return _Snapshot(ParsedCache({}), None)
        except UnusableFileError as exc:
            return _Snapshot(ParsedCache({}, unusable=exc.tag), signature, exc.problem)
        except OSError as exc:
            raise CatalogError(f"cannot read {self.path}: {exc.strerror}") from exc
        parsed = parse_cache(data)
        if parsed.dropped:
            logger.warning("dropped unsound entries for %s from %s", ", ".join(parsed.dropped), self.path)
        problem = "is not a catalog mcp-gateway can read" if parsed.unusable is not None else None
        return _Snapshot(parsed, signature, problem)

    def _write(self, servers: Catalogs) -> CacheSignature:
        """Replace the file atomically; the caller holds the lock. Returns the new file's signature."""
        try:
            written = replace_file(self.path, serialize_cache(servers.values()), durable=True)
        except OSError as exc:
            raise CatalogError(f"cannot write {self.path}: {exc.strerror}") from exc
        signature = CacheSignature.of(written)
        self._write_digest(servers, signature)
        return signature

    def _refuse_newer(self, version: int) -> CatalogError:
        message = _newer_notice(self.path, version)
        if not self._refusal_logged:
            self._refusal_logged = True
            logger.warning("%s", message)
        return CatalogError(message)

    def _set_aside(self, snapshot: _Snapshot) -> bool:
        """Rename the unusable file (a link itself) out of the way; the caller holds the lock. Keeps the newest few."""
        try:
            target = set_aside(self.path, snapshot.parsed.unusable or "corrupt", keep=MAX_SET_ASIDE_FILES)
        except FileNotFoundError:
            return True
        except OSError as exc:
            logger.warning("could not set aside %s (it %s): %s", self.path, snapshot.problem, exc.strerror)
            return False
        logger.warning(
            "set aside %s (it %s) as %s; the catalog is rebuilt from the servers",
            self.path,
            snapshot.problem,
            self.path.with_name(target),
        )
        return True


def _newer_notice(path: Path, version: int) -> str:
    return (
        f"{path} was written by a newer mcp-gateway (catalog format {version}); this one leaves it as it is and "
        "keeps its tool lists in memory: upgrade mcp-gateway"
    )
