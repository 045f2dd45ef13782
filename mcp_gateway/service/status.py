"""`status`: what a workspace knows and what runs in it, gathered without starting anything.

Cache state and tool counts come from cache.json (as this gateway has read it), which gateway runs each server
from the process records every gateway keeps in `run/`, the last error of each from errors.json (written by
whichever gateway saw it), what failed in the background of the running gateways from their journal, and what
keeps the workspace itself from working fully. The workspace's daemon, its sessions and the processes it runs
for them come from its state file (`mcp_gateway.daemon`), running only when its pid is proven to be that daemon.
Every text in it passes through the gateway's `SecretMask`: a file may have been written by a gateway that did
not mask.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass

import anyio.to_thread

from mcp_gateway.catalog import Catalog, Surface
from mcp_gateway.config import GatewayConfig
from mcp_gateway.daemon import DaemonState, read_states, runs
from mcp_gateway.downstream.error_journal import ErrorJournal, ErrorRecord
from mcp_gateway.downstream.process_records import running_servers as running_servers_of
from mcp_gateway.masking import SecretMask
from mcp_gateway.paths import Workspace
from mcp_gateway.service.background_journal import GatewayProblem
from mcp_gateway.service.reports import (
    BackgroundFailure,
    LastError,
    RunningProcess,
    ServerState,
    StatusReport,
)
from mcp_gateway.service.surface import no_servers_hint
from mcp_gateway.sign_in import SignInState, sign_in_states


@dataclass(frozen=True)
class _OnDisk:
    running: dict[str, list[tuple[int, int]]]
    errors: dict[str, ErrorRecord]
    sign_ins: dict[str, SignInState]
    daemons: list[tuple[DaemonState, bool]] = dataclasses.field(default_factory=list[tuple[DaemonState, bool]])
    """Each daemon state file, and whether its daemon runs."""


async def status_report(
    config: GatewayConfig,
    catalog: Catalog,
    workspace: Workspace,
    secrets: SecretMask,
    *,
    connected: Callable[[str], bool],
    background: list[GatewayProblem],
    workspace_problems: tuple[str, ...],
    config_problem: str | None = None,
) -> StatusReport:
    """The workspace's state; the files of other gateways are read in a worker thread."""
    on_disk = await anyio.to_thread.run_sync(_read_records, config, workspace, secrets)
    servers = tuple(
        _server_state(config, catalog, name, on_disk, secrets, connected=connected(name)) for name in config.servers
    )
    failures = tuple(
        BackgroundFailure(found.gateway_pid, found.problem.task, secrets.mask(found.problem.error), found.problem.at)
        for found in background
    )
    return StatusReport(
        config_path=config.path,
        servers=servers,
        rejected={name: secrets.mask(reason) for name, reason in config.rejected.items()},
        background_failures=failures,
        workspace_problems=workspace_problems,
        cache_notice=catalog.notice,
        no_servers_hint=no_servers_hint(config),
        config_problem=config_problem,
        daemons=tuple(state for state, running in on_disk.daemons if running),
        stale_daemons=tuple(state for state, running in on_disk.daemons if not running),
    )


def running_servers(home: str | os.PathLike[str] | None) -> list[str]:
    """The servers that running gateways of the workspace at `home` have started (from their records)."""
    return sorted(running_servers_of(Workspace.from_environment(home).process_records_dir))


def _read_records(config: GatewayConfig, workspace: Workspace, secrets: SecretMask) -> _OnDisk:
    errors = ErrorJournal(workspace.errors_path, secrets.mask).read()
    last = {name: record.message for name, record in errors.items()}
    return _OnDisk(
        running=running_servers_of(workspace.process_records_dir),
        errors=errors,
        sign_ins=sign_in_states(config, workspace, secrets, last),
        daemons=[
            (found.state.masked(secrets.mask), runs(found.state))
            for found in read_states(workspace.process_records_dir)
            if found.state is not None
        ],
    )


def _server_state(
    config: GatewayConfig, catalog: Catalog, name: str, on_disk: _OnDisk, secrets: SecretMask, *, connected: bool
) -> ServerState:
    spec = config.servers[name].spec
    entry = catalog.entry(name)
    error = on_disk.errors.get(name)
    return ServerState(
        name=name,
        transport=spec.type,
        lifecycle=spec.lifecycle,
        cache=catalog.state(name),
        tool_count=len(catalog.tools(name)),
        fetched_at=entry.fetched_at if entry is not None else None,
        protocol_version=catalog.recall(name),
        running=tuple(RunningProcess(gateway, pid) for gateway, pid in on_disk.running.get(name, [])),
        connected=connected,
        last_error=LastError(error.phase, secrets.mask(error.message), error.retryable, error.at) if error else None,
        skipped_tools=entry.skipped if entry is not None else (),
        offered=offered_counts(entry.surface if entry is not None else None),
        skipped_offered=entry.surface.skipped if entry is not None and entry.surface is not None else (),
        sign_in=on_disk.sign_ins.get(name),
    )


def offered_counts(surface: Surface | None) -> tuple[int, int, int]:
    """How many prompts, resources and templates a server offers, as its catalog entry says."""
    if surface is None:
        return (0, 0, 0)
    return (len(surface.prompts), len(surface.resources), len(surface.templates))
