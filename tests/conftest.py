"""Project-wide fixtures, and the session-level check that the tests leave no process behind."""

from __future__ import annotations

import compileall
import os
from collections.abc import Generator
from pathlib import Path

import pytest
from process_leaks import Leak, RunTimeline, find_leaks, report, start_session

from mcp_gateway.front.launch import STANDALONE_ENV

ROOT = Path(__file__).resolve().parent.parent
COMPILED = ("mcp_gateway", "fixtures")
"""What the gateways and servers the tests start import from the checkout: compiled once here, as installing
does, since under `PYTHONDONTWRITEBYTECODE` (this project's machines) each of the hundreds of processes a run
starts would compile them again (about 0.3 s a gateway)."""

_marker = pytest.StashKey[str]()
_timeline = pytest.StashKey[RunTimeline]()
_leaks = pytest.StashKey[list[Leak]]()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def pytest_sessionstart(session: pytest.Session) -> None:
    # Each test's gateway is its own and ends with the test; the shared daemon has its own tests
    # (tests/e2e/test_e2e_daemon.py), which lift this.
    os.environ[STANDALONE_ENV] = "1"
    for directory in COMPILED:
        compileall.compile_dir(ROOT / directory, quiet=1)
    session.config.stash[_marker] = start_session()
    session.config.stash[_timeline] = RunTimeline()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    item.config.stash[_timeline].test_started(item.nodeid)
    return (yield)


def pytest_sessionfinish(session: pytest.Session) -> None:
    leaks = find_leaks(session.config.stash[_marker], session.config.stash[_timeline])
    session.config.stash[_leaks] = leaks
    if leaks:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    leaks = config.stash.get(_leaks, None)
    if leaks:
        terminalreporter.section("processes leaked", sep="=", red=True, bold=True)
        for line in report(leaks, config.stash[_marker]):
            terminalreporter.write_line(line)
