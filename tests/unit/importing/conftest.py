"""Fixtures for importer tests: a scratch HOME and project, sample client files put where clients keep them.

Nothing here patches a module: tests that reach the sign-in check pass a fake probe (`offline_probe` when
the answer does not matter) and tests that make backups pass `fixed_clock`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from importer_testing import GATEWAY_HOME, OFFLINE, SAMPLES, UVX_PATH, Answers, InstallSample

from mcp_gateway.importing import Where
from mcp_gateway.importing.clients import Launch


@pytest.fixture
def where(tmp_path: Path) -> Where:
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    return Where(home=home, project=project, environ={}, platform="linux")


@pytest.fixture
def offline_probe() -> Answers:
    """A sign-in probe that gets no answer from any server, as when offline."""
    return Answers(default=OFFLINE)


@pytest.fixture
def install_sample() -> InstallSample:
    """Copy `samples/<name>` to `target` (creating its folders); returns `target`."""

    def install(name: str, target: Path) -> Path:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLES / name, target)
        return target

    return install


@pytest.fixture
def launch() -> Launch:
    return Launch(UVX_PATH, ("--from", "mcp-meta-gateway", "mcp-gateway"), {"MCP_GATEWAY_HOME": GATEWAY_HOME})
