"""Process-group records on disk, and reaping the groups a SIGKILLed gateway left behind.

Real process groups are started here (a `sleep`, or a shell that leaves a `sleep` behind in its group), so
reaping is judged against the kernel's own view; groups that must never be signalled (0, 1, ours) are
only ever met by a recording stand-in for `os.killpg`.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import psutil
import pytest

from mcp_gateway.downstream.process_records import (
    ProcessRecords,
    RecordDirectory,
    reap_stale_groups,
    running_servers,
)
from mcp_gateway.downstream.processes import GROUP_MARKER_ENV, is_zombie

WAIT_SECONDS = 10.0
POLL_SECONDS = 0.02
TOKEN = "0123456789abcdef" * 2
OTHER_TOKEN = "fedcba9876543210" * 2


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(POLL_SECONDS)


def alive(pid: int) -> bool:
    """Running and not a zombie waiting for its parent."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def kill_group_quietly(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def marked_environment(token: str | None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != GROUP_MARKER_ENV}
    if token is not None:
        env[GROUP_MARKER_ENV] = token
    return env


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    """A `sleep` leading its own process group (pgid == pid), carrying no gateway marker."""
    process = subprocess.Popen(["sleep", "60"], start_new_session=True, env=marked_environment(None))
    try:
        yield process
    finally:
        if process.poll() is None:
            kill_group_quietly(process.pid)
        process.wait(timeout=WAIT_SECONDS)


@pytest.fixture
def orphaned_group() -> Iterator[Callable[[str | None], tuple[int, int]]]:
    """Start a group whose leader has exited, leaving one `sleep` in it: returns (pgid, member pid)."""
    started: list[int] = []

    def start(token: str | None) -> tuple[int, int]:
        leader = subprocess.Popen(
            ["sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"],
            start_new_session=True,
            stdout=subprocess.PIPE,
            env=marked_environment(token),
        )
        out, _ = leader.communicate(timeout=WAIT_SECONDS)
        started.append(leader.pid)
        return leader.pid, int(out)

    yield start
    for pgid in started:
        kill_group_quietly(pgid)


@pytest.fixture
def dead_pid() -> int:
    """The pid of a process that has already exited (a gateway killed with SIGKILL, say)."""
    process = subprocess.Popen(["true"])
    process.wait(timeout=WAIT_SECONDS)
    return process.pid


def plant(
    directory: Path,
    gateway_pid: int,
    groups: list[Mapping[str, Any]],
    *,
    token: str = TOKEN,
    gateway_start: float | None = 1.0,
) -> Path:
    """A record file as a gateway (now gone) would have written it.

    The gateway's start time is not that of any live process, so the record stays stale even if the dead
    gateway's pid is reused meanwhile.
    """
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{gateway_pid}.json"
    record = {"version": 2, "gateway": {"pid": gateway_pid, "start": gateway_start}, "token": token, "groups": groups}
    path.write_text(json.dumps(record))
    return path


def group_entry(pgid: int, start: float | None = None, server: str = "stubborn") -> dict[str, Any]:
    return {"pgid": pgid, "start": start, "server": server}


def reap_in_background(process: subprocess.Popen[bytes]) -> threading.Thread:
    """Collect the child as soon as it exits, as its real parent would, so its group really disappears."""
    waiter = threading.Thread(target=process.wait, daemon=True)
    waiter.start()
    return waiter


# The record file.


def test_a_record_file_lists_the_groups_it_started_and_round_trips(
    tmp_path: Path, child: subprocess.Popen[bytes]
) -> None:
    records = ProcessRecords(tmp_path / "run", token=TOKEN)
    records.add(child.pid, "github")
    data = json.loads(records.path.read_text())
    assert records.path.name == f"{os.getpid()}.json"
    assert data["gateway"] == {"pid": os.getpid(), "start": psutil.Process().create_time()}
    assert data["token"] == TOKEN
    assert data["groups"] == [{"pgid": child.pid, "start": psutil.Process(child.pid).create_time(), "server": "github"}]
    records.remove(child.pid)
    assert json.loads(records.path.read_text())["groups"] == []
    records.close()
    assert not records.path.exists()


def test_the_record_is_never_written_through_a_symbolic_link(tmp_path: Path, child: subprocess.Popen[bytes]) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    run = tmp_path / "run"
    run.mkdir()
    (run / f"{os.getpid()}.tmp").symlink_to(outside)
    records = ProcessRecords(run)
    records.add(child.pid, "github")
    assert outside.read_text() == "keep me"
    assert json.loads(records.path.read_text())["groups"][0]["pgid"] == child.pid


