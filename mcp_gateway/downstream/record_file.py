"""One gateway's process record on disk: its strict format, and reading it without trusting it.

A record is written by a gateway (`run/<gateway pid>.json`) and read by later gateways and by `status`.
Whatever is in the file may be wrong: planted, half-written by an older version, edited by hand. A value
read from it decides which process groups get signalled, so it is parsed strictly: group ids are ints in
(1, MAX_PID], start times finite numbers, the marker token a long hex string. Any deviation makes the whole
file unusable; `set_aside` renames it out of the way (the newest few are kept for a person to look at),
so that one bad file never breaks `serve`, `status` or `demo`, now or at any later start.

Reading never follows a symbolic link, never blocks on a FIFO and never reads more than MAX_RECORD_BYTES.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import logging
import math
import os
import re
import stat
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

logger = logging.getLogger(__name__)

RECORD_VERSION = 2
RECORD_SUFFIX = ".json"
SET_ASIDE_MARK = ".unusable-"
MAX_PID = 4_194_304
"""Linux's PID_MAX_LIMIT: no process or process group id is larger on any system we run on."""
MAX_RECORD_BYTES = 1024 * 1024
"""Far above any real record (about 80 bytes a group); a larger file is not one of ours."""
MAX_GROUPS_PER_RECORD = 10_000
MAX_SERVER_NAME_CHARS = 1024
SET_ASIDE_KEPT = 5
"""Unusable record files kept for inspection; older ones are deleted."""
_TOKEN = re.compile(r"[0-9a-f]{32,128}")


@dataclass(frozen=True)
class RecordedGateway:
    pid: int
    start: float | None
    """The gateway process's start time (psutil's create time); None when it could not be read."""


@dataclass(frozen=True)
class RecordedGroup:
    pgid: int
    start: float | None
    """The group leader's start time; None when it had already exited when recorded."""
    server: str


@dataclass(frozen=True)
class GatewayRecord:
    gateway: RecordedGateway
    token: str
    """The marker every stdio child of this gateway carries in its environment."""
    groups: tuple[RecordedGroup, ...]

    def to_json(self) -> str:
        document = {"version": RECORD_VERSION, **asdict(self)}
        return json.dumps(document)


@dataclass(frozen=True)
class Unusable:
    reason: str


class _RecordError(ValueError):
    pass


def record_files(directory: Path) -> list[Path]:
    """The record files in `directory`; none when it is missing, unreadable or not a directory."""
    try:
        with os.scandir(directory) as entries:
            return sorted(directory / entry.name for entry in entries if entry.name.endswith(RECORD_SUFFIX))
    except OSError:
        return []


def read_record(path: Path) -> GatewayRecord | Unusable | None:
    """The record in `path`, why it cannot be used, or None when the file is gone (another gateway took it)."""
    try:
        data = _read_regular_file(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        return Unusable(f"it cannot be read ({error.strerror or error})")
    if isinstance(data, Unusable):
        return data
    try:
        return parse_record(json.loads(data))
    except (ValueError, RecursionError) as error:  # JSON errors and _RecordError are ValueErrors
        return Unusable(str(error) if isinstance(error, _RecordError) else "it is not valid JSON")


def parse_record(document: object) -> GatewayRecord:
    """A record from its parsed JSON, checked strictly; unknown keys are ignored (a newer version may add some).

    Raises:
        ValueError: the document is not a record this version can use; the message says what is wrong.
    """
    record = _object(document, "the record")
    version = record.get("version")
    if type(version) is not int or version != RECORD_VERSION:
        raise _RecordError(f"version is {_preview(version)}, not {RECORD_VERSION}")
    gateway = _object(record.get("gateway"), "gateway")
    token = record.get("token")
    if not isinstance(token, str) or not _TOKEN.fullmatch(token):
        raise _RecordError("token is not a hex string of 32 to 128 characters")
    groups = record.get("groups")
    if not isinstance(groups, list) or len(cast(list[Any], groups)) > MAX_GROUPS_PER_RECORD:
        raise _RecordError(f"groups is not a list of at most {MAX_GROUPS_PER_RECORD} entries")
    return GatewayRecord(
        gateway=RecordedGateway(
            pid=_id(gateway.get("pid"), "gateway.pid", lowest=1), start=_start(gateway.get("start"), "gateway.start")
        ),
        token=token,
        groups=tuple(_group(entry, index) for index, entry in enumerate(cast(list[Any], groups))),
    )


def set_aside(path: Path, reason: str) -> Path | None:
    """Rename an unusable record file out of the way; returns its new path, None if it could not be moved."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = path.with_name(f"{path.name}{SET_ASIDE_MARK}{stamp}")
    try:
        os.rename(path, target)  # renames a symbolic link itself, never what it points to
    except OSError as error:
        logger.warning("could not set aside the unusable process record %s (%s): %s", path, reason, error)
        return None
    logger.warning(
        "set aside the unusable process record %s as %s (%s); nothing it names was signalled, and it may be deleted",
        path.name,
        target.name,
        reason,
    )
    _prune_set_aside(path.parent)
    return target


def write_record(path: Path, record: GatewayRecord, mode: int) -> None:
    """Replace `path` atomically with `record`, never writing through a symbolic link.

    Raises:
        OSError: the directory cannot be written.
    """
    temporary = path.with_name(f"{path.stem}.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temporary, flags, mode)
    with os.fdopen(fd, "wb") as handle:
        handle.write(record.to_json().encode())
    os.replace(temporary, path)


def _group(value: object, index: int) -> RecordedGroup:
    where = f"groups[{index}]"
    group = _object(value, where)
    server = group.get("server")
    if not isinstance(server, str) or len(server) > MAX_SERVER_NAME_CHARS:
        raise _RecordError(f"{where}.server is not a server name")
    # A group id of 0 or 1 would make a signal reach our own group or every process: never a usable value.
    return RecordedGroup(
        pgid=_id(group.get("pgid"), f"{where}.pgid", lowest=2),
        start=_start(group.get("start"), f"{where}.start"),
        server=server,
    )


def _object(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _RecordError(f"{where} is not an object")
    return cast(dict[str, Any], value)


def _id(value: object, where: str, *, lowest: int) -> int:
    if type(value) is not int or not lowest <= value <= MAX_PID:
        raise _RecordError(f"{where} is {_preview(value)}, not a process id from {lowest} to {MAX_PID}")
    return value


def _start(value: object, where: str) -> float | None:
    if value is None:
        return None
    if type(value) not in (int, float) or not math.isfinite(cast(float, value)) or cast(float, value) < 0:
        raise _RecordError(f"{where} is {_preview(value)}, not a start time")
    return float(cast(float, value))


def _preview(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def _read_regular_file(path: Path) -> bytes | Unusable:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        if path.is_symlink():
            return Unusable("it is a symbolic link")
        raise error from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return Unusable("it is not a regular file")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, MAX_RECORD_BYTES + 1 - size):
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_RECORD_BYTES:
                return Unusable(f"it is larger than {MAX_RECORD_BYTES} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _prune_set_aside(directory: Path) -> None:
    try:
        with os.scandir(directory) as entries:
            aside = [entry.name for entry in entries if SET_ASIDE_MARK in entry.name]
    except OSError:
        return
    aside.sort(key=lambda name: name.rsplit(SET_ASIDE_MARK, 1)[1])
    for name in aside[:-SET_ASIDE_KEPT]:
        with contextlib.suppress(OSError):
            os.unlink(directory / name)
