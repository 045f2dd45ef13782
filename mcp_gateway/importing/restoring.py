"""The undo of `import`'s writes to client files: list what was kept, step back once, or go to the original.

`ImportService.restore` and `ImportService.backups` call these in a worker thread (they read and write
files). Which file: the one a named kept version belongs to, else the single client file with backups
among those the request narrows to (`client`, `scope`, `source`); several or none is a `BackupChoice` the
front end shows. The walk itself (which backup is the next step, how a restore moves the pointer, what it
keeps) is `importing.backups`'; here it is chosen and reported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from mcp_gateway.errors import ImportFailedError, ImportUsageError
from mcp_gateway.importing.backups import (
    Backup,
    MadeBy,
    history_of,
    next_step_back,
    original_of,
    parse_backup,
    private,
    prune,
    restore,
    same_bytes,
)
from mcp_gateway.importing.clients import Scope, Where, client_files, client_named


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
    """The kept version put back, by the name it had when chosen."""
    original: Path
    kept_current: Path | None
    """Where the version it replaced was kept, when that differed from the backup: restoring it undoes this."""
    changed: bool = True
    """False: the file already held the backup's bytes."""
    marked: tuple[Path, ...] = ()
    """Backups renamed as restored (new names), so the next step back goes one further."""
    made_by: MadeBy = "write-back"
    is_original: bool = False
    """The backup put back is the oldest: the file is as it was before the gateway first changed it."""


@dataclass(frozen=True)
class WalkEnded:
    """One step back was asked, and no backup is left that would change the file."""

    path: Path
    original: Path | None
    """The oldest backup (by its current name), which `--restore original` puts back."""


@dataclass(frozen=True)
class KeptVersion:
    """One kept version of a client file, for `--backups`."""

    path: Path
    taken: datetime
    made_by: MadeBy
    size: int
    restored: bool
    is_original: bool
    """The oldest backup: the file before the gateway first changed it."""
    same_as_file: bool
    """It holds exactly the file's bytes now."""
    next_step: bool
    """`--restore` without a name puts this one back next."""
    private: bool = True
    """Readable by its owner only (a version an older gateway kept may not be)."""


@dataclass(frozen=True)
class FileHistory:
    path: Path
    size: int | None
    """The file's size now; None when it is gone."""
    versions: tuple[KeptVersion, ...]
    """Newest first."""


@dataclass(frozen=True)
class BackupListing:
    files: tuple[FileHistory, ...]


@dataclass(frozen=True)
class PrunedFile:
    """What `--backups --prune` did to one client file's kept versions."""

    path: Path
    removed: tuple[Path, ...]
    kept: int
    """How many versions are left: the original and the newest few."""
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
        restored = restore(chosen, clock())
    except OSError as error:
        raise ImportFailedError(
            f"cannot restore {chosen.original} from {chosen.path} ({error.strerror or error}); see where it stands "
            "with mcp-gateway import --backups"
        ) from error
    first = original_of(chosen.original)
    return RestoreReport(
        chosen.path,
        restored.original,
        restored.kept_current,
        changed=restored.changed,
        marked=restored.marked,
        made_by=chosen.made_by,
        is_original=chosen.is_backup and first is not None and first.order == chosen.order,
    )


def list_backups(where: Where, request: RestoreRequest) -> BackupListing:
    """Every client file with kept versions among those the request narrows to, each newest first."""
    return BackupListing(tuple(_history(path, versions) for path, versions in _files(where, request).items()))


def prune_backups(where: Where, request: RestoreRequest) -> tuple[PrunedFile, ...]:
    """Each client file the request narrows to, its kept versions pruned to the original and the newest few."""
    pruned: list[PrunedFile] = []
    for path in _files(where, request):
        done = prune(path)
        pruned.append(PrunedFile(path, done.removed, len(done.kept), done.problem))
    return tuple(pruned)


def _history(path: Path, versions: list[Backup]) -> FileHistory:
    first = original_of(path)
    step = next_step_back(path)
    try:
        size: int | None = path.stat().st_size
    except OSError:
        size = None
    kept = tuple(
        KeptVersion(
            version.path,
            version.taken,
            version.made_by,
            _size(version.path),
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


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
