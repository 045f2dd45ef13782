"""Importing a client's MCP servers, pointing the client at the gateway, and undoing that: `ImportService`.

The service owns the whole flow, so a front end only renders its reports: read the client's file, ask each
remote server that sends no credentials whether it needs a sign-in, merge the servers into the gateway's
`config.json`, then (with write-back) back the client file up and rewrite it; and restore a backup. Order
matters for safety: the gateway config is written first, and only then is the client file backed up and
rewritten, so a failure at any step leaves the client as it was.

Its collaborators are passed in, never looked up: where the client files are (`Where`: home, project,
environment, platform), the workspace the servers go into, the sign-in `probe` (the real one asks over
HTTP) and the `clock` that stamps backups. It prints nothing. A report holds no secret: entries are masked
before they go in, so any front end may show all of it.

A request that cannot be met raises before anything is written: `ImportUsageError` when the request names
what does not exist, `ConfigError` when a file cannot be read or used, `ImportFailedError` when a backup
is missing or cannot be put back. A write that fails once writing has begun is part of the report
(`write_failure`) instead, so what was already written is still told. File work runs in worker threads;
only the sign-in questions run on the event loop.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import anyio

from mcp_gateway.config.jsonfile import as_object
from mcp_gateway.errors import ConfigError, ImportFailedError, ImportUsageError
from mcp_gateway.importers import (
    CLIENTS,
    ClientFormat,
    ClientReading,
    Detected,
    Launch,
    MergePlan,
    Scope,
    Where,
    create_backup,
    detect,
    find_client,
    gateway_launch,
    parse_backup,
    plan_merge,
    read_client,
    restore,
    write_plan,
)
from mcp_gateway.importers.clients import files_with_backups
from mcp_gateway.importers.files import write_atomically
from mcp_gateway.importers.launch import LaunchPlan
from mcp_gateway.importers.masking import mask_json
from mcp_gateway.importers.model import JsonObject
from mcp_gateway.importers.sign_in import Probe, needs_probe, screen_sign_ins
from mcp_gateway.importers.variables import needed_variables
from mcp_gateway.paths import Workspace

Clock = Callable[[], datetime]
"""The current time, for the names of backups."""


def system_clock() -> datetime:
    return datetime.now(UTC)


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


ServerStatus = Literal["added", "updated", "unchanged", "skipped", "gateway"]
"""What became of one client entry; `gateway` is the gateway's own entry, never imported."""
IMPORTED: frozenset[ServerStatus] = frozenset({"added", "updated", "unchanged"})


@dataclass(frozen=True)
class ServerOutcome:
    name: str
    status: ServerStatus
    entry: JsonObject | None = None
    """The entry as the gateway config holds it, masked; None when not imported."""
    changed: tuple[str, ...] = ()
    """For `updated`: the connection fields brought in line with the client."""
    reason: str | None = None
    """For `skipped` and `gateway`: why it was not imported."""
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
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClientWrite:
    path: Path
    backup: Path | None
    """The copy taken before the rewrite; None when the file already held exactly this entry."""
    kept: int
    """Servers left in it besides the gateway."""


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
    backup: str | None = None
    """A backup as the person named it (relative to the current directory); None: the newest one."""
    client: str | None = None
    """Without `backup`: look only at this client's files."""
    scope: Scope | None = None
    source: Path | None = None
    """Without `backup`: look only at this file's backups."""


@dataclass(frozen=True)
class RestoreReport:
    backup: Path
    original: Path
    kept_current: Path | None
    """Where the version it replaced was kept, when that differed from the backup."""


@dataclass(frozen=True)
class BackedUpFile:
    path: Path
    newest: Path
    count: int


@dataclass(frozen=True)
class BackupChoice:
    """No backup was named and the newest is not one file's: none has backups, or several have."""

    files: tuple[BackedUpFile, ...]


