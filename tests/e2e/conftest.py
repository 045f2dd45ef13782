"""Fixtures of the end-to-end tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_gateway import everything_server, run_cli
from gateway_testing import write_workspace


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
