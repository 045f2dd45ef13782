"""The last error of each server, on disk, so `mcp-gateway status` in another process can show it.

The serving gateway is a different process from the one a user runs `status` in, so what went wrong
(startup, listing or a call; whether a retry can help) is kept in `errors.json` in the workspace: small,
rewritten atomically, cleared for a server when it next starts cleanly (a serving pool writes it through
`journal_updates`, off the event loop). It is read and written as `workspace_files` says: never through a
link, never blocking, at most `MAX_JOURNAL_BYTES`; a file that is not a usable journal reads as empty and is
replaced by the next write. Messages pass through the gateway's `SecretMask` on the way in and on the way
out (a file written by an older gateway may hold one).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, cast

from pydantic import TypeAdapter, ValidationError

from mcp_gateway.bounds import MAX_STORED_MESSAGE_CHARS, clip
from mcp_gateway.errors import Phase, UnusableFileError
from mcp_gateway.workspace_files import read_regular, remove_stale_temp_files, replace_file

MAX_JOURNAL_BYTES = 4 * 1024 * 1024
"""One short error per configured server is a few kilobytes; a larger file is not a journal."""


@dataclass(frozen=True)
class ErrorRecord:
    phase: Phase
    message: str
    retryable: bool
    at: float
    """Wall-clock time (epoch seconds)."""


_RECORD = TypeAdapter(ErrorRecord)


class ErrorJournal:
    def __init__(self, path: Path, mask: Callable[[str], str] | None = None) -> None:
        self._path = path
        self._swept = False
        self._mask = mask

    def read(self) -> dict[str, ErrorRecord]:
        if not self._swept:
            self._swept = True
            remove_stale_temp_files(self._path)  # left by a gateway killed mid-write
        try:
            raw = json.loads(read_regular(self._path, MAX_JOURNAL_BYTES))
        except (OSError, ValueError, UnusableFileError, RecursionError):
            return {}
        if not isinstance(raw, dict):
            return {}
        records: dict[str, ErrorRecord] = {}
        for server, entry in cast(dict[str, Any], raw).items():
            with contextlib.suppress(ValidationError):  # one unsound entry costs only itself
                record = _RECORD.validate_python(entry)
                records[server] = replace(record, message=self._masked(record.message))
        return records

    def record(self, server: str, error: ErrorRecord) -> None:
        self.apply({server: error})

    def clear(self, server: str) -> None:
        self.apply({server: None})

    def apply(self, updates: Mapping[str, ErrorRecord | None]) -> None:
        """One read-modify-write: each server's record replaced, or removed where its update is None."""
        records = self.read()
        before = dict(records)
        for server, error in updates.items():
            if error is None:
                records.pop(server, None)
            else:
                records[server] = replace(error, message=clip(self._masked(error.message), MAX_STORED_MESSAGE_CHARS))
        if records != before:
            self._write(records)

    def _masked(self, message: str) -> str:
        return self._mask(message) if self._mask is not None else message

    def _write(self, records: dict[str, ErrorRecord]) -> None:
        # Last writer wins between gateway processes: each entry is one server's most recent error anyway.
        data = json.dumps({server: asdict(record) for server, record in records.items()}).encode()
        with contextlib.suppress(OSError):  # losing the journal loses only what `status` shows
            replace_file(self._path, data, durable=False)
