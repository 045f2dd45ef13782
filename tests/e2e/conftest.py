"""Fixtures of the end-to-end tests."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Generator
from pathlib import Path

import pytest
from e2e_gateway import run_cli
from process_leaks import TEST_RUN_ENV
from shared_daemons import DAEMON_STOP_SECONDS, stop_daemons
from workspaces import everything_server, write_workspace


@pytest.fixture(autouse=True)
def shared_daemons_stopped() -> Generator[None]:
    """Whatever shared daemon a test's sessions left is stopped when it ends, and must stop in time."""
    yield
    stubborn = stop_daemons(os.environ[TEST_RUN_ENV])
    assert not stubborn, f"a shared daemon did not stop within {DAEMON_STOP_SECONDS}s of SIGTERM: {stubborn}"


@pytest.fixture
def runtime_dir() -> Generator[Path]:
    """A runtime directory of the test's own, for its shared daemon (see `workspaces.shared_environment`); a short
    one, as a Unix socket path is at most 104 bytes."""
    directory = Path(tempfile.mkdtemp(prefix="mgw-", dir="/tmp"))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="session")
def everything_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache.json holding server-everything's tools, built once by the real gateway (`refresh`).

    Tests that are not about the first start copy it into their own workspace (see `cached_everything`),
    so each still has its own files while sparing the suite a catalog build per test.
    """
    home = tmp_path_factory.mktemp("everything-cache")
    write_workspace(home, {"everything": everything_server()})
    done = run_cli("refresh", home=home)
    assert done.returncode == 0, done.stderr
    return home / "cache.json"


@pytest.fixture(scope="session")
def uv_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """uv's download cache, kept between runs beside pytest's own temporary directories (private to the user):
    the tests that install the gateway with uv then fetch its dependencies once per machine, not per run."""
    cache = tmp_path_factory.getbasetemp().parent / "uv-cache"
    cache.mkdir(mode=0o700, exist_ok=True)
    return cache