# Status: which servers live gateways run.


def test_running_servers_lists_servers_of_live_gateways(tmp_path: Path, child: subprocess.Popen[bytes]) -> None:
    ProcessRecords(tmp_path).add(child.pid, "github")
    assert running_servers(tmp_path) == {"github": [(os.getpid(), child.pid)]}


def test_running_servers_ignores_records_of_dead_gateways(
    tmp_path: Path, child: subprocess.Popen[bytes], dead_pid: int
) -> None:
    ProcessRecords(tmp_path, owner_pid=dead_pid).add(child.pid, "github")
    assert running_servers(tmp_path) == {}


def test_a_gateway_that_exited_but_was_never_reaped_runs_nothing(
    tmp_path: Path, child: subprocess.Popen[bytes]
) -> None:
    exited = subprocess.Popen(["true"])
    try:
        os.waitid(os.P_PID, exited.pid, os.WEXITED | os.WNOWAIT)  # it has exited, and is left unreaped: a zombie
        assert is_zombie(exited.pid)
        ProcessRecords(tmp_path, owner_pid=exited.pid).add(child.pid, "github")
        assert running_servers(tmp_path) == {}
    finally:
        exited.wait(WAIT_SECONDS)


@pytest.mark.parametrize("shape", ["missing", "regular file", "link to a directory"])
def test_a_records_directory_that_is_missing_a_file_or_a_link_holds_nothing(
    tmp_path: Path, dead_pid: int, shape: str
) -> None:
    run = tmp_path / "run"
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "123.json").parent.mkdir()
    (elsewhere / "123.json").write_text("{not json")
    if shape == "regular file":
        run.write_text("not a directory")
    elif shape == "link to a directory":
        run.symlink_to(elsewhere)
    assert running_servers(run) == {}
    report = reap_stale_groups(run)
    assert (report.reaped, report.skipped, report.set_aside) == ([], [], [])
    assert sorted(path.name for path in elsewhere.iterdir()) == ["123.json"], "nothing is touched through a link"


def test_no_record_is_written_through_a_records_directory_that_is_a_link(
    tmp_path: Path, child: subprocess.Popen[bytes]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "run").symlink_to(elsewhere)
    records = ProcessRecords(tmp_path / "run")
    records.add(child.pid, "github")
    records.remove(child.pid)
    assert list(elsewhere.iterdir()) == []


