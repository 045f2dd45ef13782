"""How the gateway touches the files in its workspace: never through a planted link, never blocking, never unbounded.

Anything running as the user can put anything at a workspace path, so a name is not trusted to be the file
the gateway wrote there:
- A file the gateway writes is never reached through a symbolic link (`O_NOFOLLOW`), so a link planted as
  `cache.json` or as a server's log cannot redirect gateway output into a file elsewhere. `config.json` is
  the one file read through a link (dotfiles repositories link it), and it too must be a regular file.
- A file is read only if it is a regular file, checked before it is opened (opening some devices has side
  effects) and again on the open descriptor, which is opened `O_NONBLOCK` (a FIFO swapped in between
  answers at once instead of blocking the reader for ever), and only up to a cap the caller names.
- A file's mode is set only when this process creates it (`open`'s mode, then `fchmod` of its descriptor, as
  the umask may have narrowed it): the mode of an existing file, or of a link's target, belongs to whoever
  made it.
- A whole-file write goes to a private temp file created exclusively (`O_EXCL`, `.<name>.<pid>.tmp`) in
  the same directory and is renamed over the name; the rename replaces a planted link itself, never its
  target. Temp files whose writer is no longer running are removed by `remove_stale_temp_files`.

Each function takes a path, or a name and the descriptor of the directory it is in (`directory_fd`, see
`open_directory`): names opened relative to a directory descriptor stay in that directory even if a link is
swapped in for it. This module imports nothing of the gateway but `errors` and `paths`: every layer uses it.
The front has its own minimal copy (`front/private_files.py`): it may not import `errors`.

Every function here does disk I/O: call it from a worker thread, never on the event loop.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import os
import re
import stat
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING

from mcp_gateway.errors import UnusableFileError
from mcp_gateway.paths import FILE_MODE

if TYPE_CHECKING:
    from filelock import UnixFileLock

_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

READ_CHUNK_BYTES = 1024 * 1024
_TEMP_NAME = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)\.tmp")
_SET_ASIDE_STAMP = re.compile(r"\.[a-z0-9-]+-(?P<stamp>\d{8}T\d{6}\.?\d{6}Z)$")

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def read_regular(
    path: Path | str, max_bytes: int, *, follow_symlinks: bool = False, directory_fd: int | None = None
) -> bytes:
    """The whole content of the regular file at `path`, at most `max_bytes` long.

    Raises:
        FileNotFoundError: nothing is there.
        UnusableFileError: it is a symbolic link (unless `follow_symlinks`), not a regular file, or too large.
        OSError: the file system refused (permissions, I/O).
    """
    _check_regular(path, os.stat(path, dir_fd=directory_fd, follow_symlinks=follow_symlinks), max_bytes)
    flags = _READ_FLAGS if follow_symlinks else _READ_FLAGS | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags, dir_fd=directory_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_symlinks:
            raise _link(path) from exc  # swapped for a link after the check
        raise
    try:
        _check_regular(path, os.fstat(fd), max_bytes)
        return _read_at_most(fd, path, max_bytes)
    finally:
        os.close(fd)


def create_exclusive(path: Path | str, *, mode: int = FILE_MODE, directory_fd: int | None = None) -> int:
    """A new file at `path` with exactly `mode` (whatever the umask), open for writing; `FileExistsError` if
    anything, a link included, is there."""
    fd = os.open(path, _CREATE_FLAGS, mode, dir_fd=directory_fd)
    try:
        os.fchmod(fd, mode)  # the umask may have narrowed it; the descriptor is the file, never a link
    except OSError:
        os.close(fd)
        raise
    return fd


def replace_file(
    path: Path | str, data: bytes, *, durable: bool, mode: int = FILE_MODE, directory_fd: int | None = None
) -> os.stat_result:
    """Replace whatever is at `path` by a regular file of `mode` (private unless told) holding `data`, atomically;
    returns its `fstat`.

    One writer per file per process at a time (the caller serializes): the temp file's name is this
    process's. `durable` fsyncs the file and the directory, so the rename survives a crash.
    """
    temp = temp_path(Path(path), os.getpid())
    try:
        fd = create_exclusive(temp, mode=mode, directory_fd=directory_fd)
    except FileExistsError:
        # Named with our pid: left by a dead process whose pid we reuse, or by a failed write of ours.
        os.unlink(temp, dir_fd=directory_fd)
        fd = create_exclusive(temp, mode=mode, directory_fd=directory_fd)
    committed = False
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            if durable:
                os.fsync(file.fileno())
            written = os.fstat(file.fileno())
        os.replace(temp, path, src_dir_fd=directory_fd, dst_dir_fd=directory_fd)
        committed = True
    finally:
        if not committed:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=directory_fd)
    if durable:
        _fsync_directory(Path(path).parent, directory_fd)
    return written


def private_lock(path: Path, *, timeout_s: float, poll_s: float, thread_local: bool = True) -> UnixFileLock:
    """A cross-process lock on `path`: a `flock(2)` through `filelock` (4.2.12 or later: 4.2.0 and older
    truncate and chmod whatever they open). It dies with its holder, so no stale lock outlives a crash; its
    file is never deleted (two holders would lock two inodes) and is opened `O_NOFOLLOW` (a link planted there
    is refused, never followed or chmodded); never the soft marker-file fallback, which a killed holder would
    leave behind. Acquiring sleeps: take it in a worker thread. POSIX only."""
    from filelock import UnixFileLock  # only writers need it, and a serving gateway answers before any write

    return UnixFileLock(
        path,
        timeout=timeout_s,
        mode=FILE_MODE,
        poll_interval=poll_s,
        fallback_to_soft=False,
        preserve_lock_file=True,
        thread_local=thread_local,
    )


def temp_path(path: Path, pid: int) -> Path:
    return path.with_name(f".{path.name}.{pid}.tmp")


def remove_stale_temp_files(path: Path) -> list[Path]:
    """Remove the temp files of `path` left by writers that no longer run (a SIGKILL mid-write); returns them."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMP_NAME.fullmatch(entry.name)
        if match is None or match["name"] != path.name:
            continue
        if _process_exists(int(match["pid"])):
            continue  # mid-write, or a reused pid: the file goes once that process is gone
        with contextlib.suppress(OSError):
            os.unlink(entry.path)  # unlinks a link itself, never its target
            removed.append(Path(entry.path))
    return removed


