"""Which process groups this gateway started, on disk, so a later gateway can reap what a SIGKILL left.

A gateway killed with SIGKILL cannot stop its children. Children that exit on stdin EOF are fine; the
stubborn ones would live forever. Each gateway therefore records the process groups it starts in
`run/<gateway pid>.json`, with its marker token (see `processes`), and every gateway start reaps the groups
recorded by gateways that are gone.

Group ids are reused and record files may be anything (planted, half-written by an older version, edited by
hand), so reaping trusts neither. A record is parsed strictly (`GatewayRecord`): group ids are ints in
(1, MAX_PID], start times finite numbers, the marker token a long hex string; any deviation makes the whole
record unusable, and it is renamed aside (`<name>.unusable-<UTC time>`, the newest SET_ASIDE_KEPT kept for a
person to look at) so that it costs nothing at the next start. A recorded group is signalled only when one
of its current members proves to be ours (`processes.prove_ownership`). What is in doubt is left alone,
logged, and reported. Nothing here ever raises for a bad record or a missing or odd `run` directory.

`run` is touched only through a descriptor of the directory itself, opened for each pass without following
a link (`workspace_files`): a `run` that is a link, a file or missing holds no records and takes none (the
workspace check reports it). A record is read as a regular file of at most MAX_RECORD_BYTES, never through
a link, never blocking on a FIFO, and written to an exclusive temp file renamed over its name. Every method
does disk I/O: call them from a worker thread.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mcp_gateway.downstream import processes
from mcp_gateway.errors import UnusableFileError
from mcp_gateway.paths import ensure_private_dir
from mcp_gateway.workspace_files import read_regular, replace_file, set_aside, usable_directory

logger = logging.getLogger(__name__)

REAP_GRACE_SECONDS = 1.0
"""Time the stale groups get between SIGTERM and SIGKILL when a new gateway reaps them (all at once)."""
_POLL_SECONDS = 0.02
"""Also the continuity proof of a group being waited on: its id cannot be reused within one poll."""

RECORD_VERSION = 2
MAX_PID = 4_194_304
"""Linux's PID_MAX_LIMIT: no process or process group id is larger on any system we run on."""
MAX_GROUPS_PER_RECORD = 10_000
MAX_RECORD_BYTES = 1024 * 1024
"""Far above any real record (about 80 bytes a group); a larger file is not one of ours."""
RECORD_SUFFIX = ".json"
SET_ASIDE_TAG = "unusable"
SET_ASIDE_KEPT = 5
"""Unusable record files kept for inspection; older ones are deleted."""

StartTime = Annotated[float, Field(ge=0)]
"""psutil's create time of a process; None where it could not be read (or the leader had already exited)."""


class _Strict(BaseModel):
    # Unknown keys are ignored: a newer version may add some.
    model_config = ConfigDict(strict=True, frozen=True, allow_inf_nan=False, extra="ignore")


class RecordedGateway(_Strict):
    pid: Annotated[int, Field(ge=1, le=MAX_PID)]
    start: StartTime | None = None


class RecordedGroup(_Strict):
    # A group id of 0 or 1 would make a signal reach our own group or every process: never a usable value.
    pgid: Annotated[int, Field(ge=2, le=MAX_PID)]
    start: StartTime | None = None
    server: Annotated[str, Field(max_length=1024)]


class GatewayRecord(_Strict):
    version: Annotated[int, Field(ge=RECORD_VERSION, le=RECORD_VERSION)]
    gateway: RecordedGateway
    token: Annotated[str, Field(pattern=r"^[0-9a-f]{32,128}$")]
    """The marker every stdio child of this gateway carries in its environment."""
    groups: Annotated[tuple[RecordedGroup, ...], Field(max_length=MAX_GROUPS_PER_RECORD)]


@dataclass(frozen=True)
class Unusable:
    reason: str


@contextlib.contextmanager
def records_directory(directory: Path) -> Generator[RecordDirectory | None]:
    """The record directory at `directory`, or None when there is no usable one (missing, a link, a file)."""
    with usable_directory(directory) as fd:
        yield None if fd is None else RecordDirectory(fd)


class RecordDirectory:
    def __init__(self, fd: int) -> None:
        self._fd = fd

    def names(self) -> list[str]:
        """The record files in the directory, by name."""
        try:
            with os.scandir(self._fd) as entries:
                return sorted(entry.name for entry in entries if entry.name.endswith(RECORD_SUFFIX))
        except OSError:
            return []

    def read(self, name: str) -> GatewayRecord | Unusable | None:
        """The record `name`, why it cannot be used, or None when it is gone (another gateway took it)."""
        try:
            return GatewayRecord.model_validate_json(read_regular(name, MAX_RECORD_BYTES, directory_fd=self._fd))
        except FileNotFoundError:
            return None
        except UnusableFileError as error:
            return Unusable(f"it {error.problem}")
        except OSError as error:
            return Unusable(f"it cannot be read ({error.strerror or error})")
        except ValidationError as error:
            first = error.errors()[0]
            return Unusable(f"{'.'.join(map(str, first['loc'])) or 'the record'}: {first['msg']}")

    def write(self, name: str, record: GatewayRecord) -> None:
        """Replace the record `name` atomically (never through a link).

        Raises:
            OSError: the directory cannot be written.
        """
        replace_file(name, record.model_dump_json().encode(), durable=False, directory_fd=self._fd)

    def remove(self, name: str) -> None:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=self._fd)  # a link itself, never its target

    def set_aside(self, name: str, reason: str) -> str | None:
        """Rename an unusable record out of the way; its new name, or None if it could not be moved."""
        try:
            target = set_aside(name, SET_ASIDE_TAG, keep=SET_ASIDE_KEPT, directory_fd=self._fd)
        except OSError as error:
            logger.warning("could not set aside the unusable process record %s (%s): %s", name, reason, error)
            return None
        logger.warning(
            "set aside the unusable process record %s as %s (%s); nothing it names was signalled; it may be deleted",
            name,
            target,
            reason,
        )
        return target


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
        # Not validated here: what is written is judged when it is read, and a start must never fail on it.
        self._groups[pgid] = RecordedGroup.model_construct(pgid=pgid, start=processes.start_time(pgid), server=server)
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
        record = GatewayRecord.model_construct(
            version=RECORD_VERSION,
            gateway=RecordedGateway.model_construct(pid=self._owner, start=self._owner_start),
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
