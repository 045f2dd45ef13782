"""The audit trail: a line's shape and masking, the writer (private, rotated, never through a link, a failure
said once and never raised), and reading back across rotated files with filters and exports."""

from __future__ import annotations

import asyncio
import csv
import datetime
import io
import json
import os
import stat
from pathlib import Path
from typing import Any, cast

import pytest

from mcp_gateway.audit import (
    AUDIT_FILE,
    AuditedCall,
    AuditFilter,
    AuditSession,
    AuditTrail,
    as_csv,
    as_jsonl,
    json_size,
    line_of,
    parse_since,
    read_audit,
    shape_of,
    values_of,
)
from mcp_gateway.errors import CallRefusedError, UnknownToolError, UsageError
from mcp_gateway.masking import MASK, SecretMask
from mcp_gateway.tokens import compact_json

SECRET = "Zx9-secretValue-0123456789"
SECRETS = SecretMask([SECRET])
SESSION = AuditSession("3", "claude-code", "2.1.0", "/home/me/project")


def a_call(name: str = "echo", *, server: str = "fake", values: bool = False, **arguments: Any) -> AuditedCall:
    call = AuditedCall("tool", name, SESSION, arguments, values)
    call.server = server
    return call


def test_the_shape_keeps_keys_and_json_types_bounded_and_never_a_value() -> None:
    arguments = {
        "path": "/etc/passwd",
        "n": 3,
        "on": True,
        "none": None,
        "tags": ["a", 1, "b"],
        "deep": {"a": {"b": {"c": {"d": 1}}}},
    }
    shape = shape_of(arguments, SECRETS)
    assert shape == {
        "path": "string",
        "n": "number",
        "on": "boolean",
        "none": "null",
        "tags": ["string", "number"],
        "deep": {"a": {"b": {"c": "object"}}},
    }
    assert "/etc/passwd" not in json.dumps(shape)
    many = cast(dict[str, object], shape_of({f"k{i}": i for i in range(100)}, SECRETS))
    assert len(many) == 41
    assert many["…"] == "60 more keys"


def test_values_are_masked_known_secrets_secret_keys_and_token_shaped_words() -> None:
    token = "ghp_R2d2C3poL1ke5kyWalker0123456789abc"
    kept = values_of(
        {"note": f"use {SECRET} now", "api_key": "plain-words", "text": f"the token {token}", "long": "x" * 500},
        SECRETS,
    )
    assert kept == {
        "note": f"use {MASK} now",
        "api_key": MASK,
        "text": f"the token {MASK}",
        "long": "x" * 200 + "… (300 more characters)",
    }


def test_a_line_says_who_what_how_it_ended_how_long_and_how_large() -> None:
    call = a_call(message="hi", values=False)
    call.ended({"content": [{"type": "text", "text": "hi"}]})
    line = line_of(call, SECRETS)
    assert line["session"] == {
        "id": "3",
        "client": "claude-code",
        "clientVersion": "2.1.0",
        "project": "/home/me/project",
    }
    assert (line["kind"], line["server"], line["name"], line["outcome"]) == ("tool", "fake", "echo", "ok")
    assert line["arguments"] == {"message": "string"}
    assert "values" not in line
    assert line["resultBytes"] == len(b'{"content":[{"type":"text","text":"hi"}]}')
    assert line["time"].endswith("Z")
    assert line["durationMs"] >= 0
    failed = a_call()
    failed.ended({"isError": True, "content": []})
    assert line_of(failed, SECRETS)["outcome"] == "tool-error"
    refused = a_call()
    refused.ended(error=CallRefusedError(f"no, {SECRET}"))
    assert (line_of(refused, SECRETS)["outcome"], line_of(refused, SECRETS)["reason"]) == ("refused", f"no, {MASK}")
    unknown = a_call()
    unknown.ended(error=UnknownToolError("no such tool"))
    assert line_of(unknown, SECRETS)["outcome"] == "gateway-error"
    cancelled = a_call()
    cancelled.ended(error=asyncio.CancelledError())
    assert line_of(cancelled, SECRETS)["outcome"] == "cancelled"


def written(trail: AuditTrail, *calls: AuditedCall) -> None:
    for call in calls:
        call.ended({"content": []})
        trail.write(call)
    trail.close(timeout=10)


def test_the_writer_appends_private_lines_and_rotates_by_size_keeping_a_bounded_number(tmp_path: Path) -> None:
    trail = AuditTrail(tmp_path, SECRETS, max_bytes=2000, keep=2)
    for index in range(30):  # one at a time: each its own batch
        written(trail, a_call(f"t{index}", values=True, text=SECRET))
    names = sorted(os.listdir(tmp_path))
    assert names == [AUDIT_FILE, f"{AUDIT_FILE}.1", f"{AUDIT_FILE}.2"]
    for name in names:
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o600
        assert os.stat(tmp_path / name).st_size <= 2000
        assert SECRET not in (tmp_path / name).read_text()
    reading = read_audit(tmp_path, keep=2)
    read = [call["name"] for call in reading.calls]
    assert read == sorted(read, key=lambda name: int(name[1:]))
    assert read[-1] == "t29"
    assert len(read) < 30


