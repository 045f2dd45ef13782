"""The launch check runs the command an import is about to write, as the client would, and says why it fails.

Real processes: small shell scripts standing in for uvx and for a broken or hanging launcher.
"""

from __future__ import annotations

import sys
from pathlib import Path

import psutil
import pytest

from mcp_gateway.importing.clients import Launch
from mcp_gateway.importing.launch import check_launch

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the stand-in launchers are POSIX shell scripts")

HANG_BOUND_SECONDS = 1.0


def script(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def environ(tmp_path: Path) -> dict[str, str]:
    return {"PATH": f"{tmp_path}:/usr/bin:/bin", "HOME": str(tmp_path)}


def test_a_command_that_answers_as_the_gateway_passes_and_sees_the_entrys_environment(tmp_path: Path) -> None:
    seen = tmp_path / "seen"
    launcher = script(tmp_path, "uvx", f'echo "$@ $MCP_GATEWAY_HOME $HOME" > {seen}; echo "mcp-gateway 0.1.0"')
    launch = Launch("uvx", ("--from", "mcp-meta-gateway", "mcp-gateway"), {"MCP_GATEWAY_HOME": "/ws"})
    assert check_launch(launch, environ(tmp_path)) is None
    assert launcher.exists()
    assert seen.read_text() == f"--from mcp-meta-gateway mcp-gateway --version /ws {tmp_path}\n"


def test_a_command_that_is_not_on_the_path_is_named(tmp_path: Path) -> None:
    problem = check_launch(Launch("uvx", ("mcp-gateway",), {}), environ(tmp_path))
    assert problem is not None
    assert problem.startswith("'uvx' cannot be run (")


def test_a_failing_command_is_quoted_by_its_last_line(tmp_path: Path) -> None:
    missing = "error: mcp-meta-gateway was not found in the registry"
    script(tmp_path, "uvx", f'echo "Resolving…" >&2; echo "{missing}" >&2; exit 2')
    problem = check_launch(Launch("uvx", ("--from", "mcp-meta-gateway", "mcp-gateway"), {}), environ(tmp_path))
    assert problem == f"'uvx --from mcp-meta-gateway mcp-gateway' exited with status 2: {missing}"


def test_a_command_that_starts_something_else_is_refused(tmp_path: Path) -> None:
    script(tmp_path, "mcp-gateway", 'echo "mcp-gateway-js 3.0 (another project)"')
    problem = check_launch(Launch("mcp-gateway", (), {}), environ(tmp_path))
    assert (
        problem
        == "'mcp-gateway' is not this gateway: it answered --version with 'mcp-gateway-js 3.0 (another project)'"
    )


def test_a_hanging_command_is_stopped_with_everything_it_started(tmp_path: Path) -> None:
    child = tmp_path / "child.pid"
    script(tmp_path, "uvx", f"sleep 600 & echo $! > {child}; wait")
    problem = check_launch(Launch("uvx", (), {}), environ(tmp_path), timeout=HANG_BOUND_SECONDS)
    assert problem == f"'uvx' did not answer --version within {HANG_BOUND_SECONDS:g} s"
    assert not running(int(child.read_text()))  # the grandchild went with its session


def running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
