"""errors.json, the last error of each server: written atomically, never through a link, never blocking."""

from __future__ import annotations

import json
import os
from pathlib import Path

from workspace_hazards import bounded, dead_pid, plant_fifo, plant_link, release_fifo

from mcp_gateway.downstream.error_journal import ErrorJournal, ErrorRecord

RECORD = ErrorRecord("startup", "it failed", retryable=True, at=1000.0)
OTHER_RECORDS = json.dumps({"x": {"phase": "startup", "message": "m", "retryable": False, "at": 1}}).encode()


def test_records_round_trip_and_clear(tmp_path: Path) -> None:
    journal = ErrorJournal(tmp_path / "errors.json")
    journal.record("s", RECORD)
    assert ErrorJournal(tmp_path / "errors.json").read() == {"s": RECORD}
    journal.clear("s")
    assert journal.read() == {}


def test_a_linked_journal_is_never_read_or_written_through(tmp_path: Path) -> None:
    path = tmp_path / "ws" / "errors.json"
    outside = plant_link(path, tmp_path / "outside", OTHER_RECORDS, mode=0o644)
    journal = ErrorJournal(path)

    assert journal.read() == {}
    journal.record("s", RECORD)

    outside.assert_untouched()
    assert not path.is_symlink()
    assert journal.read() == {"s": RECORD}


def test_a_fifo_as_the_journal_never_blocks(tmp_path: Path) -> None:
    path = plant_fifo(tmp_path / "errors.json")
    try:
        assert bounded(ErrorJournal(path).read) == {}
    finally:
        release_fifo(path)


def test_a_temp_file_left_by_a_killed_gateway_is_removed_when_the_journal_is_read(tmp_path: Path) -> None:
    path = tmp_path / "errors.json"
    stale = tmp_path / f".errors.json.{dead_pid()}.tmp"
    stale.write_text("{")
    live = tmp_path / f".errors.json.{os.getppid()}.tmp"
    live.write_text("{")
    ErrorJournal(path).read()
    assert not stale.exists()
    assert live.exists()
