"""The catalog on disk: `cache.json`, shared by every gateway process of one workspace.

Readers never lock: every write is atomic (a private temp file in the same directory, fsynced, renamed over
`cache.json`, then the directory fsynced), so a reader sees a whole old file or a whole new one. Writers
lock `cache.json.lock` and re-read the file under the lock, so an entry another process wrote meanwhile is
merged, never lost. A file that is not JSON, not an object or of another version is renamed aside
(`cache.json.corrupt-<UTC>` or `cache.json.foreign-v<N>-<UTC>`, the newest `MAX_SET_ASIDE_FILES` kept) and
the catalog starts empty: bad content is never an exception. `CatalogError` means the file system refused
(unreadable file, unwritable directory, lock held past its timeout). Directory 0700, files 0600.

A long-running gateway notices another process's write with one `stat` per search:
`store.changed_since(store.last_signature)`.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import anyio.to_thread

from mcp_gateway.catalog.cachefile import ParsedCache, parse_cache, serialize_cache
from mcp_gateway.catalog.filelock import LOCK_TIMEOUT_S, FileLock
from mcp_gateway.catalog.records import ServerCatalog
from mcp_gateway.errors import CatalogError
from mcp_gateway.paths import FILE_MODE, Workspace, ensure_private_dir

logger = logging.getLogger(__name__)

MAX_SET_ASIDE_FILES = 5
"""Corrupt or foreign cache files kept for inspection; older ones are deleted."""
_TEMP_SUFFIX = ".tmp"

Catalogs = dict[str, ServerCatalog]


@dataclass(frozen=True)
class CacheSignature:
    """What `stat` says about one version of the file.

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
class _Snapshot:
    parsed: ParsedCache
    signature: CacheSignature | None


