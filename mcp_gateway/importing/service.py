"""`ImportService`: importing a client's MCP servers, pointing the client at the gateway, and undoing that.

The service owns the whole flow, so a front end only renders its reports. Order matters for safety: the
gateway config is written first, and only then is the client file backed up and rewritten, so a failure at any
step leaves the client as it was. Clients already pointed at the gateway keep working after any later import:
a same-named server with another definition is never replaced unless asked, and the gateway entries of this
workspace in clients that filter the environment are brought up to date when its servers need another variable.

Its collaborators are passed in, never looked up: where the client files are (`Where`), the workspace, the
sign-in `probe`, the `clock` that stamps backups, and `launching` (how this gateway is installed, and the check
that the command written for the client starts it). It prints nothing, and its reports hold no secret.

A request that cannot be met raises before anything is written: `ImportUsageError` when it names what does not
exist, `ConfigError` when a file cannot be read or used, `ImportFailedError` when a backup is missing or cannot
be put back. A write that fails once writing has begun is part of the report (`write_failure`), so what was
already written is still told. File work runs in worker threads; only the sign-in questions run on the loop.
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

import anyio

from mcp_gateway.config import as_object
from mcp_gateway.errors import ConfigError, ImportUsageError
from mcp_gateway.importing.backups import (
    BackupChoice,
    FileHistory,
    MadeBy,
    PrunedFile,
    RestoreReport,
    RestoreRequest,
    WalkEnded,
    create_backup,
    history_of,
    list_backups,
    prune_backups,
    restore_backup,
    write_atomically,
)
from mcp_gateway.importing.clients import (
    ClientFormat,
    ClientReading,
    ImportedServer,
    Launch,
    Where,
    client_named,
    detect,
    needed_variables,
    read_client,
    stale_gateways,
)
from mcp_gateway.importing.launch import Installation, LaunchChecker, LaunchPlan, gateway_launch
from mcp_gateway.importing.merge import MergePlan, plan_merge, write_plan
from mcp_gateway.importing.reports import (
    AskingForSignIns,
    ClientEntry,
    ClientWrite,
    Detection,
    GatewayRefresh,
    ImportReport,
    ImportRequest,
    NeededVariable,
    Progress,
    ServerOutcome,
    mask_json,
    secrets_in,
)
from mcp_gateway.importing.sign_in import Probe, probe_targets, screen_sign_ins, skip_sign_ins
from mcp_gateway.masking import SecretMask
from mcp_gateway.paths import Workspace

Clock = Callable[[], datetime]
"""The current time, for the names of backups."""


def system_clock() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Launching:
    """How the client will start the gateway: this installation's facts, and the check that the command runs."""

    installation: Installation
    check: LaunchChecker


