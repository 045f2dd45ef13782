"""Project-wide fixtures, and the session-level check that the tests leave no process behind."""

from __future__ import annotations

import compileall
import os
import shutil
import tempfile
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from process_leaks import Leak, RunTimeline, find_leaks, report, start_session

from mcp_gateway.front.rendezvous import RUNTIME_DIR_ENV

ROOT = Path(__file__).resolve().parent.parent
COMPILED = ("mcp_gateway", "fixtures")
"""What the gateways and servers the tests start import from the checkout: compiled once here, as installing
does, since under `PYTHONDONTWRITEBYTECODE` (this project's machines) each of the hundreds of processes a run
starts would compile them again (about 0.3 s a gateway)."""

_marker = pytest.StashKey[str]()
_runtime = pytest.StashKey[Path]()
_timeline = pytest.StashKey[RunTimeline]()
_leaked = pytest.StashKey[list[str]]()
"""What the leak check found, as the lines that say it: this process's, and each xdist worker's."""
LEAKS_KEY = "leaked"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def pytest_sessionstart(session: pytest.Session) -> None:
    # Gateways serve as a user's do, through a shared daemon per workspace; the run's sockets meet in a runtime
    # directory of its own (short, as a socket's path must be), never a user's.
    runtime = Path(tempfile.mkdtemp(prefix="mgw-", dir="/tmp"))
    os.environ[RUNTIME_DIR_ENV] = str(runtime / "mcp-gateway")
    session.config.stash[_runtime] = runtime
    for directory in COMPILED:
        compileall.compile_dir(ROOT / directory, quiet=1)
    session.config.stash[_marker] = start_session()
    session.config.stash[_timeline] = RunTimeline()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    item.config.stash[_timeline].test_started(item.nodeid)
    return (yield)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """An xdist worker ended: what its own leak check found is this run's too."""
    node.config.stash.setdefault(_leaked, []).extend(node.workeroutput.get(LEAKS_KEY, []))


def pytest_sessionfinish(session: pytest.Session) -> None:
    shutil.rmtree(session.config.stash[_runtime], ignore_errors=True)
    marker = session.config.stash[_marker]
    leaks: list[Leak] = find_leaks(marker, session.config.stash[_timeline])
    leaked = session.config.stash.setdefault(_leaked, [])
    if leaks:
        leaked.extend(report(leaks, marker))
    worker_output = getattr(session.config, "workeroutput", None)
    if worker_output is not None:  # an xdist worker: its controller says it and fails the run
        worker_output[LEAKS_KEY] = leaked
    elif leaked:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    leaked = config.stash.get(_leaked, None) or []
    if leaked:
        terminalreporter.section("processes leaked", sep="=", red=True, bold=True)
        for line in leaked:
            terminalreporter.write_line(line)