class ImportService:
    """See the module docstring."""

    @classmethod
    def for_home(
        cls, home: str | os.PathLike[str] | None, *, where: Where, probe: Probe, clock: Clock
    ) -> ImportService:
        """The service importing into the workspace at `home` (else `$MCP_GATEWAY_HOME`, else the platform's)."""
        return cls(where=where, workspace=Workspace.from_environment(home), probe=probe, clock=clock)

    def __init__(self, *, where: Where, workspace: Workspace, probe: Probe, clock: Clock) -> None:
        self._where = where
        self._workspace = workspace
        self._probe = probe
        self._clock = clock

    async def detect(self) -> Detection:
        return Detection(tuple(await anyio.to_thread.run_sync(detect, self._where)))

    async def import_client(self, request: ImportRequest, progress: Progress | None = None) -> ImportReport:
        """Read, screen, merge and (unless a dry run) write; see `ImportReport` for what each field tells.

        Raises:
            ImportUsageError: an unknown client, or a scope it does not have.
            ConfigError: the client file or the gateway config cannot be read or used.
        """
        client = _client_named(request.client, listed=True)
        scope = request.scope or client.scopes[0]
        if scope not in client.scopes:
            raise ImportUsageError(f"{client.title} has no {scope} scope; use one of: {', '.join(client.scopes)}")
        read = functools.partial(read_client, client, self._where, scope, request.source)
        reading = await anyio.to_thread.run_sync(read)
        asked = sum(1 for server in reading.servers if needs_probe(server))
        if asked and progress is not None:
            progress(AskingForSignIns(asked))
        reading = await screen_sign_ins(reading, client.title, probe=self._probe, environ=self._where.environ)
        merge_and_write = functools.partial(self._merge_and_write, client, reading, request)
        return await anyio.to_thread.run_sync(merge_and_write)

    async def restore(self, request: RestoreRequest) -> RestoreReport | BackupChoice:
        """Put a backup back: the one named, else the newest of the one file that has backups.

        Raises:
            ImportUsageError: the named file is not a backup, or the client is unknown.
            ImportFailedError: the named backup is gone, or it cannot be put back.
        """
        return await anyio.to_thread.run_sync(self._restore, request)

    def _merge_and_write(self, client: ClientFormat, reading: ClientReading, request: ImportRequest) -> ImportReport:
        plan = plan_merge(self._workspace.config_path, reading.servers)
        needed = needed_variables(reading)
        # The client's gateway runs every server of the workspace, so it passes on what all of them use; a
        # re-run then writes the same entry even when this client has nothing left to import.
        launch = gateway_launch(
            self._workspace.config_dir,
            gui=client.gui,
            client=client.title,
            needed=[*needed, *plan.variables()],
            which=self._which,
        )
        report = ImportReport(
            client,
            reading.scope,
            reading.path,
            servers=_server_outcomes(reading, plan),
            notes=reading.notes,
            gateway_config=plan.path,
            variables=tuple(NeededVariable(name, bool(self._where.environ.get(name))) for name in needed),
            client_entry=_client_entry(client, reading, launch),
            dry_run=request.dry_run,
        )
        if request.dry_run:
            return report
        if not reading.imported:
            if reading.has_gateway and request.write_client_config:
                return self._write_client(report, client, reading, launch.launch)
            return report
        try:
            write_plan(plan)
        except ConfigError as error:
            return replace(report, write_failure=error.message)
        report = replace(report, config_write="written" if plan.changed else "unchanged")
        if request.write_client_config:
            return self._write_client(report, client, reading, launch.launch)
        return report

    def _write_client(
        self, report: ImportReport, client: ClientFormat, reading: ClientReading, launch: Launch
    ) -> ImportReport:
        """Back the client file up and rewrite it so the gateway replaces the imported servers."""
        kept = len(reading.skipped)
        try:
            text = client.rewrite(reading, launch)
        except ConfigError as error:
            return replace(report, write_failure=error.message)
        if text == reading.text:
            return replace(report, client_write=ClientWrite(reading.path, None, kept))
        try:
            backup = create_backup(reading.path, self._clock())
            write_atomically(reading.path, text.encode("utf-8"))
        except OSError as error:
            failure = f"{reading.path}: cannot write it ({error.strerror or error}); it is unchanged"
            return replace(report, write_failure=failure)
        return replace(report, client_write=ClientWrite(reading.path, backup, kept))

    def _restore(self, request: RestoreRequest) -> RestoreReport | BackupChoice:
        if request.backup:
            backup = parse_backup(Path(request.backup).absolute())
            if backup is None:
                raise ImportUsageError(f"{request.backup} is not a backup made by mcp-gateway import")
            if not backup.path.is_file():
                raise ImportFailedError(f"{backup.path}: no such backup")
        else:
            client = _client_named(request.client, listed=False) if request.client else None
            found = files_with_backups(self._where, client=client, scope=request.scope, source=request.source)
            if len(found) != 1:
                return BackupChoice(tuple(BackedUpFile(path, b[-1].path, len(b)) for path, b in found.items()))
            backup = next(iter(found.values()))[-1]
        try:
            restored = restore(backup, self._clock())
        except OSError as error:
            raise ImportFailedError(f"cannot restore {backup.original}: {error.strerror or error}") from error
        return RestoreReport(backup.path, restored.original, restored.kept_current)

    def _which(self, program: str) -> str | None:
        """`program` on the PATH of `Where.environ` (the import's environment, not necessarily this process's)."""
        return shutil.which(program, path=self._where.environ.get("PATH", os.defpath))


def _client_named(name: str, *, listed: bool) -> ClientFormat:
    client = find_client(name)
    if client is None:
        names = f"; use one of: {', '.join(c.name for c in CLIENTS)}" if listed else ""
        raise ImportUsageError(f"unknown client '{name}'{names}")
    return client


def _server_outcomes(reading: ClientReading, plan: MergePlan) -> tuple[ServerOutcome, ...]:
    merged = {outcome.name: outcome for outcome in plan.outcomes}
    outcomes: list[ServerOutcome] = []
    for server in reading.servers:
        outcome = merged.get(server.name)
        if server.itself:
            outcomes.append(ServerOutcome(server.name, "gateway", reason=server.skipped))
        elif outcome is None:
            outcomes.append(ServerOutcome(server.name, "skipped", reason=server.skipped, notes=server.warnings))
        else:
            entry = as_object(mask_json(outcome.entry)) or {}
            outcomes.append(ServerOutcome(server.name, outcome.status, entry, outcome.changed, notes=server.warnings))
    return tuple(outcomes)


def _client_entry(client: ClientFormat, reading: ClientReading, launch: LaunchPlan) -> ClientEntry:
    rendered = _masked_rendering(client.render_entry(launch.launch))
    replaced, kept = len(reading.imported), len(reading.skipped)
    return ClientEntry(reading.path, reading.block, replaced, kept, rendered, launch.warnings)


def _masked_rendering(rendered: str) -> str:
    """The client entry as it will be written, masked (it holds no secrets today; this keeps it so)."""
    name, _, body = rendered.partition(": ")
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        return rendered  # TOML: only the gateway's own command, home and variable names
    return f"{name}: {json.dumps(mask_json(value), indent=2, ensure_ascii=False)}"
