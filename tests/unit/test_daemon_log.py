"""The daemon's stderr log: private, appended to, bounded across starts, never opened through a link."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from workspace_hazards import plant_link

from mcp_gateway.front.daemon_log import DAEMON_LOG, MAX_DAEMON_LOG_BYTES, open_daemon_log


def append(logs: Path, text: bytes) -> None:
    fd = open_daemon_log(logs)
    try:
        os.write(fd, text)
    finally:
        os.close(fd)


def test_the_log_is_created_private_with_its_directory_and_appended_to(tmp_path: Path) -> None:
    logs = tmp_path / "ws" / "logs"
    append(logs, b"first\n")
    append(logs, b"second\n")
    assert (logs / DAEMON_LOG).read_bytes() == b"first\nsecond\n"
    assert stat.S_IMODE((logs / DAEMON_LOG).stat().st_mode) == 0o600
    assert stat.S_IMODE(logs.stat().st_mode) == 0o700


def test_a_log_over_its_bound_is_kept_as_the_previous_one_when_a_daemon_starts(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    append(logs, b"x" * (MAX_DAEMON_LOG_BYTES + 1))
    append(logs, b"fresh\n")
    assert (logs / DAEMON_LOG).read_bytes() == b"fresh\n"
    assert (logs / f"{DAEMON_LOG}.1").stat().st_size == MAX_DAEMON_LOG_BYTES + 1


def test_a_link_planted_as_the_log_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    outside = plant_link(logs / DAEMON_LOG, tmp_path / "outside")
    with pytest.raises(OSError, match=r"symbolic links|Not a directory"):
        open_daemon_log(logs)
    outside.assert_untouched()


def test_a_logs_directory_that_is_a_link_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "logs").symlink_to(elsewhere)
    with pytest.raises(OSError, match=r"symbolic links|Not a directory"):
        open_daemon_log(tmp_path / "logs")
    assert list(elsewhere.iterdir()) == []
