"""Copies of client files, taken before every write, and the undo story: list them, step back, go to the original.

Every version of a client file that `import` replaced is kept next to it, named after the write that
replaced it, so a person can follow `ls` as well as `import --backups`:

- `<file>.mcp-gateway-backup-<UTC time>`: the file before `import --write-client-config` rewrote it;
- `<file>.mcp-gateway-backup-update-<UTC time>`: before another client's import updated its gateway entry;
- `<file>.mcp-gateway-before-restore-<UTC time>`: before a restore replaced it (a restore is undone by
  restoring this copy: nothing a restore replaces is lost);
- `<file>.mcp-gateway-restored-[update-]<UTC time>`: a backup already put back. Restoring a backup renames it
  and every newer one so (never deletes them): that is the pointer of the walk back, so the next
  `--restore` goes one step further instead of restoring the same backup again, and it survives the client
  rewriting its file meanwhile (Claude Code rewrites `~/.claude.json` at every start). A write-back after a
  walk back takes a new backup, which is the next step back.

A second copy within the same second gets `-2`, `-3`, …. A copy holds the file's exact bytes and is
readable by its owner only (0600, or less if the file itself is): a client file holds tokens, and a copy
lies beside it for as long as the person keeps it, so it is never readable by others even when the file
is (a 0644 `mcp.json`). A restore gives the file back its own mode, not the copy's. `prune` removes the
versions a walk back no longer needs: all but the original and the newest few. Copies are created exclusively (`O_EXCL`,
`O_NOFOLLOW`): a link planted at a copy's name is never written through, and a copy that is a link is not
one of ours. The original is the oldest backup: the file before the gateway first changed it. The time in
a name is the `now` the caller passes: this module never reads the clock (the import service's clock; a
fixed one in tests). Everything here does file I/O: call it from a worker thread.

Every write of a client file or the gateway's config (`write_atomically`) goes to a temporary file in the same
directory, flushed to disk, that replaces the old file with one rename, so a reader never sees half of it. A
symlinked file is written through its link (dotfile managers link client configs). A client file keeps its mode
(`~/.claude.json` is 0600 and must stay so); a new file, and the gateway's own config, get 0600.
"""

from __future__ import annotations

import contextlib
import errno
import filecmp
import os
import re
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from mcp_gateway.paths import FILE_MODE

BACKUP_MARK = ".mcp-gateway-backup-"
RESTORED_MARK = ".mcp-gateway-restored-"
BEFORE_RESTORE_MARK = ".mcp-gateway-before-restore-"
UPDATE_TAG = "update-"
TIMESTAMP_FORMAT = "%Y%m%dT%H%M%SZ"
_SUFFIX = re.compile(r"(?P<update>update-)?(?P<stamp>\d{8}T\d{6}Z)(?:-(?P<sequence>\d+))?")
_MARKS = (BACKUP_MARK, RESTORED_MARK, BEFORE_RESTORE_MARK)
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
OWNER_ONLY = 0o600
"""The most a kept version may allow: its owner reads and writes it, nobody else does anything."""
KEPT_BY_PRUNE = 2
"""Besides the original, the newest versions `prune` keeps: one step back, and the undo of the last restore."""

MadeBy = Literal["write-back", "entry-update", "restore"]
"""The write a copy was taken before: `import --write-client-config`, another client's import updating
this file's gateway entry, or a restore."""


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


@dataclass(frozen=True)
class Backup:
    """One kept version of a client file (a backup, a backup already restored, or a before-restore copy)."""

    path: Path
    original: Path
    """The file it is a copy of."""
    taken: datetime
    sequence: int
    made_by: MadeBy = "write-back"
    restored: bool = False
    """A backup already put back: the walk back has gone past it (see the module docstring)."""

    @property
    def order(self) -> tuple[datetime, int]:
        return (self.taken, self.sequence)

    @property
    def is_backup(self) -> bool:
        """Taken before an import's write (not a before-restore copy): a step of the walk back."""
        return self.made_by != "restore"


@dataclass(frozen=True)
class Restored:
    original: Path
    kept_current: Path | None
    """Where the replaced version was kept, when it differed from the backup."""
    changed: bool = True
    """False: the file already held the backup's bytes and was not written."""
    marked: tuple[Path, ...] = ()
    """The backups renamed as restored (their new names), the one put back included: the walk moved past them."""


def create_backup(path: Path, now: datetime, made_by: MadeBy = "write-back") -> Path:
    """Copy `path` byte for byte next to itself, stamped with `now` (UTC); returns the backup's path.

    Raises:
        OSError: the file cannot be read or the copy cannot be written.
    """
    data = path.read_bytes()
    mark = BEFORE_RESTORE_MARK if made_by == "restore" else BACKUP_MARK + _tag(made_by)
    return _write_new(path, mark, data, _copy_mode(path), now)


def parse_backup(path: Path) -> Backup | None:
    """The kept version `path` names, or None when it is not one import made."""
    name = path.name
    for mark in _MARKS:
        cut = name.rfind(mark)
        if cut <= 0:
            continue
        match = _SUFFIX.fullmatch(name[cut + len(mark) :])
        if match is None or (mark == BEFORE_RESTORE_MARK and match.group("update")):
            return None
        taken = datetime.strptime(match.group("stamp"), TIMESTAMP_FORMAT).replace(tzinfo=UTC)
        made_by: MadeBy = (
            "restore" if mark == BEFORE_RESTORE_MARK else "entry-update" if match.group("update") else "write-back"
        )
        sequence = int(match.group("sequence") or 1)
        return Backup(path, path.with_name(name[:cut]), taken, sequence, made_by, restored=mark == RESTORED_MARK)
    return None


