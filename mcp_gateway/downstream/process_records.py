"""Which process groups this gateway started, on disk, so a later gateway can reap what a SIGKILL left.

A gateway killed with SIGKILL cannot stop its children. Children that exit on stdin EOF are fine; the
stubborn ones would live forever. Each gateway therefore records the process groups it starts in
`run/<gateway pid>.json`, with its marker token (see `processes`), and every gateway start reaps the groups
recorded by gateways that are gone.

Group ids are reused and record files may be anything, so reaping trusts neither: a record is parsed
strictly (`record_format`; an unusable one is set aside, see `record_directory`), and a recorded group is
signalled only when one of its current members proves to be ours (`processes.prove_ownership`). What is in
doubt is left alone, logged, and reported. Nothing here ever raises for a bad record or a missing or odd
`run` directory.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from mcp_gateway.downstream import processes
from mcp_gateway.downstream.record_directory import records_directory
from mcp_gateway.downstream.record_format import GatewayRecord, RecordedGateway, RecordedGroup, Unusable
from mcp_gateway.paths import ensure_private_dir

logger = logging.getLogger(__name__)

REAP_GRACE_SECONDS = 1.0
"""Time the stale groups get between SIGTERM and SIGKILL when a new gateway reaps them (all at once)."""
_POLL_SECONDS = 0.02
"""Also the continuity proof of a group being waited on: its id cannot be reused within one poll."""


class ProcessRecords:
    """The record file of one gateway process; `add` and `remove` rewrite it atomically."""

    def __init__(self, directory: Path, owner_pid: int | None = None, token: str | None = None) -> None:
        self._directory = directory
        self._owner = os.getpid() if owner_pid is None else owner_pid
        self.token = processes.gateway_token() if token is None else token
        """The marker this gateway's stdio children carry (`processes.GROUP_MARKER_ENV`)."""
        self._owner_start: float | None = None
        self._groups: dict[int, RecordedGroup] = {}
        self._write_failed = False

    @property
    def path(self) -> Path:
        return self._directory / f"{self._owner}.json"

    def add(self, pgid: int, server: str) -> None:
        self._groups[pgid] = RecordedGroup(pgid=pgid, start=processes.start_time(pgid), server=server)
        self._write()

    def remove(self, pgid: int) -> None:
        if pgid in self._groups:
            del self._groups[pgid]
            self._write()

    def kill_all(self) -> None:
        """SIGKILL every group still recorded (also ones whose transport is still starting)."""
        for pgid in list(self._groups):
            processes.signal_group(pgid, signal.SIGKILL)

    def close(self) -> None:
        """Forget the record file: called once every child is known to be gone."""
        self._groups.clear()
        with records_directory(self._directory) as run:
            if run is not None:
                run.remove(self.path.name)

    def _write(self) -> None:
        if self._owner_start is None:
            self._owner_start = processes.start_time(self._owner)
        record = GatewayRecord(
            gateway=RecordedGateway(pid=self._owner, start=self._owner_start),
            token=self.token,
            groups=tuple(self._groups.values()),
        )
        # Losing the record only loses the SIGKILL clean-up, never the running gateway; said once.
        with contextlib.suppress(OSError):
            ensure_private_dir(self._directory)
        with records_directory(self._directory) as run:
            if run is None:
                # A run that is not a directory was reported by the workspace check at start (paths.py).
                logger.debug("no process record written: %s is not a directory", self._directory)
                return
            try:
                run.write(self.path.name, record)
            except OSError as error:
                self._note_write_failure(str(error))

    def _note_write_failure(self, why: str) -> None:
        if not self._write_failed:
            self._write_failed = True
            logger.warning(
                "could not record the servers this gateway starts in %s (%s), so a later gateway cannot stop "
                "them if this one is killed; make it a writable directory",
                self._directory,
                why,
            )