def set_aside(path: Path | str, tag: str, *, keep: int, directory_fd: int | None = None) -> str:
    """Rename what is at `path` (a link itself, never its target) to `<name>.<tag>-<UTC time>` beside it, so that a
    person can look at it, and delete all but the newest `keep` of what was set aside in that directory (a
    directory set aside stays: it is the user's to inspect). Returns the new name.

    Raises:
        OSError: it could not be renamed (`FileNotFoundError`: nothing is there).
    """
    source = Path(path)
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    target = source.with_name(f"{source.name}.{tag}-{stamp}")
    os.replace(source, target, src_dir_fd=directory_fd, dst_dir_fd=directory_fd)
    try:
        with os.scandir(source.parent if directory_fd is None else directory_fd) as entries:
            names = [entry.name for entry in entries]
    except OSError:
        return target.name
    aside = {name: match["stamp"].replace(".", "") for name in names if (match := _SET_ASIDE_STAMP.search(name))}
    for old in sorted(aside, key=aside.__getitem__)[:-keep]:
        with contextlib.suppress(OSError):
            os.unlink(source.with_name(old), dir_fd=directory_fd)
    return target.name


@contextlib.contextmanager
def open_directory(directory: Path) -> Generator[int]:
    """A descriptor of `directory` itself, refusing a link: names opened relative to it stay in it."""
    try:
        fd = os.open(directory, _DIRECTORY_FLAGS)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise _unusable_entry(directory) from exc
        raise
    try:
        yield fd
    finally:
        os.close(fd)


