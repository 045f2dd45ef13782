"""Updates to errors.json from a serving pool, written in order by worker threads, never on the event loop.

A supervisor notes an error (or its clearing) synchronously, in the middle of its bookkeeping, and must not wait
for the disk: a slow or full filesystem would stall every call of the gateway. So a note only records the
newest update per server and wakes one flusher, which applies what has gathered in one read-modify-write in a
worker thread, and again while more arrives. One flusher at a time keeps the updates in the order they were
made; later updates of a server replace earlier ones not yet written, since the journal keeps only the last.
What is still unwritten when the pool ends is written then, within `FINAL_FLUSH_SECONDS`.
"""

from __future__ import annotations

import anyio
import anyio.to_thread

from mcp_gateway.background import BackgroundTasks
from mcp_gateway.downstream.error_journal import ErrorJournal, ErrorRecord

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