def running_servers(directory: Path) -> dict[str, list[tuple[int, int]]]:
    """Servers that live gateways of this workspace are running: name → [(gateway pid, server pid)].

    Read only: an unusable record is skipped here (the next gateway start sets it aside).
    """
    running: dict[str, list[tuple[int, int]]] = {}
    with records_directory(directory) as run:
        records = [] if run is None else [run.read(name) for name in run.names()]
    for record in records:
        if not isinstance(record, GatewayRecord) or not _gateway_runs(record.gateway):
            continue
        for group in record.groups:
            if processes.group_alive(group.pgid):
                running.setdefault(group.server, []).append((record.gateway.pid, group.pgid))
    return running


@dataclass(frozen=True)
class SkippedGroup:
    pgid: int
    server: str
    reason: str


@dataclass
class ReapReport:
    reaped: list[int] = field(default_factory=list[int])
    """Groups proven ours and stopped (SIGTERM, then SIGKILL after REAP_GRACE_SECONDS)."""
    skipped: list[SkippedGroup] = field(default_factory=list[SkippedGroup])
    """Groups still alive that could not be proven ours: left alone."""
    set_aside: list[str] = field(default_factory=list[str])
    """Record files that could not be used, under their new names (in the same directory)."""


def reap_stale_groups(directory: Path) -> ReapReport:
    """Stop every provably-ours group recorded by a gateway that no longer runs (blocking: run it in a thread)."""
    report = ReapReport()
    proven: list[int] = []
    with records_directory(directory) as run:
        if run is None:
            return report
        for name in run.names():
            record = run.read(name)
            if isinstance(record, Unusable):
                moved = run.set_aside(name, record.reason)
                if moved is not None:
                    report.set_aside.append(moved)
            elif record is not None and not _gateway_runs(record.gateway):
                proven += _judge(record, report)
                run.remove(name)
    report.reaped = _stop_groups(list(dict.fromkeys(proven)))
    return report


def _judge(record: GatewayRecord, report: ReapReport) -> list[int]:
    """The groups of a gone gateway's record proven ours; those in doubt are noted in `report`."""
    proven: list[int] = []
    for group in record.groups:
        ownership = processes.prove_ownership(group.pgid, group.start, record.token)
        if ownership.verdict is processes.Verdict.PROVEN:
            proven.append(group.pgid)
        elif ownership.verdict is processes.Verdict.IN_DOUBT:
            report.skipped.append(SkippedGroup(group.pgid, group.server, ownership.reason))
            logger.warning(
                "left process group %d (server %r of gateway %d, which is gone) alone: %s; "
                "if it is still that server, stop it by hand",
                group.pgid,
                group.server,
                record.gateway.pid,
                ownership.reason,
            )
    return proven


def _gateway_runs(gateway: RecordedGateway) -> bool:
    """Whether the gateway that wrote a record still runs; when that cannot be told, it is assumed to. A zombie
    runs nothing: a killed daemon whose parent has left is reaped only by an init that reaps (not every
    container's does)."""
    if not processes.pid_alive(gateway.pid) or processes.is_zombie(gateway.pid):
        return False
    current = processes.start_time(gateway.pid)
    if gateway.start is None or current is None:
        return True
    return processes.same_start(gateway.start, current)


def _stop_groups(pgids: list[int]) -> list[int]:
    """SIGTERM every group, give them REAP_GRACE_SECONDS together, SIGKILL what is left; returns those signalled.

    A group is only signalled again while it has been seen alive at every poll since it was proven ours: a
    group id is not reused while a member lives, and not within one poll of its last member's death.
    """
    signalled = [pgid for pgid in pgids if processes.signal_group(pgid, signal.SIGTERM)]
    remaining = list(signalled)
    deadline = time.monotonic() + REAP_GRACE_SECONDS
    while remaining and time.monotonic() < deadline:
        time.sleep(_POLL_SECONDS)
        remaining = [pgid for pgid in remaining if processes.group_alive(pgid)]
    for pgid in remaining:
        processes.signal_group(pgid, signal.SIGKILL)
    for pgid in signalled:
        logger.info("reaped process group %d, left behind by a gateway that is gone", pgid)
    return signalled
