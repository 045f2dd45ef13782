"""The rules every workspace file goes through: no links followed, no blocking, capped reads, exclusive temps."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from workspace_hazards import bounded, dead_pid, plant_fifo, plant_link, release_fifo

from mcp_gateway.errors import UnusableFileError
from mcp_gateway.workspace_files import (
    open_append,
    open_directory,
    read_regular,
    remove_stale_temp_files,
    replace_file,
    set_aside,
    temp_path,
)


def test_read_regular_returns_the_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 3000)
    assert read_regular(path, 3000) == b"x" * 3000


def test_read_regular_refuses_a_link_unless_told_to_follow(tmp_path: Path) -> None:
    outside = plant_link(tmp_path / "ws" / "f", tmp_path / "outside")
    with pytest.raises(UnusableFileError) as raised:
        read_regular(tmp_path / "ws" / "f", 1024)
    assert raised.value.tag == "link"
    assert read_regular(tmp_path / "ws" / "f", 1024, follow_symlinks=True) == outside.content


def test_read_regular_refuses_a_fifo_at_once(tmp_path: Path) -> None:
    fifo = plant_fifo(tmp_path / "f")
    try:
        with pytest.raises(UnusableFileError) as raised:
            bounded(lambda: read_regular(fifo, 1024))
    finally:
        release_fifo(fifo)
    assert raised.value.tag == "not-a-file"
    assert "is a FIFO" in raised.value.message


def test_read_regular_refuses_a_device_behind_a_followed_link(tmp_path: Path) -> None:
    (tmp_path / "f").symlink_to("/dev/zero")
    with pytest.raises(UnusableFileError) as raised:
        bounded(lambda: read_regular(tmp_path / "f", 1024, follow_symlinks=True))
    assert "is a character device" in raised.value.message


def test_read_regular_refuses_a_file_past_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 1025)
    with pytest.raises(UnusableFileError) as raised:
        read_regular(path, 1024)
    assert raised.value.tag == "oversize"


def test_read_regular_reports_a_missing_file_as_such(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "absent", 1024)


def test_replace_file_replaces_a_planted_link_itself_and_never_its_target(tmp_path: Path) -> None:
    path = tmp_path / "ws" / "f"
    outside = plant_link(path, tmp_path / "outside")
    replace_file(path, b"new", durable=True)
    assert not path.is_symlink()
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    outside.assert_untouched()
    assert sorted(p.name for p in path.parent.iterdir()) == ["f"]


def test_replace_file_never_writes_through_a_link_planted_as_its_temp_file(tmp_path: Path) -> None:
    path = tmp_path / "ws" / "f"
    outside = plant_link(temp_path(path, os.getpid()), tmp_path / "outside")
    replace_file(path, b"new", durable=False)
    assert path.read_bytes() == b"new"
    outside.assert_untouched()


def test_stale_temp_files_of_dead_writers_go_and_live_writers_keep_theirs(tmp_path: Path) -> None:
    path = tmp_path / "cache.json"
    dead = temp_path(path, dead_pid())
    dead.write_bytes(b"half")
    live = temp_path(path, os.getppid())
    live.write_bytes(b"being written")
    other = temp_path(tmp_path / "errors.json", dead_pid())
    other.write_bytes(b"not ours to judge")
    outside = plant_link(temp_path(path, dead_pid() + 100_000_000), tmp_path / "outside")

    removed = remove_stale_temp_files(path)

    assert not dead.exists()
    assert live.exists()
    assert other.exists()
    assert len(removed) == 2
    outside.assert_untouched()


def test_open_append_creates_a_private_file_and_appends(tmp_path: Path) -> None:
    with open_directory(tmp_path) as directory:
        for line in (b"one\n", b"two\n"):
            fd = open_append("log", directory)
            os.write(fd, line)
            os.close(fd)
    assert (tmp_path / "log").read_bytes() == b"one\ntwo\n"
    assert stat.S_IMODE((tmp_path / "log").stat().st_mode) == 0o600


@pytest.mark.parametrize("hazard", ["link", "fifo"])
def test_open_append_refuses_a_link_or_a_fifo(tmp_path: Path, hazard: str) -> None:
    log = tmp_path / "ws" / "log"
    outside = plant_link(log, tmp_path / "outside") if hazard == "link" else None
    if hazard == "fifo":
        plant_fifo(log)
    with open_directory(log.parent) as directory, pytest.raises(UnusableFileError):
        bounded(lambda: open_append("log", directory))
    if outside is not None:
        outside.assert_untouched()


def test_open_directory_refuses_a_linked_directory(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "real")
    with (
        pytest.raises(UnusableFileError, match="is a symbolic link, not a directory"),
        open_directory(tmp_path / "linked"),
    ):
        pass


def test_files_named_in_a_directory_descriptor_are_read_and_replaced_there(tmp_path: Path) -> None:
    with open_directory(tmp_path) as directory:
        replace_file("record", b"one", durable=True, directory_fd=directory)
        assert read_regular("record", 1024, directory_fd=directory) == b"one"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record"]


def test_a_new_file_has_exactly_its_mode_whatever_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o277)
    try:
        replace_file(tmp_path / "private", b"x", durable=False)
        replace_file(tmp_path / "shared", b"x", durable=False, mode=0o644)
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "private").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "shared").stat().st_mode) == 0o644


def test_set_aside_moves_a_link_itself_and_keeps_the_newest_few(tmp_path: Path) -> None:
    outside = plant_link(tmp_path / "ws" / "cache.json", tmp_path / "outside")
    first = set_aside(tmp_path / "ws" / "cache.json", "link", keep=2)
    assert (tmp_path / "ws" / first).is_symlink()
    outside.assert_untouched()
    kept = [first]
    for _ in range(3):
        (tmp_path / "ws" / "cache.json").write_bytes(b"{not json")
        kept.append(set_aside(tmp_path / "ws" / "cache.json", "corrupt", keep=2))
    assert sorted(p.name for p in (tmp_path / "ws").iterdir()) == sorted(kept[-2:])
    outside.assert_untouched()