def test_an_unwritable_trail_never_raises_and_is_said_once_then_said_fixed(tmp_path: Path) -> None:
    said: list[str | None] = []
    target = tmp_path / "elsewhere"
    (tmp_path / AUDIT_FILE).symlink_to(target)
    trail = AuditTrail(tmp_path, SECRETS, said.append)
    written(trail, a_call(), a_call())
    trail = AuditTrail(tmp_path, SECRETS, said.append)
    written(trail, a_call())
    assert not target.exists()
    assert len(said) == 2
    assert all(isinstance(s, str) and "is a symbolic link" in s for s in said)
    (tmp_path / AUDIT_FILE).unlink()
    written(AuditTrail(tmp_path, SECRETS, said.append), a_call())  # a new writer: it never failed
    failing = AuditTrail(tmp_path / "missing", SECRETS, said.append)
    written(failing, a_call())
    assert said[-1] is not None
    assert "cannot be written" in said[-1]


def lines(*calls: dict[str, Any]) -> str:
    return "".join(json.dumps(call) + "\n" for call in calls)


def test_reading_skips_what_is_not_a_line_and_filters_by_server_tool_outcome_and_time(tmp_path: Path) -> None:
    old = {"time": "2020-01-01T00:00:00.000Z", "server": "gh", "name": "delete_repo", "outcome": "refused"}
    new = {"time": "2999-01-01T00:00:00.000Z", "server": "fs", "name": "read", "outcome": "ok"}
    (tmp_path / f"{AUDIT_FILE}.1").write_text(lines(old) + "not json\n")
    (tmp_path / AUDIT_FILE).write_text(lines(new))
    reading = read_audit(tmp_path)
    assert (reading.calls, reading.unreadable_lines) == ([old, new], 1)
    assert [c for c in reading.calls if AuditFilter(server="gh").admits(c)] == [old]
    assert [c for c in reading.calls if AuditFilter(tool="gh.delete_*").admits(c)] == [old]
    assert [c for c in reading.calls if AuditFilter(tool="read").admits(c)] == [new]
    assert [c for c in reading.calls if AuditFilter(outcome="refused").admits(c)] == [old]
    assert [c for c in reading.calls if AuditFilter(since=parse_since("1d")).admits(c)] == [new]


def test_since_reads_times_ago_and_iso_times_and_refuses_anything_else() -> None:
    now = datetime.datetime(2025, 6, 1, 12, 0, tzinfo=datetime.UTC)
    assert parse_since("10m", now) == now - datetime.timedelta(minutes=10)
    assert parse_since("2h", now) == now - datetime.timedelta(hours=2)
    assert parse_since("2025-05-01T08:00", now) == datetime.datetime(2025, 5, 1, 8, 0, tzinfo=datetime.UTC)
    with pytest.raises(UsageError, match="neither a time ago"):
        parse_since("yesterday", now)


def test_exports_hold_every_field_as_jsonl_and_csv() -> None:
    call = {
        "time": "2025-06-01T12:00:00.000Z",
        "session": {"id": "3", "client": "c", "clientVersion": "1", "project": "/p"},
        "kind": "tool",
        "server": "fs",
        "name": "write",
        "arguments": {"path": "string"},
        "outcome": "ok",
        "durationMs": 1.5,
        "resultBytes": 10,
    }
    assert [json.loads(line) for line in as_jsonl([call]).splitlines()] == [call]
    (row,) = csv.DictReader(io.StringIO(as_csv([call])))
    assert row["session"] == "3"
    assert row["client"] == "c"
    assert row["project"] == "/p"
    assert (row["server"], row["name"], row["outcome"], row["durationMs"]) == ("fs", "write", "ok", "1.5")
    assert json.loads(row["arguments"]) == {"path": "string"}
    assert row["values"] == ""


def test_a_results_size_is_counted_without_writing_it_out_again() -> None:
    small: list[object] = [
        {"content": [{"type": "text", "text": "hi"}]},
        {},
        [[], {}],
        {"a": [1, 2.5, None, True, False, {"b": 'x"\n\u00e9\t', "c": "a\\b", "d": "中文", "e": "\x07"}]},
    ]
    for value in small:
        assert json_size(value) == len(compact_json(value).encode()), value
    long_text = "line\n" * 20_000  # longer than counted exactly: its escapes are left out
    assert json_size({"text": long_text}) == len(compact_json({"text": ""}).encode()) + len(long_text)
