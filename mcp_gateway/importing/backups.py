"""The undo of `import`'s writes to client files: every replaced version kept next to the file, listed, and
walked back one step at a time, or to the original.

Every version of a client file that `import` replaced is kept next to it, named after the write that replaced
it, so a person can follow `ls` as well as `import --backups`:

- `<file>.mcp-gateway-backup-<UTC time>`: the file before `import --write-client-config` rewrote it;
- `<file>.mcp-gateway-backup-update-<UTC time>`: before another client's import updated its gateway entry;
- `<file>.mcp-gateway-before-restore-<UTC time>`: before a restore replaced it (a restore is undone by restoring
  this copy: nothing a restore replaces is lost);
- `<file>.mcp-gateway-restored-[update-]<UTC time>`: a backup already put back. Restoring a backup renames it and
  every newer one so (never deletes them): that is the pointer of the walk back, so the next `--restore` goes one
  step further instead of restoring the same backup again, and it survives the client rewriting its file
  meanwhile (Claude Code rewrites `~/.claude.json` at every start). A write-back after a walk back takes a new
  backup, which is the next step back.

A second copy within the same second gets `-2`, `-3`, …. A copy holds the file's exact bytes and is readable by
its owner only (0600, or less if the file itself is): a client file holds tokens, and a copy lies beside it for
as long as the person keeps it. A restore gives the file back its own mode, not the copy's. Copies are created
exclusively (`O_EXCL`, `O_NOFOLLOW`): a link planted at a copy's name is never written through, and a copy that
is a link is not one of ours. The original is the oldest backup. The time in a name is the `now` the caller
passes (the import service's clock; a fixed one in tests). Everything here does file I/O: call it from a worker
thread.
"""

from __future__ import annotations

import errno
import filecmp
import glob
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from mcp_gateway.errors import ImportFailedError, ImportUsageError
from mcp_gateway.importing.clients import Scope, Where, client_files, client_named
from mcp_gateway.paths import FILE_MODE
from mcp_gateway.workspace_files import create_exclusive, replace_file

BACKUP_MARK = ".mcp-gateway-backup-"
RESTORED_MARK = ".mcp-gateway-restored-"
BEFORE_RESTORE_MARK = ".mcp-gateway-before-restore-"
UPDATE_TAG = "update-"
TIMESTAMP_FORMAT = "%Y%m%dT%H%M%SZ"
_SUFFIX = re.compile(r"(?P<update>update-)?(?P<stamp>\d{8}T\d{6}Z)(?:-(?P<sequence>\d+))?")
_MARKS = (BACKUP_MARK, RESTORED_MARK, BEFORE_RESTORE_MARK)
OWNER_ONLY = 0o600
"""The most a kept version may allow: its owner reads and writes it, nobody else does anything."""
KEPT_BY_PRUNE = 2
"""Besides the original, the newest versions `prune` keeps: one step back, and the undo of the last restore."""

MadeBy = Literal["write-back", "entry-update", "restore"]
"""The write a copy was taken before: `import --write-client-config`, another client's import updating
this file's gateway entry, or a restore."""


