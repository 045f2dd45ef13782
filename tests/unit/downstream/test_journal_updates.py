"""A serving pool's errors.json updates: written off the event loop, in order, newest per server, none lost."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path

import anyio
import pytest

from mcp_gateway.background import background_tasks
from mcp_gateway.downstream.error_journal import ErrorJournal, ErrorRecord, JournalUpdates

pytestmark = pytest.mark.anyio

FIRST = ErrorRecord("startup", "first", retryable=True, at=1.0)
SECOND = ErrorRecord("tool_call", "second", retryable=False, at=2.0)


class GatedJournal(ErrorJournal):
    """A journal whose writes wait for the test to open a gate, and which notes the thread each ran on."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.batches: list[dict[str, ErrorRecord | None]] = []
        self.threads: set[int] = set()

    def apply(self, updates: Mapping[str, ErrorRecord | None]) -> None:
        self.threads.add(threading.get_ident())
        self.entered.set()
        assert self.gate.wait(10)
        self.batches.append(dict(updates))
        super().apply(updates)


async def test_updates_are_written_off_the_loop_in_order_and_coalesced(tmp_path: Path) -> None:
    journal = GatedJournal(tmp_path / "errors.json")
    updates = JournalUpdates(journal)
    async with background_tasks() as tasks:
        updates.attach(tasks)
        updates.record("a", FIRST)  # starts a write that waits at the gate
        assert await anyio.to_thread.run_sync(journal.entered.wait, 10)
        updates.record("b", FIRST)
        updates.record("b", SECOND)  # newer than the unwritten FIRST: only SECOND is written
        updates.clear("a")
        journal.gate.set()
        await updates.flush()
    assert threading.get_ident() not in journal.threads
    assert journal.batches[0] == {"a": FIRST}
    assert journal.batches[1:] == [{"b": SECOND, "a": None}]
    assert ErrorJournal(tmp_path / "errors.json").read() == {"b": SECOND}


async def test_what_gathered_before_attaching_and_after_the_tasks_end_is_still_written(tmp_path: Path) -> None:
    updates = JournalUpdates(ErrorJournal(tmp_path / "errors.json"))
    updates.record("early", FIRST)
    async with background_tasks() as tasks:
        updates.attach(tasks)
    updates.detach()
    updates.record("late", SECOND)  # the pool's tasks are gone: the exit's flush writes it
    await updates.flush()
    assert ErrorJournal(tmp_path / "errors.json").read() == {"early": FIRST, "late": SECOND}
