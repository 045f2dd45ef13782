"""The audit trail read back, oldest line first across its rotated files, filtered and exported.

A line that is not a JSON object (a file cut by a crash, an edit) is counted, never fatal; a file that is a
link or not a regular file is not read, and said. Filters: the server (its name), the tool (a glob over
`server.name` or the name alone), the outcome and a start time (`10m`, `2h`, `1d`, or an ISO time).
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, cast

from mcp_gateway.audit.record import OUTCOMES
from mcp_gateway.audit.trail import AUDIT_FILE, KEEP_FILES, MAX_FILE_BYTES
from mcp_gateway.errors import UnusableFileError, UsageError
from mcp_gateway.workspace_files import read_regular, usable_directory

MAX_READ_BYTES = 2 * MAX_FILE_BYTES
"""One file read back: a batch written past the rotation size keeps it well under this."""
_AGO = re.compile(r"(?P<count>\d+(?:\.\d+)?)\s*(?P<unit>[smhdw])")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
CSV_COLUMNS = (
    "time",
    "session",
    "client",
    "clientVersion",
    "project",
    "kind",
    "server",
    "name",
    "outcome",
    "reason",
    "durationMs",
    "resultBytes",
    "arguments",
    "values",
)


@dataclass(frozen=True)
class AuditReading:
    calls: list[dict[str, Any]]
    """Every line read, oldest first."""
    unreadable_lines: int = 0
    problems: list[str] = field(default_factory=list[str])
    """Files that could not be read, one sentence each."""


@dataclass(frozen=True)
class AuditFilter:
    server: str | None = None
    tool: str | None = None
    outcome: str | None = None
    since: datetime.datetime | None = None

    def admits(self, call: dict[str, Any]) -> bool:
        name, server = str(call.get("name")), call.get("server")
        if self.server is not None and server != self.server:
            return False
        if self.tool is not None and not (fnmatchcase(name, self.tool) or fnmatchcase(f"{server}.{name}", self.tool)):
            return False
        if self.outcome is not None and call.get("outcome") != self.outcome:
            return False
        return self.since is None or (at := _time_of(call)) is None or at >= self.since


def read_audit(directory: Path, keep: int = KEEP_FILES) -> AuditReading:
    """Every call in the audit files of `directory` (the workspace's logs), oldest first."""
    calls: list[dict[str, Any]] = []
    unreadable = 0
    problems: list[str] = []
    names = [f"{AUDIT_FILE}.{index}" for index in range(keep, 0, -1)] + [AUDIT_FILE]
    with usable_directory(directory) as fd:
        if fd is None:
            return AuditReading([])
        for name in names:
            try:
                text = read_regular(name, MAX_READ_BYTES, directory_fd=fd).decode(errors="replace")
            except FileNotFoundError:
                continue
            except (OSError, UnusableFileError) as error:
                problems.append(f"{directory / name} was not read ({error})")
                continue
            for line in text.splitlines():
                try:
                    call = json.loads(line)
                except ValueError:
                    call = None
                if isinstance(call, dict):
                    calls.append(cast(dict[str, Any], call))
                elif line.strip():
                    unreadable += 1
    return AuditReading(calls, unreadable, problems)


def parse_since(text: str, now: datetime.datetime | None = None) -> datetime.datetime:
    """`10m`, `2h`, `1d`, `1w` ago, or an ISO time (UTC unless it says its zone)."""
    now = now or datetime.datetime.now(datetime.UTC)
    ago = _AGO.fullmatch(text.strip())
    if ago is not None:
        return now - datetime.timedelta(seconds=float(ago["count"]) * _SECONDS[ago["unit"]])
    try:
        at = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(
            f"--since {text!r} is neither a time ago (10m, 2h, 1d) nor an ISO time (2025-06-01T12:00)"
        ) from None
    return at if at.tzinfo is not None else at.replace(tzinfo=datetime.UTC)


def checked_outcome(outcome: str | None) -> str | None:
    if outcome is not None and outcome not in OUTCOMES:
        raise UsageError(f"--outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
    return outcome


def as_jsonl(calls: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(call, ensure_ascii=False) + "\n" for call in calls)


def as_csv(calls: list[dict[str, Any]]) -> str:
    """One row per call; the argument shape and values as JSON text."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for call in calls:
        session = cast(dict[str, Any], call.get("session") if isinstance(call.get("session"), dict) else {})
        row = {**call, **{key: session.get(key) for key in ("client", "clientVersion", "project")}}
        row["session"] = session.get("id")
        for key in ("arguments", "values"):
            row[key] = json.dumps(call[key], ensure_ascii=False) if key in call else None
        writer.writerow(["" if row.get(column) is None else row[column] for column in CSV_COLUMNS])
    return out.getvalue()


def _time_of(call: dict[str, Any]) -> datetime.datetime | None:
    try:
        at = datetime.datetime.fromisoformat(str(call.get("time")))
    except ValueError:
        return None
    return at if at.tzinfo is not None else at.replace(tzinfo=datetime.UTC)
