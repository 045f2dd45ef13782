"""Process-group records on disk, and reaping the groups a SIGKILLed gateway left behind."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_gateway.downstream.process_records import (
    ProcessRecords,
    group_alive,
    process_start_time,
    reap_stale_groups,
    running_servers,
)

WAIT_SECONDS = 10.0


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    """A `sleep` leading its own process group (pgid == pid), always stopped afterwards."""
    process = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        yield process
    finally:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=WAIT_SECONDS)


@pytest.fixture
def dead_pid() -> int:
    """The pid of a process that has already exited (a gateway killed with SIGKILL, say)."""
    process = subprocess.Popen(["true"])
    process.wait(timeout=WAIT_SECONDS)
    return process.pid


def reap_in_background(process: subprocess.Popen[bytes]) -> threading.Thread:
    """Collect the child as soon as it exits, as its real parent would, so its group really disappears."""
    waiter = threading.Thread(target=process.wait, daemon=True)
    waiter.start()
    return waiter


def test_a_record_file_lists_the_groups_it_started_and_round_trips(
    tmp_path: Path, child: subprocess.Popen[bytes]
) -> None:
    records = ProcessRecords(tmp_path / "run")
    records.add(child.pid, "github")
    data = json.loads(records.path.read_text())
    assert records.path.name == f"{os.getpid()}.json"
    assert data["gateway"]["pid"] == os.getpid()
    assert data["groups"] == [{"pgid": child.pid, "start": process_start_time(child.pid), "server": "github"}]
    records.remove(child.pid)
    assert json.loads(records.path.read_text())["groups"] == []
    records.close()
    assert not records.path.exists()


def test_running_servers_lists_servers_of_live_gateways(tmp_path: Path, child: subprocess.Popen[bytes]) -> None:
    ProcessRecords(tmp_path).add(child.pid, "github")
    assert running_servers(tmp_path) == {"github": [(os.getpid(), child.pid)]}


def test_running_servers_ignores_records_of_dead_gateways(
    tmp_path: Path, child: subprocess.Popen[bytes], dead_pid: int
) -> None:
    ProcessRecords(tmp_path, owner_pid=dead_pid).add(child.pid, "github")
    assert running_servers(tmp_path) == {}


def test_running_servers_of_a_missing_directory_is_empty(tmp_path: Path) -> None:
    assert running_servers(tmp_path / "nope") == {}


def test_reaping_stops_the_group_of_a_dead_gateway_and_forgets_its_record(
    tmp_path: Path, child: subprocess.Popen[bytes], dead_pid: int
) -> None:
    records = ProcessRecords(tmp_path, owner_pid=dead_pid)
    records.add(child.pid, "stubborn")
    waiter = reap_in_background(child)
    assert reap_stale_groups(tmp_path) == [child.pid]
    waiter.join(WAIT_SECONDS)
    assert child.returncode == -signal.SIGTERM
    assert not group_alive(child.pid)
    assert not records.path.exists()


def test_reaping_leaves_the_groups_of_a_live_gateway_alone(tmp_path: Path, child: subprocess.Popen[bytes]) -> None:
    records = ProcessRecords(tmp_path)
    records.add(child.pid, "github")
    assert reap_stale_groups(tmp_path) == []
    assert child.poll() is None
    assert records.path.exists()


def test_reaping_never_kills_a_group_whose_leader_pid_was_reused(
    tmp_path: Path, child: subprocess.Popen[bytes], dead_pid: int
) -> None:
    record = {"gateway": {"pid": dead_pid, "start": None}, "groups": [{"pgid": child.pid, "start": "1", "server": "x"}]}
    (tmp_path / f"{dead_pid}.json").write_text(json.dumps(record))
    assert reap_stale_groups(tmp_path) == []
    assert child.poll() is None
    assert not (tmp_path / f"{dead_pid}.json").exists()


def test_a_corrupt_record_file_is_removed(tmp_path: Path) -> None:
    (tmp_path / "123.json").write_text("{not json")
    assert reap_stale_groups(tmp_path) == []
    assert not (tmp_path / "123.json").exists()


def test_the_start_time_of_a_gone_process_is_unknown(dead_pid: int) -> None:
    assert process_start_time(dead_pid) is None
    assert process_start_time(os.getpid()) is not None
