"""errors.json, the last error of each server: written atomically, never through a link, never blocking, and
with every known secret masked on the way in and on the way out."""

from __future__ import annotations

import json
import os
from pathlib import Path

from workspace_hazards import bounded, dead_pid, plant_fifo, plant_link, release_fifo

from mcp_gateway.bounds import MAX_STORED_MESSAGE_CHARS
from mcp_gateway.downstream.error_journal import ErrorJournal, ErrorRecord
from mcp_gateway.masking import MASK, SecretMask

RECORD = ErrorRecord("startup", "it failed", retryable=True, at=1000.0)
SECRET = "hush-journal-secret"
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


def test_a_secret_in_a_recorded_message_never_reaches_the_file(tmp_path: Path) -> None:
    journal = ErrorJournal(tmp_path / "errors.json", SecretMask([SECRET]).mask)
    journal.record("github", ErrorRecord("tool_call", f"bad token: {SECRET}", False, 1.0))
    assert SECRET not in (tmp_path / "errors.json").read_text()
    assert journal.read()["github"].message == f"bad token: {MASK}"


def test_a_secret_in_a_file_written_without_masking_is_masked_when_read(tmp_path: Path) -> None:
    path = tmp_path / "errors.json"
    entry = {"phase": "startup", "message": f"crashed with {SECRET}", "retryable": True, "at": 1.0}
    path.write_text(json.dumps({"github": entry}))
    assert ErrorJournal(path, SecretMask([SECRET]).mask).read()["github"].message == f"crashed with {MASK}"


def test_a_secret_straddling_the_stored_length_is_masked_before_the_message_is_cut(tmp_path: Path) -> None:
    journal = ErrorJournal(tmp_path / "errors.json", SecretMask([SECRET]).mask)
    message = "x" * (MAX_STORED_MESSAGE_CHARS - 5) + SECRET
    journal.record("github", ErrorRecord("tool_call", message, False, 1.0))
    assert SECRET[:5] not in (tmp_path / "errors.json").read_text()