def history_of(path: Path) -> list[Backup]:
    """Every kept version of `path` (backups, restored ones, before-restore copies), oldest first."""
    found: list[Backup] = []
    for mark in _MARKS:
        try:
            siblings = list(path.parent.glob(f"{_glob_escape(path.name)}{mark}*"))
        except OSError:
            return []
        for sibling in siblings:
            copy = parse_backup(sibling)
            if copy is not None and copy.original == path and _is_regular(sibling):
                found.append(copy)
    return sorted(found, key=lambda copy: copy.order)


def backups_of(path: Path) -> list[Backup]:
    """The backups of `path` (taken before an import's write, restored or not), oldest first."""
    return [copy for copy in history_of(path) if copy.is_backup]


def original_of(path: Path) -> Backup | None:
    """The oldest backup: `path` as it was before the gateway first changed it; None without backups."""
    backups = backups_of(path)
    return backups[0] if backups else None


def next_step_back(path: Path) -> Backup | None:
    """The backup one `--restore` puts back: the newest not yet restored that differs from the file now.

    A newer one that holds exactly the file's bytes would change nothing; the walk passes it by. None: the
    walk is at its end (every backup restored, or none left that would change the file).
    """
    for backup in reversed(backups_of(path)):
        if not backup.restored and not same_bytes(backup.path, path):
            return backup
    return None


def same_bytes(copy: Path, path: Path) -> bool:
    """Whether `copy` holds exactly `path`'s bytes (compared in chunks: a client file may be megabytes)."""
    try:
        return filecmp.cmp(copy, path, shallow=False)
    except OSError:
        return False


def restore(backup: Backup, now: datetime) -> Restored:
    """Put the copy's exact bytes back in place of its file; a replaced version is kept, stamped `now`.

    Restoring a backup also marks it and every newer backup not yet restored as restored, so the next step
    back goes to the one before it. Restoring a before-restore copy (the undo of a restore) moves nothing.

    Raises:
        OSError: the copy cannot be read or the file cannot be written.
    """
    data = backup.path.read_bytes()
    target = backup.original
    kept: Path | None = None
    try:
        current = target.read_bytes()
    except FileNotFoundError:
        current = None
    if current is not None and current != data:
        kept = _write_new(target, BEFORE_RESTORE_MARK, current, _copy_mode(target), now)
    if current != data:
        write_atomically(target, data)  # the file's own mode (0600 when it is gone), never the copy's narrower one
    marked: list[Path] = []
    if backup.is_backup:
        for newer in backups_of(target):
            if newer.order >= backup.order and not newer.restored:
                marked.append(_mark_restored(newer))
    return Restored(target, kept, changed=current != data, marked=tuple(marked))


@dataclass(frozen=True)
class Pruned:
    removed: tuple[Path, ...]
    kept: tuple[Path, ...]
    problem: str | None = None
    """Why a version that should have gone is still there (it is among `kept`)."""


def prune(path: Path, keep: int = KEPT_BY_PRUNE) -> Pruned:
    """Remove the kept versions of `path` but the original and the newest `keep` (oldest first)."""
    history = history_of(path)
    first = original_of(path)
    spared = {copy.path for copy in history[-keep:]} | ({first.path} if first is not None else set[Path]())
    removed: list[Path] = []
    kept: list[Path] = []
    problem: str | None = None
    for copy in history:
        if copy.path not in spared:
            try:
                os.unlink(copy.path)  # a name history_of saw as a regular file; unlink never follows a link
            except OSError as error:
                problem = problem or f"cannot remove {copy.path} ({error.strerror or error})"
            else:
                removed.append(copy.path)
                continue
        kept.append(copy.path)
    return Pruned(tuple(removed), tuple(kept), problem)


def private(copy: Path) -> bool:
    """Whether a kept version is readable by its owner only (one an older gateway made may not be)."""
    try:
        return stat.S_IMODE(os.lstat(copy).st_mode) & ~OWNER_ONLY == 0
    except OSError:
        return True


def _copy_mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode) & OWNER_ONLY


def _mark_restored(backup: Backup) -> Path:
    """Rename a backup as restored; a hard link then an unlink, so nothing at the new name is ever replaced."""
    name = backup.path.name
    renamed = backup.path.with_name(name.replace(BACKUP_MARK, RESTORED_MARK, 1))
    try:
        os.link(backup.path, renamed, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: a rename, once nothing is at the new name
        if os.path.lexists(renamed):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(renamed)) from None
        os.rename(backup.path, renamed)
        return renamed
    os.unlink(backup.path)
    return renamed


def _tag(made_by: MadeBy) -> str:
    return UPDATE_TAG if made_by == "entry-update" else ""


def _write_new(path: Path, mark: str, data: bytes, mode: int, now: datetime) -> Path:
    """A new copy named `<path><mark><UTC time>[-n]`; `mark` may end with a tag (`…-backup-update-`)."""
    stamp = now.astimezone(UTC).strftime(TIMESTAMP_FORMAT)
    sequence = 1
    while True:
        suffix = stamp if sequence == 1 else f"{stamp}-{sequence}"
        candidate = path.with_name(f"{path.name}{mark}{suffix}")
        # A restored backup keeps its time: a new backup in that second must not take the name it had.
        restored = candidate.with_name(candidate.name.replace(BACKUP_MARK, RESTORED_MARK, 1))
        if mark.startswith(BACKUP_MARK) and os.path.lexists(restored):
            sequence += 1
            continue
        try:
            fd = os.open(candidate, _CREATE_FLAGS, mode)
        except FileExistsError:
            sequence += 1
            continue
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(candidate, mode)
        return candidate


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _glob_escape(name: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", name)