class ImportService:
    @classmethod
    def for_home(
        cls,
        home: str | os.PathLike[str] | None,
        *,
        where: Where,
        probe: Probe,
        clock: Clock,
        launching: Launching,
    ) -> ImportService:
        """The service importing into the workspace at `home` (else `$MCP_GATEWAY_HOME`, else the platform's)."""
        workspace = Workspace.from_environment(home)
        return cls(where=where, workspace=workspace, probe=probe, clock=clock, launching=launching)

    def __init__(self, *, where: Where, workspace: Workspace, probe: Probe, clock: Clock, launching: Launching) -> None:
        self._where = where
        self._workspace = workspace
        self._probe = probe
        self._clock = clock
        self._launching = launching

    async def detect(self) -> Detection:
        return Detection(tuple(await anyio.to_thread.run_sync(detect, self._where)))

    async def import_client(self, request: ImportRequest, progress: Progress | None = None) -> ImportReport:
        """Read, screen, merge and (unless a dry run) write; see `ImportReport` for what each field tells.

        Raises:
            ImportUsageError: an unknown client, or a scope it does not have.
            ConfigError: the client file or the gateway config cannot be read or used.
        """
        client = client_named(request.client)
        scope = request.scope or client.scopes[0]
        if scope not in client.scopes:
            raise ImportUsageError(f"{client.title} has no {scope} scope; use one of: {', '.join(client.scopes)}")
        read = functools.partial(read_client, client, self._where, scope, request.source)
        reading = await anyio.to_thread.run_sync(read)
        mask = SecretMask(secret for server in reading.servers for secret in secrets_in(server.entry))
        targets = probe_targets(reading, self._where.environ)
        urls = tuple(mask.mask(url) for url in targets.values() if isinstance(url, str))
        if request.probe:
            if targets and progress is not None:
                progress(AskingForSignIns(len(targets)))
            reading = await screen_sign_ins(reading, client.title, probe=self._probe, environ=self._where.environ)
        else:
            reading = skip_sign_ins(reading, client.title)
        merge_and_write = functools.partial(self._merge_and_write, client, reading, request)
        report = await anyio.to_thread.run_sync(merge_and_write)
        report = replace(report, contacted=urls) if request.probe else replace(report, not_contacted=urls)
        return report.masked(mask)

    async def restore(self, request: RestoreRequest) -> RestoreReport | BackupChoice | WalkEnded:
        """`backups.restore_backup`, which says what it raises."""
        return await anyio.to_thread.run_sync(restore_backup, self._where, request, self._clock)

    async def backups(self, request: RestoreRequest) -> tuple[FileHistory, ...]:
        return await anyio.to_thread.run_sync(list_backups, self._where, request)

    async def prune_backups(self, request: RestoreRequest) -> tuple[PrunedFile, ...]:
        return await anyio.to_thread.run_sync(prune_backups, self._where, request)

    def _merge_and_write(self, client: ClientFormat, reading: ClientReading, request: ImportRequest) -> ImportReport:
        plan = plan_merge(self._workspace.config_path, reading.servers, replace=request.replace)
        outcomes = _server_outcomes(reading, plan, client.title)
        reading = _without_conflicts(reading, plan)  # a conflicting server stays in its client
        needed, workspace_needs = needed_variables(reading), plan.variables()
        # The client's gateway runs every server of the workspace, so it passes on what all of them use; a
        # re-run then writes the same entry even when this client has nothing left to import.
        launch = gateway_launch(
            self._workspace.config_dir,
            gui=client.gui,
            client=client.title,
            installation=self._launching.installation,
            launcher=request.launcher,
            needed=[*needed, *workspace_needs],
            which=self._which,
        )
        entry = _client_entry(client, reading, launch)
        if reading.imported or reading.has_gateway:
            entry = replace(entry, start_problem=self._launching.check(launch.launch, self._where.environ))
        report = ImportReport(
            client,
            reading.scope,
            reading.path,
            servers=outcomes,
            notes=reading.notes,
            gateway_config=plan.path,
            variables=tuple(NeededVariable(name, bool(self._where.environ.get(name))) for name in needed),
            client_entry=entry,
            dry_run=request.dry_run,
        )
        rewritten_here = reading.path if request.write_client_config else None
        if request.dry_run:
            return replace(report, refreshed=self._refresh_gateways(workspace_needs, rewritten_here, dry_run=True))
        if reading.imported:
            try:
                write_plan(plan)
            except ConfigError as error:
                return replace(report, write_failure=error.message)
            refreshed = self._refresh_gateways(workspace_needs, rewritten_here, dry_run=False)
            report = replace(report, config_write="written" if plan.changed else "unchanged", refreshed=refreshed)
        elif not reading.has_gateway:
            return report
        return self._write_client(report, client, reading, launch.launch) if request.write_client_config else report

    def _write_client(
        self, report: ImportReport, client: ClientFormat, reading: ClientReading, launch: Launch
    ) -> ImportReport:
        if report.client_entry.start_problem is not None:
            failure = (
                f"{reading.path}: not rewritten, since the gateway command does not start "
                f"({report.client_entry.start_problem}); it is unchanged"
            )
            return replace(report, write_failure=failure)
        kept = len(reading.skipped)
        try:
            text = client.rewrite(reading, launch)
        except ConfigError as error:
            return replace(report, write_failure=error.message)
        if text == reading.text:
            return replace(report, client_write=ClientWrite(reading.path, None, kept))
        try:
            backup = self._rewrite(reading.path, text, "write-back")
        except OSError as error:
            return replace(report, write_failure=f"{reading.path}: {_unwritten(error)}")
        return replace(report, client_write=ClientWrite(reading.path, backup, kept, len(history_of(reading.path))))

    def _refresh_gateways(
        self, needed: list[str], besides: Path | None, *, dry_run: bool
    ) -> tuple[GatewayRefresh, ...]:
        refreshed: list[GatewayRefresh] = []
        for stale in stale_gateways(self._where, self._workspace.config_dir, needed, besides=besides):
            refresh = GatewayRefresh(stale.client.title, stale.reading.path, stale.missing)
            if dry_run:
                refreshed.append(refresh)
                continue
            try:
                backup = self._rewrite(
                    stale.reading.path, stale.client.rewrite(stale.reading, stale.launch), "entry-update"
                )
            except ConfigError as error:
                refreshed.append(replace(refresh, failure=error.message))
            except OSError as error:
                refreshed.append(replace(refresh, failure=_unwritten(error)))
            else:
                refreshed.append(replace(refresh, backup=backup))
        return tuple(refreshed)

    def _rewrite(self, path: Path, text: str, made_by: MadeBy) -> Path:
        """Back `path` up, then write `text` in its place."""
        backup = create_backup(path, self._clock(), made_by)
        write_atomically(path, text.encode("utf-8"))
        return backup

    def _which(self, program: str) -> str | None:
        """`program` on the PATH of `Where.environ` (the import's environment, not necessarily this process's)."""
        return shutil.which(program, path=self._where.environ.get("PATH", os.defpath))