def test_a_record_that_cannot_be_written_is_said_once(
    tmp_path: Path, child: subprocess.Popen[bytes], caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(directory: RecordDirectory, name: str, record: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(RecordDirectory, "write", full)
    records = ProcessRecords(tmp_path / "run")
    records.add(child.pid, "github")
    records.remove(child.pid)
    assert caplog.text.count("could not record the servers") == 1


# Reaping what a gateway killed with SIGKILL left behind.


def test_reaping_stops_a_group_whose_leader_carries_the_gateway_marker(tmp_path: Path, dead_pid: int) -> None:
    leader = subprocess.Popen(["sleep", "60"], start_new_session=True, env=marked_environment(TOKEN))
    try:
        record = plant(tmp_path, dead_pid, [group_entry(leader.pid, psutil.Process(leader.pid).create_time())])
        waiter = reap_in_background(leader)
        assert reap_stale_groups(tmp_path).reaped == [leader.pid]
        waiter.join(WAIT_SECONDS)
        assert leader.returncode == -signal.SIGTERM
        assert not record.exists()
    finally:
        kill_group_quietly(leader.pid)
        leader.wait(WAIT_SECONDS)


def test_reaping_stops_a_group_whose_leader_exited_when_a_member_carries_the_marker(
    tmp_path: Path, dead_pid: int, orphaned_group: Callable[[str | None], tuple[int, int]]
) -> None:
    pgid, member = orphaned_group(TOKEN)
    plant(tmp_path, dead_pid, [group_entry(pgid, start=None)])
    assert reap_stale_groups(tmp_path).reaped == [pgid]
    wait_until(lambda: not alive(member))


def test_reaping_leaves_a_reused_group_id_alone_when_the_leader_started_at_another_time(
    tmp_path: Path, child: subprocess.Popen[bytes], dead_pid: int
) -> None:
    record = plant(tmp_path, dead_pid, [group_entry(child.pid, start=psutil.Process(child.pid).create_time() - 60)])
    report = reap_stale_groups(tmp_path)
    assert report.reaped == []
    assert [skipped.pgid for skipped in report.skipped] == [child.pid]
    assert child.poll() is None
    assert not record.exists()


def test_reaping_leaves_a_reused_group_id_alone_when_its_leader_is_gone_and_no_member_is_marked(
    tmp_path: Path, dead_pid: int, orphaned_group: Callable[[str | None], tuple[int, int]]
) -> None:
    pgid, member = orphaned_group(None)
    report = reap_stale_groups(plant(tmp_path, dead_pid, [group_entry(pgid)]).parent)
    assert report.reaped == []
    assert [(skipped.pgid, skipped.server) for skipped in report.skipped] == [(pgid, "stubborn")]
    assert alive(member)


def test_reaping_leaves_a_group_alone_whose_members_carry_another_gateways_marker(
    tmp_path: Path, dead_pid: int, orphaned_group: Callable[[str | None], tuple[int, int]]
) -> None:
    pgid, member = orphaned_group(OTHER_TOKEN)
    assert reap_stale_groups(plant(tmp_path, dead_pid, [group_entry(pgid)]).parent).reaped == []
    assert alive(member)


def test_a_leader_with_the_recorded_start_but_a_readable_unmarked_environment_is_not_proof(
    tmp_path: Path, child: subprocess.Popen[bytes], dead_pid: int
) -> None:
    """A forged record (or a reused pid caught in the same clock tick) names a process that is not ours."""
    plant(tmp_path, dead_pid, [group_entry(child.pid, start=psutil.Process(child.pid).create_time())])
    assert reap_stale_groups(tmp_path).reaped == []
    assert child.poll() is None


def test_a_leader_with_the_recorded_start_is_proof_where_environments_cannot_be_read(
    tmp_path: Path, child: subprocess.Popen[bytes], dead_pid: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreadable(process: psutil.Process) -> dict[str, str]:
        raise psutil.AccessDenied(process.pid)

    monkeypatch.setattr(psutil.Process, "environ", unreadable)
    plant(tmp_path, dead_pid, [group_entry(child.pid, start=psutil.Process(child.pid).create_time())])
    waiter = reap_in_background(child)
    assert reap_stale_groups(tmp_path).reaped == [child.pid]
    waiter.join(WAIT_SECONDS)
    assert child.returncode == -signal.SIGTERM


def test_reaping_leaves_the_groups_of_a_live_gateway_alone(tmp_path: Path) -> None:
    leader = subprocess.Popen(["sleep", "60"], start_new_session=True, env=marked_environment(TOKEN))
    try:
        records = ProcessRecords(tmp_path, token=TOKEN)
        records.add(leader.pid, "github")
        assert reap_stale_groups(tmp_path).reaped == []
        assert leader.poll() is None
        assert records.path.exists()
    finally:
        kill_group_quietly(leader.pid)
        leader.wait(WAIT_SECONDS)


@pytest.mark.parametrize("pgid", [0, 1, -1])
def test_a_record_naming_group_0_or_1_is_set_aside_and_nothing_is_signalled(
    tmp_path: Path, dead_pid: int, signals_sent: list[tuple[int, int]], pgid: int
) -> None:
    record = plant(tmp_path, dead_pid, [group_entry(pgid)])
    report = reap_stale_groups(tmp_path)
    assert [(p, s) for p, s in signals_sent if s != 0] == []
    assert report.reaped == []
    assert not record.exists()
    assert report.set_aside == [path.name for path in tmp_path.glob(f"{dead_pid}.json.*")]


def test_a_record_naming_the_gateways_own_group_never_makes_it_signal_its_own_group(
    tmp_path: Path, dead_pid: int, signals_sent: list[tuple[int, int]]
) -> None:
    own = os.getpgrp()
    plant(tmp_path, dead_pid, [group_entry(own)])
    report = reap_stale_groups(tmp_path)
    assert [(p, s) for p, s in signals_sent if s != 0] == []
    assert report.reaped == []


MALFORMED: dict[str, str] = {
    "pgid is a string": '{"version": 2, "gateway": {"pid": 7, "start": null}, "token": "%T", '
    '"groups": [{"pgid": "x", "start": null, "server": "s"}]}',
    "pgid is negative": '{"version": 2, "gateway": {"pid": 7, "start": null}, "token": "%T", '
    '"groups": [{"pgid": -5, "start": null, "server": "s"}]}',
    "pgid is huge": '{"version": 2, "gateway": {"pid": 7, "start": null}, "token": "%T", '
    '"groups": [{"pgid": 1000000000000000000000000000000, "start": null, "server": "s"}]}',
    "pgid is a boolean": '{"version": 2, "gateway": {"pid": 7, "start": null}, "token": "%T", '
    '"groups": [{"pgid": true, "start": null, "server": "s"}]}',
    "pgid is a float": '{"version": 2, "gateway": {"pid": 7, "start": null}, "token": "%T", '
    '"groups": [{"pgid": 2.5, "start": null, "server": "s"}]}',
    "groups holds a bare number": '{"version": 2, "gateway": {"pid": 7, "start": null}, "token": "%T", "groups": [5]}',
    "groups is an object": '{"version": 2, "gateway": {"pid": 7, "start": null}, "token": "%T", "groups": {}}',
    "pgid is missing": '{"version": 2, "gateway": {"pid": 7, "start": null}, "token": "%T", '
    '"groups": [{"start": null, "server": "s"}]}',
    "groups is missing": '{"version": 2, "gateway": {"pid": 7, "start": null}, "token": "%T"}',
    "gateway is missing": '{"version": 2, "token": "%T", "groups": []}',
    "gateway pid is a string": '{"version": 2, "gateway": {"pid": "x", "start": null}, "token": "%T", "groups": []}',
    "start is infinite": '{"version": 2, "gateway": {"pid": 7, "start": null}, "token": "%T", '
    '"groups": [{"pgid": 5, "start": Infinity, "server": "s"}]}',
    "start is a string": '{"version": 2, "gateway": {"pid": 7, "start": null}, "token": "%T", '
    '"groups": [{"pgid": 5, "start": "1234", "server": "s"}]}',
    "token is empty": '{"version": 2, "gateway": {"pid": 7, "start": null}, "token": "", "groups": []}',
    "token is missing": '{"version": 2, "gateway": {"pid": 7, "start": null}, "groups": []}',
    "server is a number": '{"version": 2, "gateway": {"pid": 7, "start": null}, "token": "%T", '
    '"groups": [{"pgid": 5, "start": null, "server": 3}]}',
    "the old format without a token": '{"gateway": {"pid": 7, "start": "12345"}, '
    '"groups": [{"pgid": 5, "start": "12345", "server": "s"}]}',
    "a list": "[1, 2, 3]",
    "not JSON": "{not json",
    "empty": "",
    "deeply nested": "[" * 100_000 + "]" * 100_000,
    "not UTF-8": "\udcff",
}


@pytest.mark.parametrize("shape", list(MALFORMED))
def test_a_malformed_record_is_set_aside_and_crashes_nothing(
    tmp_path: Path, signals_sent: list[tuple[int, int]], shape: str
) -> None:
    record = tmp_path / "7.json"
    record.write_bytes(MALFORMED[shape].replace("%T", TOKEN).encode("utf-8", errors="surrogateescape"))
    assert running_servers(tmp_path) == {}
    assert record.exists(), "status only reads"
    report = reap_stale_groups(tmp_path)
    assert not record.exists()
    assert len(report.set_aside) == 1
    assert (tmp_path / report.set_aside[0]).exists()
    assert report.set_aside[0].startswith("7.json.unusable-")
    assert signals_sent == []


@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory", "too large"])
def test_a_record_that_is_not_a_small_regular_file_is_set_aside_without_being_read(tmp_path: Path, kind: str) -> None:
    record = tmp_path / "7.json"
    if kind == "symlink":
        target = tmp_path / "target"
        target.write_text("{}")
        record.symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(record)  # reading it would block forever
    elif kind == "directory":
        record.mkdir()
    else:
        record.write_bytes(b" " * (2 * 1024 * 1024))
    assert running_servers(tmp_path) == {}
    report = reap_stale_groups(tmp_path)
    assert len(report.set_aside) == 1
    assert not os.path.lexists(record)
    if kind == "symlink":
        assert (tmp_path / "target").read_text() == "{}"


def test_only_the_newest_set_aside_records_are_kept(tmp_path: Path) -> None:
    kept: list[str] = []
    for index in range(8):
        (tmp_path / f"{100 + index}.json").write_text("{not json")
        kept += reap_stale_groups(tmp_path).set_aside
    left = sorted(path.name for path in tmp_path.iterdir())
    assert left == sorted(kept[-5:])
