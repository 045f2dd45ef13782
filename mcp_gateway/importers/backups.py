"""Backups of client files, taken before every write-back, and putting one back exactly.

A backup sits next to its file as `<file>.mcp-gateway-backup-<UTC time>` (a second one within the same
second gets `-2`, `-3`, …), holds the file's exact bytes and has the file's permissions: it is as
private as the file it copies. Restoring writes those bytes back atomically. If the file changed since
(the client may have written to it), the current version is kept first as
`<file>.mcp-gateway-before-restore-<UTC time>`, so a restore never loses anything either; those copies
are not backups, so `--restore` never picks one. The time in a name is the `now` the caller passes: this
module never reads the clock, so the caller decides (the import service's clock; a fixed one in tests).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from mcp_gateway.importers.files import write_atomically

BACKUP_MARK = ".mcp-gateway-backup-"
BEFORE_RESTORE_MARK = ".mcp-gateway-before-restore-"
TIMESTAMP_FORMAT = "%Y%m%dT%H%M%SZ"
_SUFFIX = re.compile(r"(?P<stamp>\d{8}T\d{6}Z)(?:-(?P<sequence>\d+))?")


@dataclass(frozen=True)
class Backup:
    path: Path
    original: Path
    """The file it is a copy of."""
    taken: datetime
    sequence: int

    @property
    def order(self) -> tuple[datetime, int]:
        return (self.taken, self.sequence)


@dataclass(frozen=True)
class Restored:
    original: Path
    kept_current: Path | None
    """Where the replaced version was kept, when it differed from the backup."""


def create_backup(path: Path, now: datetime) -> Path:
    """Copy `path` byte for byte next to itself, stamped with `now` (UTC); returns the backup's path.

    Raises:
        OSError: the file cannot be read or the copy cannot be written.
    """
    data = path.read_bytes()
    mode = stat.S_IMODE(path.stat().st_mode)
    return _write_new(path, BACKUP_MARK, data, mode, now)


def parse_backup(path: Path) -> Backup | None:
    """The backup `path` names, or None when it is not one."""
    name = path.name
    cut = name.rfind(BACKUP_MARK)
    if cut <= 0:
        return None
    match = _SUFFIX.fullmatch(name[cut + len(BACKUP_MARK) :])
    if match is None:
        return None
    taken = datetime.strptime(match.group("stamp"), TIMESTAMP_FORMAT).replace(tzinfo=UTC)
    return Backup(path, path.with_name(name[:cut]), taken, int(match.group("sequence") or 1))


def backups_of(path: Path) -> list[Backup]:
    """Every backup of `path`, oldest first."""
    try:
        siblings = list(path.parent.glob(f"{_glob_escape(path.name)}{BACKUP_MARK}*"))
    except OSError:
        return []
    found = [backup for sibling in siblings if (backup := parse_backup(sibling)) and backup.original == path]
    return sorted(found, key=lambda backup: backup.order)


def restore(backup: Backup, now: datetime) -> Restored:
    """Put the backup's exact bytes back in place of its original file; a replaced version is stamped `now`.

    Raises:
        OSError: the backup cannot be read or the file cannot be written.
    """
    data = backup.path.read_bytes()
    target = backup.original
    kept: Path | None = None
    try:
        current = target.read_bytes()
    except FileNotFoundError:
        current = None
    if current is not None and current != data:
        kept = _write_new(target, BEFORE_RESTORE_MARK, current, stat.S_IMODE(target.stat().st_mode), now)
    if current != data:
        write_atomically(target, data, mode=stat.S_IMODE(backup.path.stat().st_mode))
    return Restored(target, kept)


def _write_new(path: Path, mark: str, data: bytes, mode: int, now: datetime) -> Path:
    stamp = now.astimezone(UTC).strftime(TIMESTAMP_FORMAT)
    sequence = 1
    while True:
        suffix = stamp if sequence == 1 else f"{stamp}-{sequence}"
        candidate = path.with_name(f"{path.name}{mark}{suffix}")
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            sequence += 1
            continue
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(candidate, mode)
        return candidate


def _glob_escape(name: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", name)
