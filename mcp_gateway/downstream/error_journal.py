"""The last error of each server, on disk, so `mcp-gateway status` in another process can show it.

The serving gateway is a different process from the one a user runs `status` in, so what went wrong
(startup, listing or a call; whether a retry can help) is kept in `errors.json` in the workspace: small,
rewritten atomically, cleared for a server when it next starts cleanly. It is read and written as
`workspace_files` says: never through a link, never blocking, at most `MAX_JOURNAL_BYTES`; a file that is not a
usable journal reads as empty and is replaced by the next write. Messages pass through the gateway's
`SecretMask` on the way in and on the way out (a file written by an older gateway may hold one).

A serving pool writes it through `JournalUpdates`, never on the event loop: a supervisor notes an error (or its
clearing) synchronously, in the middle of its bookkeeping, and must not wait for the disk (a slow or full
filesystem would stall every call of the gateway). So a note only records the newest update per server and wakes
one flusher, which applies what has gathered in one read-modify-write in a worker thread, and again while more
arrives. One flusher at a time keeps the updates in the order they were made; later updates of a server replace
earlier ones not yet written, since the journal keeps only the last. What is still unwritten when the pool ends
is written then, within `FINAL_FLUSH_SECONDS`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, cast

import anyio
import anyio.to_thread
from pydantic import TypeAdapter, ValidationError

from mcp_gateway.background import BackgroundTasks
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


FINAL_FLUSH_SECONDS = 2.0
"""The pool's exit waits this long at most for the last updates: one small file, rewritten once."""


class JournalUpdates:
    """The pool's side of errors.json: `record` and `clear` return at once; writes follow in order."""

    def __init__(self, journal: ErrorJournal) -> None:
        self._journal = journal
        self._pending: dict[str, ErrorRecord | None] = {}
        """Per server, its newest unwritten update: a record, or None for a clearing."""
        self._tasks: BackgroundTasks | None = None
        self._flushing = False
        self._writing = anyio.Lock()

    def attach(self, tasks: BackgroundTasks) -> None:
        """Write in `tasks` (the pool's), from now on and what gathered before."""
        self._tasks = tasks
        self._start_flushing()

    def detach(self) -> None:
        """The pool's tasks are gone: updates gather until `flush`."""
        self._tasks = None

    def record(self, server: str, error: ErrorRecord) -> None:
        self._update(server, error)

    def clear(self, server: str) -> None:
        self._update(server, None)

    async def flush(self) -> None:
        """Write what is pending, bounded: for the pool's exit, when its background tasks are gone."""
        with anyio.move_on_after(FINAL_FLUSH_SECONDS):
            await self._write_pending()

    def _update(self, server: str, update: ErrorRecord | None) -> None:
        self._pending.pop(server, None)  # re-inserted last, so the batch keeps the order of the newest updates
        self._pending[server] = update
        self._start_flushing()

    def _start_flushing(self) -> None:
        if self._tasks is not None and self._pending and not self._flushing:
            self._flushing = True
            self._tasks.start_soon(self._flush_while_pending, name="recording server errors for status")

    async def _flush_while_pending(self) -> None:
        try:
            await self._write_pending()
        finally:
            self._flushing = False

    async def _write_pending(self) -> None:
        async with self._writing:  # one writer at a time: a final flush waits for the flusher, order is kept
            await self._write_each_batch()

    async def _write_each_batch(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, {}
            try:
                await anyio.to_thread.run_sync(self._journal.apply, batch)
            except BaseException:  # cancelled before the thread ran: the batch goes back, under newer updates
                self._pending = {**batch, **self._pending}
                raise
