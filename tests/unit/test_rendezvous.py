"""Where a user's fronts and daemon meet: found from the user id, the same whatever environment a client passes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcp_gateway.front.rendezvous import RUNTIME_DIR_ENV, SHARED_TMP, SYSTEM_RUNTIME_ROOT, runtime_dir


def expected_for_this_user() -> Path:
    system = Path(SYSTEM_RUNTIME_ROOT) / str(os.getuid())
    if system.is_dir() and not system.is_symlink() and system.stat().st_uid == os.getuid():
        return system / "mcp-gateway"
    return Path(SHARED_TMP) / f"mcp-gateway-{os.getuid()}"


@pytest.mark.parametrize(
    "environ",
    [
        {},
        {"XDG_RUNTIME_DIR": "/somewhere/else", "TMPDIR": "/var/folders/xy/T"},
        {"TMPDIR": "/tmp/claude-scratch"},
        {RUNTIME_DIR_ENV: "relative/path"},  # not a place anyone can agree on: ignored
    ],
)
def test_every_session_of_a_user_meets_in_one_place_whatever_its_environment(environ: dict[str, str]) -> None:
    assert runtime_dir(environ) == expected_for_this_user()


def test_the_runtime_directory_can_be_named_for_every_client_alike(tmp_path: Path) -> None:
    chosen = tmp_path / "meet-here"
    assert runtime_dir({RUNTIME_DIR_ENV: str(chosen), "XDG_RUNTIME_DIR": "/elsewhere"}) == chosen
