"""The workspace's directories: made private when created, never chmodded through a link or when they exist,
and a `logs` or `run` that cannot be a directory costs its feature, said once, never the gateway."""

from __future__ import annotations

import stat
from pathlib import Path

from mcp_gateway.paths import Workspace


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_fresh_workspace_gets_private_directories_and_no_problems(tmp_path: Path) -> None:
    workspace = Workspace.from_environment(tmp_path / "home")
    assert workspace.ensure() == ()
    for directory in (workspace.state_dir, workspace.logs_dir, workspace.process_records_dir):
        assert mode(directory) == 0o700


def test_logs_and_run_that_are_regular_files_are_reported_not_raised(tmp_path: Path) -> None:
    workspace = Workspace.from_environment(tmp_path)
    workspace.logs_dir.write_text("not a directory")
    workspace.process_records_dir.write_text("not a directory")

    logs, run = workspace.ensure()

    assert logs.startswith(f"{workspace.logs_dir} is a regular file")
    assert "stderr of servers is not logged" in logs
    assert run.startswith(f"{workspace.process_records_dir} is a regular file")
    assert "not recorded" in run
    assert all("move it away" in problem and "\n" not in problem for problem in (logs, run))
    assert workspace.logs_dir.read_text() == "not a directory"


def test_a_linked_logs_directory_is_refused_and_its_target_keeps_its_mode(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir(mode=0o755)
    outside.chmod(0o755)
    workspace = Workspace.from_environment(tmp_path / "home")
    workspace.state_dir.mkdir()
    workspace.logs_dir.symlink_to(outside)

    (problem,) = workspace.ensure()

    assert problem.startswith(f"{workspace.logs_dir} is a symbolic link")
    assert mode(outside) == 0o755


def test_a_home_the_user_made_keeps_its_mode_and_may_be_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real-home"
    real.mkdir()
    real.chmod(0o755)
    (tmp_path / "home").symlink_to(real)
    workspace = Workspace.from_environment(tmp_path / "home")

    assert workspace.ensure() == ()

    assert mode(real) == 0o755
    assert mode(real / "logs") == 0o700
