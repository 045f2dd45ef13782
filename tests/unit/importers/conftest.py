"""Fixtures for importer tests: a scratch HOME and project, sample client files put where clients keep them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from importer_testing import GATEWAY_HOME, SAMPLES, UVX_PATH, InstallSample

from mcp_gateway.importers import Launch, Where, sign_in

OFFLINE = "no network in unit tests"


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Importer unit tests never reach the sample files' real URLs; the sign-in probe sees no answer.

    The probe itself is tested against a local server (tests/e2e/test_remote_downstreams.py).
    """

    async def no_answer(transport: str, url: str) -> str:
        return OFFLINE

    monkeypatch.setattr(sign_in, "http_status", no_answer)


@pytest.fixture
def where(tmp_path: Path) -> Where:
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    return Where(home=home, project=project, environ={}, platform="linux")


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
