"""One gateway's process record: its format, parsed strictly because nothing in the file is trusted.

A record is written by a gateway (`run/<gateway pid>.json`) and read by later gateways and by `status`.
Whatever is in the file may be wrong: planted, half-written by an older version, edited by hand. A value
read from it decides which process groups get signalled, so it is parsed strictly: group ids are ints in
(1, MAX_PID], start times finite numbers, the marker token a long hex string. Any deviation makes the whole
record unusable (the caller sets the file aside, see `record_directory`), so that one bad file never breaks
`serve`, `status` or `demo`, now or at any later start.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass
from typing import Any, cast

RECORD_VERSION = 2
MAX_PID = 4_194_304
"""Linux's PID_MAX_LIMIT: no process or process group id is larger on any system we run on."""
MAX_GROUPS_PER_RECORD = 10_000
MAX_SERVER_NAME_CHARS = 1024
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


def decode_record(data: bytes) -> GatewayRecord | Unusable:
    """The record in a file's bytes, or why it cannot be used."""
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
