"""What `ImportService` is asked and what it answers: requests, progress and reports, all plain values.

A report holds no secret: entries are masked before they go in, so any front end may show all of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from mcp_gateway.importing.backups import MadeBy
from mcp_gateway.importing.clients.client import ClientFormat
from mcp_gateway.importing.clients.model import JsonObject, Scope
from mcp_gateway.importing.clients.registry import Detected
from mcp_gateway.importing.launch import Launcher


@dataclass(frozen=True)
class AskingForSignIns:
    """Progress: the sign-in check is about to ask `servers` remote servers (it may take a few seconds)."""

    servers: int


Progress = Callable[[AskingForSignIns], None]


@dataclass(frozen=True)
class ImportRequest:
    client: str
    """A client's name or alias (`claude-code`, `claude`, …)."""
    scope: Scope | None = None
    """None: the client's first scope."""
    source: Path | None = None
    """A file in the client's format to read instead of the client's own."""
    dry_run: bool = False
    write_client_config: bool = False
    launcher: Launcher = "auto"
    """How the client is to start the gateway; `auto` decides by how this gateway was installed."""
    replace: bool = False
    """A server the gateway already has with a different definition takes the client's definition."""
    probe: bool = True
    """Ask each remote server without credentials whether it needs a sign-in (one unauthenticated request)."""


ServerStatus = Literal["added", "updated", "unchanged", "conflict", "skipped", "gateway"]
"""What became of one client entry; `gateway` is the gateway's own entry, never imported, and `conflict` a
server the gateway already has under that name with another definition: it stays in the client."""
IMPORTED: frozenset[ServerStatus] = frozenset({"added", "updated", "unchanged"})


@dataclass(frozen=True)
class ServerOutcome:
    name: str
    status: ServerStatus
    entry: JsonObject | None = None
    """The entry as the gateway config holds it, masked; None when not imported."""
    changed: tuple[str, ...] = ()
    """For `updated` and `conflict`: the connection fields in which the client's definition differs."""
    reason: str | None = None
    """For `skipped`, `conflict` and `gateway`: why it was not imported."""
    notes: tuple[str, ...] = ()

    @property
    def imported(self) -> bool:
        return self.status in IMPORTED


@dataclass(frozen=True)
class NeededVariable:
    """A variable the imported servers use, which the client used to supply and the gateway now needs."""

    name: str
    set_here: bool
    """Whether it is set (and not empty) in the environment the import ran in."""


@dataclass(frozen=True)
class ClientEntry:
    """The gateway's entry as write-back puts it into the client file, and what it replaces there."""

    path: Path
    block: tuple[str, ...]
    """Where the servers live in the client's document: `("mcpServers",)`, …"""
    replaced: int
    """Imported servers the entry takes the place of."""
    kept: int
    """Servers that could not be imported and stay."""
    text: str
    """The entry exactly as written, masked."""
    launcher: Literal["uvx", "path"]
    why: str
    """Why this launcher (`--launcher auto` decides by how this gateway was installed)."""
    start_problem: str | None = None
    """Why the entry's command did not start the gateway when it was tried; None: it started."""
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class GatewayRefresh:
    """Another client's gateway entry for this workspace, brought up to date with the variables it now needs."""

    client: str
    """The client's title."""
    path: Path
    missing: tuple[str, ...]
    """The variables the entry did not pass on, which the workspace's servers now use."""
    backup: Path | None = None
    """The copy taken before the rewrite; None in a dry run, or when the rewrite failed."""
    failure: str | None = None


@dataclass(frozen=True)
class ClientWrite:
    path: Path
    backup: Path | None
    """The copy taken before the rewrite; None when the file already held exactly this entry."""
    kept: int
    """Servers left in it besides the gateway."""
    versions: int = 0
    """How many versions of it are kept beside it, this backup included."""


ConfigWrite = Literal["written", "unchanged"]


@dataclass(frozen=True)
class ImportReport:
    client: ClientFormat
    scope: Scope
    path: Path
    """The client file that was read."""
    servers: tuple[ServerOutcome, ...]
    """Every entry of the client, in its order."""
    notes: tuple[str, ...]
    """What concerns no single server (other scopes that hold servers, …)."""
    gateway_config: Path
    variables: tuple[NeededVariable, ...]
    client_entry: ClientEntry
    dry_run: bool
    config_write: ConfigWrite | None = None
    """None: the gateway config was not written (a dry run, nothing imported, or the write failed)."""
    client_write: ClientWrite | None = None
    """None: the client file was not rewritten (not asked, or the write failed)."""
    write_failure: str | None = None
    """A write that failed, and that the file is unchanged; nothing after it was attempted."""
    refreshed: tuple[GatewayRefresh, ...] = ()
    """Other clients' gateway entries for this workspace that missed a variable (to do, in a dry run)."""
    contacted: tuple[str, ...] = ()
    """The urls the sign-in check requested (masked), a dry run's included."""
    not_contacted: tuple[str, ...] = ()
    """The urls it would have requested, had the probe not been skipped (masked)."""

    @property
    def imported(self) -> bool:
        return any(server.imported for server in self.servers)

    @property
    def has_gateway(self) -> bool:
        return any(server.status == "gateway" for server in self.servers)

    def count(self, status: ServerStatus) -> int:
        return sum(1 for server in self.servers if server.status == status)


@dataclass(frozen=True)
class Detection:
    """Every client with a config file in its default scope."""

    found: tuple[Detected, ...]

    @property
    def with_servers(self) -> tuple[Detected, ...]:
        return tuple(detected for detected in self.found if detected.servers)

    @property
    def chosen(self) -> ClientFormat | None:
        """The client to import from when none was named: the only one with servers, if there is one."""
        candidates = self.with_servers
        return candidates[0].client if len(candidates) == 1 else None


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
