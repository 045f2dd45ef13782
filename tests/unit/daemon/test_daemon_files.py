"""The daemon's state files on disk: written atomically and never through a link, read without blocking, and
judged running only when the pid is alive and started when the file says."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest
from workspace_hazards import bounded, dead_pid, plant_fifo, plant_link, release_fifo

from mcp_gateway.daemon.state_file import (
    DaemonState,
    SessionEntry,
    read_states,
    remove_stale,
    remove_state,
    runs,
    state_name,
    write_state,
)
from mcp_gateway.downstream.processes import start_time


def this_process() -> DaemonState:
    return DaemonState(
        pid=os.getpid(),
        start=start_time(os.getpid()),
        version="0.9.0",
        front_protocol=1,
        socket="/tmp/s.sock",
        grace_seconds=30.0,
        idle_since=None,
        written_at=1.0,
        sessions=(SessionEntry(1, "claude-code", "2.1.3", 1.0, 0),),
        processes=(),
    )


def test_a_state_written_reads_back_private(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_state(run, this_process())
    [found] = read_states(run)
    assert found.state == this_process()
    assert found.name == state_name(os.getpid())
    assert stat.S_IMODE((run / found.name).stat().st_mode) == 0o600
    assert [path.name for path in run.iterdir()] == [found.name], "no temp file left"
    remove_state(run, os.getpid())
    assert read_states(run) == []


def test_a_link_planted_as_the_state_file_is_replaced_never_written_through(tmp_path: Path) -> None:
    run = tmp_path / "run"
    outside = plant_link(run / state_name(os.getpid()), tmp_path / "outside")
    write_state(run, this_process())
    outside.assert_untouched()
    assert not (run / state_name(os.getpid())).is_symlink()


def test_a_run_directory_that_is_a_link_is_neither_written_nor_read(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "run").symlink_to(elsewhere)
    with pytest.raises(OSError, match="not a directory of its own"):
        write_state(tmp_path / "run", this_process())
    write_state(elsewhere, this_process())
    assert read_states(tmp_path / "run") == []
    assert list(elsewhere.iterdir()), "what is there is left alone"


def test_unusable_files_are_named_with_why_and_a_fifo_never_blocks_the_reader(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "daemon-11.state").write_text("not json")
    fifo = plant_fifo(run / "daemon-12.state")
    (run / "daemon-13.json").write_text("{}")  # not a state file's name: a process record's
    try:
        found = bounded(lambda: read_states(run))
    finally:
        release_fifo(fifo)
    assert [(item.name, item.state) for item in found] == [("daemon-11.state", None), ("daemon-12.state", None)]
    assert found[0].problem == "it is not JSON"
    assert found[1].problem == "it is not a regular file"


def test_a_daemon_runs_only_while_its_pid_is_alive_and_started_when_the_file_says() -> None:
    alive = this_process()
    assert runs(alive)
    assert not runs(replace(alive, start=(alive.start or 0) - 60)), "a reused pid is another process"
    assert not runs(replace(alive, start=None)), "unprovable"
    assert not runs(replace(alive, pid=dead_pid()))


def test_the_next_daemon_removes_the_state_of_daemons_that_are_gone_and_keeps_the_running_ones(tmp_path: Path) -> None:
    run = tmp_path / "run"
    gone = replace(this_process(), pid=dead_pid())
    write_state(run, gone)
    write_state(run, this_process())
    (run / "daemon-14.state").write_text("garbage")
    outside = plant_link(run / "daemon-15.state", tmp_path / "outside")
    removed = remove_stale(run)
    assert sorted(removed) == sorted([state_name(gone.pid), "daemon-14.state", "daemon-15.state"])
    assert [found.state for found in read_states(run)] == [this_process()]
    outside.assert_untouched()
