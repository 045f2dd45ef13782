"""Background problems on disk: what `mcp-gateway status` in another process shows of the running gateways."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mcp_gateway.background import BackgroundProblem
from mcp_gateway.service.background_journal import BackgroundJournal, GatewayProblem

PROBLEM = BackgroundProblem("the validation warm-up", "ImportError: partially initialized module", 1_700_000_000.0)
LATER = BackgroundProblem("the startup refresh", "RuntimeError: boom", 1_700_000_100.0)


def finished_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    return int(done.stdout)


def test_the_problems_of_running_gateways_are_read_back_oldest_first(tmp_path: Path) -> None:
    path = tmp_path / "background-problems.json"
    BackgroundJournal(path).record(LATER)
    BackgroundJournal(path, owner_pid=os.getppid()).record(PROBLEM)
    assert BackgroundJournal(path).read() == [GatewayProblem(os.getppid(), PROBLEM), GatewayProblem(os.getpid(), LATER)]


def test_the_problems_of_a_gateway_that_is_gone_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "background-problems.json"
    BackgroundJournal(path, owner_pid=finished_pid()).record(PROBLEM)
    assert BackgroundJournal(path).read() == []
    BackgroundJournal(path).record(LATER)
    assert list(json.loads(path.read_text())) == [str(os.getpid())]


def test_a_reused_pid_does_not_inherit_the_problems_of_the_gateway_that_had_it(tmp_path: Path) -> None:
    path = tmp_path / "background-problems.json"
    path.write_text(json.dumps({str(os.getpid()): {"start": "0", "problems": [{"task": "t", "error": "e", "at": 1}]}}))
    assert BackgroundJournal(path).read() == []


def test_a_symlink_planted_at_the_temporary_name_is_not_written_through(tmp_path: Path) -> None:
    path = tmp_path / "background-problems.json"
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    (tmp_path / f".{path.name}.{os.getpid()}.tmp").symlink_to(victim)
    BackgroundJournal(path).record(PROBLEM)
    assert victim.read_text() == "untouched"
    assert BackgroundJournal(path).read() == [GatewayProblem(os.getpid(), PROBLEM)]


def test_an_unreadable_or_foreign_file_reads_as_no_problems(tmp_path: Path) -> None:
    path = tmp_path / "background-problems.json"
    assert BackgroundJournal(path).read() == []
    path.write_text("[1, 2]")
    assert BackgroundJournal(path).read() == []
    path.write_text("{not json")
    assert BackgroundJournal(path).read() == []