def _unwritten(error: OSError) -> str:
    return f"cannot write it ({error.strerror or error}); it is unchanged"


def _server_outcomes(reading: ClientReading, plan: MergePlan, client: str) -> tuple[ServerOutcome, ...]:
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
            reason = _conflict_reason(server.name, outcome.changed, client) if outcome.status == "conflict" else None
            outcomes.append(
                ServerOutcome(server.name, outcome.status, entry, outcome.changed, reason, notes=server.warnings)
            )
    return tuple(outcomes)


def _conflict_reason(name: str, differing: tuple[str, ...], client: str) -> str:
    return (
        f"the gateway already has a '{name}' with a different {', '.join(differing)}, which clients already "
        f"pointed at the gateway use; this one stays in {client}. To use {client}'s for every client instead, "
        "import again with --replace"
    )


def _without_conflicts(reading: ClientReading, plan: MergePlan) -> ClientReading:
    """The reading with each conflicting server turned into a skipped one, so write-back leaves it in place."""
    conflicts = {outcome.name for outcome in plan.conflicts}
    if not conflicts:
        return reading
    servers = tuple(
        ImportedServer(server.name, skipped="conflict", warnings=server.warnings)
        if server.name in conflicts
        else server
        for server in reading.servers
    )
    return replace(reading, servers=servers)


def _client_entry(client: ClientFormat, reading: ClientReading, launch: LaunchPlan) -> ClientEntry:
    rendered = _masked_rendering(client.render_entry(launch.launch))
    replaced, kept = len(reading.imported), len(reading.skipped)
    return ClientEntry(
        reading.path, reading.block, replaced, kept, rendered, launch.launcher, launch.why, warnings=launch.warnings
    )


def _masked_rendering(rendered: str) -> str:
    """The client entry as it will be written, masked (it holds no secrets today; this keeps it so)."""
    name, _, body = rendered.partition(": ")
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        return rendered  # TOML: only the gateway's own command, home and variable names
    return f"{name}: {json.dumps(mask_json(value), indent=2, ensure_ascii=False)}"