@contextlib.contextmanager
def usable_directory(directory: Path) -> Generator[int | None]:
    """A descriptor of `directory` itself, or None when there is no usable one (missing, a link, a file): for
    readers and sweepers, for whom that means there is nothing to do."""
    try:
        fd = os.open(directory, _DIRECTORY_FLAGS)
    except OSError:
        yield None
        return
    try:
        yield fd
    finally:
        os.close(fd)


def open_append(name: str, directory_fd: int) -> int:
    """The regular file `name` in the directory `directory_fd`, open for appending (created private if missing).

    Raises:
        UnusableFileError: it is a link or not a regular file (a FIFO without a reader included).
        OSError: the file system refused.
    """
    try:
        existing = os.stat(name, dir_fd=directory_fd, follow_symlinks=False)
    except FileNotFoundError:
        pass
    else:
        _check_regular(Path(name), existing, None)
    try:
        fd = os.open(name, _APPEND_FLAGS, FILE_MODE, dir_fd=directory_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):  # a link, or a FIFO nobody reads, swapped in meanwhile
            raise UnusableFileError(name, "is not a regular file", "not-a-file") from exc
        raise
    try:
        _check_regular(Path(name), os.fstat(fd), None)
    except UnusableFileError:
        os.close(fd)
        raise
    return fd


def rotate(name: str, keep: int, directory_fd: int) -> None:
    """`name` becomes `name.1`, `name.1` becomes `name.2`, … up to `name.<keep>`, which the one before replaces:
    each a rename of the entry itself (a link is moved, never followed)."""
    for index in range(keep - 1, 0, -1):
        with contextlib.suppress(FileNotFoundError):
            os.replace(f"{name}.{index}", f"{name}.{index + 1}", src_dir_fd=directory_fd, dst_dir_fd=directory_fd)
    os.replace(name, f"{name}.1", src_dir_fd=directory_fd, dst_dir_fd=directory_fd)


def kind_of(mode: int) -> str:
    """What a non-regular file is, as a noun phrase for a message."""
    kinds = (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((noun for test, noun in kinds if test(mode)), "not a regular file")


def _check_regular(path: Path | str, info: os.stat_result, max_bytes: int | None) -> None:
    if stat.S_ISLNK(info.st_mode):
        raise _link(path)
    if not stat.S_ISREG(info.st_mode):
        raise UnusableFileError(str(path), f"is {kind_of(info.st_mode)}, not a regular file", "not-a-file")
    if max_bytes is not None and info.st_size > max_bytes:
        raise _oversize(path, max_bytes)


def _read_at_most(fd: int, path: Path | str, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while chunk := os.read(fd, min(READ_CHUNK_BYTES, max_bytes + 1 - total)):
        chunks.append(chunk)
        total += len(chunk)
        if total > max_bytes:
            raise _oversize(path, max_bytes)  # it grew after the size check
    return b"".join(chunks)


def _link(path: Path | str) -> UnusableFileError:
    return UnusableFileError(str(path), "is a symbolic link", "link")


def _oversize(path: Path | str, max_bytes: int) -> UnusableFileError:
    return UnusableFileError(str(path), f"is larger than {max_bytes // (1024 * 1024)} MiB", "oversize")


def _unusable_entry(path: Path) -> UnusableFileError:
    try:
        info = os.lstat(path)
    except OSError:
        return UnusableFileError(str(path), "is not a directory", "not-a-directory")
    return UnusableFileError(str(path), f"is {kind_of(info.st_mode)}, not a directory", "not-a-directory")


def _fsync_directory(directory: Path, directory_fd: int | None) -> None:
    """Make a rename durable; some file systems cannot fsync a directory, and the rename is done anyway."""
    if directory_fd is not None:
        with contextlib.suppress(OSError):
            os.fsync(directory_fd)
        return
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


def _process_exists(pid: int) -> bool:
    """Whether a process `pid` exists (a reused pid counts: the temp file goes once it is gone)."""
    if pid < 1:
        return False
    if os.name != "posix":  # signal 0 would end a process on Windows
        import psutil

        return psutil.pid_exists(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
