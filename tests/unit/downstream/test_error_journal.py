"""errors.json: each server's last error, with every known secret masked on the way in and on the way out."""

from __future__ import annotations

import json
from pathlib import Path

from mcp_gateway.bounds import MAX_STORED_MESSAGE_CHARS
from mcp_gateway.downstream.error_journal import ErrorJournal, ErrorRecord
from mcp_gateway.masking import MASK, SecretMask

SECRET = "hush-journal-secret"


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
