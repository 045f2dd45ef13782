"""A downstream server's stderr file: line-buffered, capped and rotated, secrets masked, long lines cut."""

from __future__ import annotations

import stat
from pathlib import Path

from mcp_gateway.downstream.stderr_log import MAX_LINE_CHARS, MAX_LOG_BYTES, StderrLog
from mcp_gateway.masking import MASK, SecretMask

TOKEN = "ghp_" + "Z" * 36


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_complete_lines_are_written_and_a_partial_line_waits_for_its_end(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "s.log")
    log.feed("first\nsec")
    assert lines(log.path) == ["first"]
    log.feed("ond\n")
    assert lines(log.path) == ["first", "second"]


def test_flush_writes_a_pending_partial_line(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "s.log")
    log.feed("no newline at the end")
    log.flush()
    assert lines(log.path) == ["no newline at the end"]


def test_the_log_file_is_private(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "s.log")
    log.feed("x\n")
    assert stat.S_IMODE(log.path.stat().st_mode) == 0o600


def test_gateway_notes_are_marked_as_the_gateways(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "s.log")
    log.note("started pid 42")
    (line,) = lines(log.path)
    assert line.startswith("[mcp-gateway ")
    assert line.endswith("] started pid 42")


def test_a_configured_secret_value_is_masked(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "s.log", SecretMask([TOKEN]))
    log.feed(f"auth with {TOKEN} failed\n")
    assert lines(log.path) == [f"auth with {MASK} failed"]


def test_a_secret_split_across_chunks_is_still_masked(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "s.log", SecretMask([TOKEN]))
    log.feed(f"token={TOKEN[:10]}")
    log.feed(f"{TOKEN[10:]} rejected\n")
    assert lines(log.path) == [f"token={MASK} rejected"]
    assert "Z" * 10 not in log.path.read_text()


def test_a_secret_in_a_gateway_note_is_masked(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "s.log", SecretMask([TOKEN]))
    log.note(f"log error: bad token {TOKEN}")
    assert TOKEN not in log.path.read_text()


def test_short_configured_values_are_not_masked(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "s.log", SecretMask(["1", "8080"]))
    log.feed("listening on 8080 with 1 worker\n")
    assert lines(log.path) == ["listening on 8080 with 1 worker"]


def test_a_long_line_is_cut_and_marked(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "s.log")
    log.feed("x" * (MAX_LINE_CHARS * 3) + "\nnext\n")
    first, second = lines(log.path)
    assert first == "x" * MAX_LINE_CHARS + " …[cut]"
    assert second == "next"


def test_a_runaway_line_without_newline_is_written_before_it_grows_further(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "s.log")
    log.feed("y" * (MAX_LINE_CHARS + 10))
    assert lines(log.path) == ["y" * MAX_LINE_CHARS + " …[cut]"]


def test_a_secret_straddling_the_line_cut_does_not_leak(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "s.log", SecretMask([TOKEN]))
    log.feed("a" * (MAX_LINE_CHARS - 20) + TOKEN + "\n")
    assert TOKEN[:20] not in log.path.read_text()


def test_a_secret_split_by_a_runaway_line_flush_does_not_leak(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "s.log", SecretMask([TOKEN]))
    log.feed("a" * (MAX_LINE_CHARS - 5) + TOKEN[:20])
    log.feed(TOKEN[20:] + "\n")
    assert TOKEN[20:] not in log.path.read_text()


def test_the_log_rotates_to_dot_1_at_the_cap(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "s.log")
    line = "z" * 8000
    writes = MAX_LOG_BYTES // 8001 + 5
    for index in range(writes):
        log.feed(f"{index:05d}{line}\n")
    rotated = tmp_path / "s.log.1"
    assert rotated.exists()
    assert log.path.stat().st_size <= MAX_LOG_BYTES
    assert rotated.stat().st_size <= MAX_LOG_BYTES
    # Nothing is lost at the rotation: the newest line is in the live file, the ones before in `.1`.
    assert lines(log.path)[-1].startswith(f"{writes - 1:05d}")
    assert lines(rotated)[-1][:5] == f"{writes - len(lines(log.path)) - 1:05d}"


def test_a_missing_logs_directory_never_raises(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "gone" / "s.log")
    log.feed("lost\n")
    log.note("also lost")
    assert not log.path.exists()


def test_a_credential_in_a_url_is_masked_though_nobody_configured_it(tmp_path: Path) -> None:
    log = StderrLog(tmp_path / "s.log", SecretMask())
    log.feed("GET https://api.example/v1?api_key=unconfigured-value&page=2 for NODE_ENV=production\n")
    assert lines(log.path) == [f"GET https://api.example/v1?api_key={MASK}&page=2 for NODE_ENV=production"]
