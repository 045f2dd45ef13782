"""A server's log file when something else sits at its name: never written through a link, never blocking on
a FIFO, never rotated over a link; noted once, and the server runs on."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from workspace_hazards import bounded, plant_fifo, plant_link, release_fifo

from mcp_gateway.downstream.stderr_log import MAX_LOG_BYTES, StderrLog

LINE = "z" * 8000


def notes(caplog: pytest.LogCaptureFixture, path: Path) -> list[str]:
    return [r.getMessage() for r in caplog.records if str(path) in r.getMessage() and r.levelno >= logging.WARNING]


def test_a_linked_log_file_is_never_written_and_is_noted_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "logs" / "s.stderr.log"
    outside = plant_link(path, tmp_path / "outside")
    log = StderrLog(path)
    with caplog.at_level(logging.WARNING):
        log.note("started")
        log.feed("one\ntwo\n")
    outside.assert_untouched()
    assert path.is_symlink()
    (note,) = notes(caplog, path)
    assert "symbolic link" in note


def test_a_fifo_as_the_log_file_never_blocks_the_writer(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = plant_fifo(tmp_path / "s.stderr.log")
    log = StderrLog(path)
    try:
        with caplog.at_level(logging.WARNING):
            bounded(lambda: log.feed("one\ntwo\n"))
    finally:
        release_fifo(path)
    assert len(notes(caplog, path)) == 1


def test_a_linked_logs_directory_is_never_written_into(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "logs").symlink_to(outside)
    log = StderrLog(tmp_path / "logs" / "s.stderr.log")
    log.feed("lost\n")
    assert list(outside.iterdir()) == []


def test_rotation_never_replaces_a_linked_dot_1_and_writing_stops_at_the_cap(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "s.stderr.log"
    rotated = tmp_path / "s.stderr.log.1"
    outside = plant_link(rotated, tmp_path / "outside")
    log = StderrLog(path)
    with caplog.at_level(logging.WARNING):
        for index in range(MAX_LOG_BYTES // len(LINE) + 5):
            log.feed(f"{index:05d}{LINE}\n")
    assert rotated.is_symlink()
    outside.assert_untouched()
    assert path.stat().st_size <= MAX_LOG_BYTES
    assert len(notes(caplog, rotated)) == 1


def test_a_logs_path_that_is_a_file_costs_only_the_log_and_says_nothing_more(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "logs").write_text("not a directory")
    log = StderrLog(tmp_path / "logs" / "s.stderr.log")
    with caplog.at_level(logging.WARNING):
        log.feed("lost\n")
        log.note("also lost")
    assert (tmp_path / "logs").read_text() == "not a directory"
    assert caplog.records == []  # the workspace check said it once already