def write_atomically(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace `path` with `data` (`workspace_files.replace_file`, durable); `mode` defaults to the existing
    file's permissions, else 0600. A linked path (dotfile managers link client configs) has its target written.

    Raises:
        OSError: the directory is not writable, the disk is full, …; the old file is then untouched.
    """
    if path.is_symlink():
        path = path.resolve()
    if mode is None:
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = FILE_MODE
    replace_file(path, data, durable=True, mode=mode)


@dataclass(frozen=True)
class Backup:
    """One kept version of a client file (a backup, a backup already restored, or a before-restore copy)."""

    path: Path
    original: Path
    taken: datetime
    sequence: int
    made_by: MadeBy = "write-back"
    restored: bool = False

    @property
    def order(self) -> tuple[datetime, int]:
        return (self.taken, self.sequence)

    @property
    def is_backup(self) -> bool:
        """Taken before an import's write (not a before-restore copy): a step of the walk back."""
        return self.made_by != "restore"


@dataclass(frozen=True)
class RestoreRequest:
    """What to put back (`--restore`), or whose kept versions to list (`--backups`)."""

    backup: str | None = None
    """A kept version as the person named it (relative to the current directory); None: one step back."""
    original: bool = False
    """Without `backup`: the file as it was before the gateway first changed it (its oldest backup)."""
    client: str | None = None
    """Without `backup`: look only at this client's files."""
    scope: Scope | None = None
    source: Path | None = None
    """Without `backup`: look only at this file's backups."""


@dataclass(frozen=True)
class RestoreReport:
    backup: Path
    """By the name it had when chosen."""
    original: Path
    kept_current: Path | None
    """Where the version it replaced was kept, when that differed from the backup: restoring it undoes this."""
    changed: bool = True
    marked: tuple[Path, ...] = ()
    """Backups renamed as restored (new names), so the next step back goes one further."""
    made_by: MadeBy = "write-back"
    is_original: bool = False


@dataclass(frozen=True)
class WalkEnded:
    """One step back was asked, and no backup is left that would change the file."""

    path: Path
    original: Path | None
    """The oldest backup, which `--restore original` puts back."""


@dataclass(frozen=True)
class KeptVersion:
    """One kept version of a client file, for `--backups`."""

    path: Path
    taken: datetime
    made_by: MadeBy
    size: int
    restored: bool
    is_original: bool
    same_as_file: bool
    next_step: bool
    """`--restore` without a name puts this one back next."""
    private: bool = True


@dataclass(frozen=True)
class FileHistory:
    path: Path
    size: int | None
    """None: the file is gone."""
    versions: tuple[KeptVersion, ...]
    """Newest first."""


@dataclass(frozen=True)
class PrunedFile:
    """What `--backups --prune` did to one client file's kept versions."""

    path: Path
    removed: tuple[Path, ...]
    kept: int
    problem: str | None = None
    """Why a version that should have gone is still there."""


@dataclass(frozen=True)
class BackedUpFile:
    path: Path
    newest: Path
    count: int


@dataclass(frozen=True)
class BackupChoice:
    """No backup was named and the newest is not one file's: none has backups, or several have."""

    files: tuple[BackedUpFile, ...]


def create_backup(path: Path, now: datetime, made_by: MadeBy = "write-back") -> Path:
    """Copy `path` byte for byte next to itself, stamped with `now`.

    Raises:
        OSError: the file cannot be read or the copy cannot be written.
    """
    data = path.read_bytes()
    tag = UPDATE_TAG if made_by == "entry-update" else ""
    mark = BEFORE_RESTORE_MARK if made_by == "restore" else BACKUP_MARK + tag
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
    """Every kept version of `path`, oldest first."""
    found: list[Backup] = []
    for mark in _MARKS:
        try:
            siblings = list(path.parent.glob(f"{glob.escape(path.name)}{mark}*"))
        except OSError:
            return []
        for sibling in siblings:
            copy = parse_backup(sibling)
            if copy is not None and copy.original == path and _is_regular(sibling):
                found.append(copy)
    return sorted(found, key=lambda copy: copy.order)


def backups_of(path: Path) -> list[Backup]:
    """The steps of the walk back (restored or not), oldest first."""
    return [copy for copy in history_of(path) if copy.is_backup]


def original_of(path: Path) -> Backup | None:
    """The oldest backup: `path` as it was before the gateway first changed it."""
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
    """Compared in chunks: a client file may be megabytes."""
    try:
        return filecmp.cmp(copy, path, shallow=False)
    except OSError:
        return False


def restore(backup: Backup, now: datetime) -> RestoreReport:
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
    first = original_of(target)
    is_original = backup.is_backup and first is not None and first.order == backup.order
    return RestoreReport(backup.path, target, kept, current != data, tuple(marked), backup.made_by, is_original)


def prune(path: Path, keep: int = KEPT_BY_PRUNE) -> PrunedFile:
    """Remove the kept versions of `path` but the original and the newest `keep`."""
    history = history_of(path)
    first = original_of(path)
    spared = {copy.path for copy in history[-keep:]} | ({first.path} if first is not None else set[Path]())
    removed: list[Path] = []
    problem: str | None = None
    for copy in history:
        if copy.path not in spared:
            try:
                os.unlink(copy.path)  # a name history_of saw as a regular file; unlink never follows a link
            except OSError as error:
                problem = problem or f"cannot remove {copy.path} ({error.strerror or error})"
            else:
                removed.append(copy.path)
    return PrunedFile(path, tuple(removed), len(history) - len(removed), problem)


def private(copy: Path) -> bool:
    """Readable by its owner only (a version an older gateway made may not be)."""
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
            fd = create_exclusive(candidate, mode=mode)
        except FileExistsError:
            sequence += 1
            continue
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        return candidate


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


# Choosing what to put back.


def restore_backup(
    where: Where, request: RestoreRequest, clock: Callable[[], datetime]
) -> RestoreReport | BackupChoice | WalkEnded:
    """Put back the named kept version, else the original, else one step back (see `RestoreRequest`).

    Raises:
        ImportUsageError: the named file is not a kept version import made, or the client is unknown.
        ImportFailedError: the named copy is gone, or it cannot be put back.
    """
    if request.backup:
        chosen = _named(request.backup)
    else:
        found = _files(where, request)
        with_backups = {path: [c for c in history if c.is_backup] for path, history in found.items()}
        with_backups = {path: backups for path, backups in with_backups.items() if backups}
        if len(with_backups) != 1:
            return BackupChoice(tuple(BackedUpFile(p, b[-1].path, len(b)) for p, b in with_backups.items()))
        (path,) = with_backups
        step = original_of(path) if request.original else next_step_back(path)
        if step is None:
            first = original_of(path)
            return WalkEnded(path, first.path if first else None)
        chosen = step
    try:
        return restore(chosen, clock())
    except OSError as error:
        raise ImportFailedError(
            f"cannot restore {chosen.original} from {chosen.path} ({error.strerror or error}); see where it stands "
            "with mcp-gateway import --backups"
        ) from error


def list_backups(where: Where, request: RestoreRequest) -> tuple[FileHistory, ...]:
    """Every client file with kept versions among those the request narrows to, each newest first."""
    return tuple(_history(path, versions) for path, versions in _files(where, request).items())


def prune_backups(where: Where, request: RestoreRequest) -> tuple[PrunedFile, ...]:
    """Each client file the request narrows to, its kept versions pruned to the original and the newest few."""
    return tuple(prune(path) for path in _files(where, request))


def _history(path: Path, versions: list[Backup]) -> FileHistory:
    first = original_of(path)
    step = next_step_back(path)
    size = _size(path)
    kept = tuple(
        KeptVersion(
            version.path,
            version.taken,
            version.made_by,
            _size(version.path) or 0,
            version.restored,
            is_original=first is not None and version.path == first.path,
            same_as_file=size is not None and same_bytes(version.path, path),
            next_step=step is not None and version.path == step.path,
            private=private(version.path),
        )
        for version in reversed(versions)
    )
    return FileHistory(path, size, kept)


def _named(name: str) -> Backup:
    backup = parse_backup(Path(name).absolute())
    if backup is None:
        raise ImportUsageError(
            f"{name} is not a backup made by mcp-gateway import; list them with mcp-gateway import --backups"
        )
    if not backup.path.is_file():
        # A backup put back since it was printed has been renamed as restored: it is the same copy.
        renamed = next((c for c in history_of(backup.original) if c.order == backup.order and c.restored), None)
        if renamed is None or not backup.is_backup:
            raise ImportFailedError(f"{backup.path}: no such backup; list them with mcp-gateway import --backups")
        return renamed
    return backup


def _files(where: Where, request: RestoreRequest) -> dict[Path, list[Backup]]:
    """Each client file with kept versions, oldest first: `source` only, else the files the request narrows to."""
    client = client_named(request.client) if request.client else None
    files = [request.source.absolute()] if request.source else client_files(where, client, request.scope)
    return {path: history for path in files if (history := history_of(path))}


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None