class CacheStore:
    def __init__(self, path: Path, lock_path: Path, *, lock_timeout_s: float = LOCK_TIMEOUT_S) -> None:
        self.path = path
        self.lock_path = lock_path
        self.lock_timeout_s = lock_timeout_s
        self._last_signature: CacheSignature | None = None

    @classmethod
    def for_workspace(cls, workspace: Workspace) -> CacheStore:
        return cls(workspace.cache_path, workspace.cache_lock_path)

    @property
    def last_signature(self) -> CacheSignature | None:
        """The signature of the file as this store last read or wrote it."""
        return self._last_signature

    def signature(self) -> CacheSignature | None:
        """The file's current signature, or None when there is no file."""
        try:
            return CacheSignature.of(os.stat(self.path))
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CatalogError(f"cannot stat {self.path}: {exc.strerror}") from exc

    def changed_since(self, signature: CacheSignature | None) -> bool:
        """Whether the file was written, created or removed since `signature` was taken."""
        return self.signature() != signature

    # Reading never takes the lock; only setting an unusable file aside does.

    def load(self) -> Catalogs:
        """Every sound server entry; empty when the file is missing or unusable (which is then set aside).

        Raises:
            CatalogError: the file exists but cannot be read.
        """
        snapshot = self._read()
        self._last_signature = snapshot.signature
        if snapshot.parsed.unusable is not None:
            try:
                with self._lock():
                    # Set aside only the file we judged: another process may have replaced it meanwhile.
                    if self.signature() == snapshot.signature and self._set_aside(snapshot.parsed.unusable):
                        self._last_signature = None
            except CatalogError as exc:
                logger.warning("left unusable %s in place for the next writer: %s", self.path, exc)
        return dict(snapshot.parsed.servers)

    async def aload(self) -> Catalogs:
        return await anyio.to_thread.run_sync(self.load)

    # Every write: lock, re-read (merge), change, write atomically. Each returns the merged view.

    def save_server(self, entry: ServerCatalog) -> Catalogs:
        """Store one server's catalog, keeping every other server's entry as currently on disk."""
        return self.save_many((entry,))

    def save_many(self, entries: Iterable[ServerCatalog]) -> Catalogs:
        """Store several servers' catalogs in one write (a batch refresh)."""
        batch = list(entries)

        def apply(servers: Catalogs) -> bool:
            servers.update((entry.server, entry) for entry in batch)
            return bool(batch)

        return self._update(apply)

    def remove_servers(self, names: Iterable[str]) -> Catalogs:
        """Drop these servers' entries; unknown names are ignored."""
        doomed = set(names)

        def apply(servers: Catalogs) -> bool:
            present = doomed & servers.keys()
            for name in present:
                del servers[name]
            return bool(present)

        return self._update(apply)

    def prune(self, keep: set[str]) -> Catalogs:
        """Drop every server not in `keep` (those no longer configured)."""

        def apply(servers: Catalogs) -> bool:
            stale = servers.keys() - keep
            for name in stale:
                del servers[name]
            return bool(stale)

        return self._update(apply)

    async def asave_server(self, entry: ServerCatalog) -> Catalogs:
        return await anyio.to_thread.run_sync(self.save_server, entry)

    async def asave_many(self, entries: Iterable[ServerCatalog]) -> Catalogs:
        return await anyio.to_thread.run_sync(self.save_many, list(entries))

    async def aremove_servers(self, names: Iterable[str]) -> Catalogs:
        return await anyio.to_thread.run_sync(self.remove_servers, list(names))

    async def aprune(self, keep: set[str]) -> Catalogs:
        return await anyio.to_thread.run_sync(self.prune, set(keep))

    def _update(self, apply: Callable[[Catalogs], bool]) -> Catalogs:
        for directory in {self.path.parent, self.lock_path.parent}:
            try:
                ensure_private_dir(directory)
            except OSError as exc:
                raise CatalogError(f"cannot create {directory}: {exc.strerror}") from exc
        with self._lock():
            snapshot = self._read()
            if snapshot.parsed.unusable is not None:
                self._set_aside(snapshot.parsed.unusable)
            servers = dict(snapshot.parsed.servers)
            # Rewrite when entries were dropped too, so the file on disk is sound again.
            if apply(servers) or snapshot.parsed.unusable is not None or snapshot.parsed.dropped:
                self._last_signature = self._write(servers)
            else:
                self._last_signature = snapshot.signature
        return servers

    def _lock(self) -> FileLock:
        return FileLock(self.lock_path, timeout_s=self.lock_timeout_s)

    def _read(self) -> _Snapshot:
        try:
            with open(self.path, "rb") as file:
                data = file.read()
                stat = os.fstat(file.fileno())
                if stat.st_mode & 0o777 != FILE_MODE:
                    _fix_mode(file.fileno())
        except FileNotFoundError:
            return _Snapshot(ParsedCache({}), None)
        except OSError as exc:
            raise CatalogError(f"cannot read {self.path}: {exc.strerror}") from exc
        parsed = parse_cache(data)
        if parsed.dropped:
            logger.warning("dropped unsound entries for %s from %s", ", ".join(parsed.dropped), self.path)
        return _Snapshot(parsed, CacheSignature.of(stat))

    def _write(self, servers: Catalogs) -> CacheSignature:
        """Replace the file atomically; the caller holds the lock. Returns the new file's signature."""
        data = serialize_cache(servers.values())
        directory = self.path.parent
        self._remove_stale_temp_files()
        temp = directory / f".{self.path.name}.{os.getpid()}{_TEMP_SUFFIX}"
        committed = False
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, FILE_MODE)
            with os.fdopen(fd, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
                signature = CacheSignature.of(os.fstat(file.fileno()))
            os.replace(temp, self.path)
            committed = True
        except OSError as exc:
            raise CatalogError(f"cannot write {self.path}: {exc.strerror}") from exc
        finally:
            if not committed:
                temp.unlink(missing_ok=True)
        _fsync_directory(directory)
        return signature

    def _remove_stale_temp_files(self) -> None:
        # Under the lock no other writer is mid-write, so any temp file left is from a writer that died.
        for stale in self.path.parent.glob(f".{self.path.name}.*{_TEMP_SUFFIX}"):
            stale.unlink(missing_ok=True)

    def _set_aside(self, reason: str) -> bool:
        """Rename the unusable file out of the way (the caller holds the lock); keep only the newest few."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
        target = self.path.with_name(f"{self.path.name}.{reason}-{stamp}")
        try:
            os.replace(self.path, target)
        except FileNotFoundError:
            return True
        except OSError as exc:
            logger.warning("could not set aside unusable %s: %s", self.path, exc.strerror)
            return False
        logger.warning("set aside unusable %s as %s; the catalog is rebuilt from the servers", self.path, target)
        kept = sorted(
            [
                *self.path.parent.glob(f"{self.path.name}.corrupt-*"),
                *self.path.parent.glob(f"{self.path.name}.foreign-*"),
            ],
            key=lambda p: p.name.rsplit("-", 1)[-1],
            reverse=True,
        )
        for old in kept[MAX_SET_ASIDE_FILES:]:
            old.unlink(missing_ok=True)
        return True


def _fix_mode(fd: int) -> None:
    # A file we do not own stays readable to us; the next write replaces it with a private one.
    with contextlib.suppress(OSError):
        os.fchmod(fd, FILE_MODE)


def _fsync_directory(directory: Path) -> None:
    """Make the rename durable; some file systems cannot fsync a directory, and the rename is done anyway."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
