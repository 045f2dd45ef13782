"""The per-server renewal lock: one holder at a time, a bounded wait that gives up rather than blocks a call, and
a link planted as the lock file refused, never followed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcp_gateway.masking import SecretMask
from mcp_gateway.sign_in import SignInStore

pytestmark = pytest.mark.anyio

SHORT_WAIT_SECONDS = 0.2
"""A wait that must run out while the other holder keeps the lock."""


async def test_a_second_holder_waits_out_its_bound_while_the_first_holds_the_lock(tmp_path: Path) -> None:
    store = SignInStore(tmp_path / "oauth", SecretMask().learn)
    path = store.lock_path_of("web")
    async with store.renewal_lock("web") as first:
        assert first
        async with store.renewal_lock("web", timeout_s=SHORT_WAIT_SECONDS) as second:
            assert not second
    async with store.renewal_lock("web", timeout_s=SHORT_WAIT_SECONDS) as after:
        assert after  # released on exit
    assert path.name.endswith(".lock")
    assert path.exists()  # never deleted: two holders would lock two inodes


async def test_a_link_planted_as_the_lock_file_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    directory = tmp_path / "oauth"
    directory.mkdir(mode=0o700)
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    target.chmod(0o644)
    store = SignInStore(directory, SecretMask().learn)
    os.symlink(target, store.lock_path_of("web"))
    async with store.renewal_lock("web", timeout_s=SHORT_WAIT_SECONDS) as held:
        assert not held
    assert target.read_text() == "keep"
    assert oct(target.stat().st_mode & 0o777) == oct(0o644)


async def test_an_oauth_directory_that_is_a_link_is_not_locked_in(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "oauth").symlink_to(real)
    store = SignInStore(tmp_path / "oauth", SecretMask().learn)
    async with store.renewal_lock("web", timeout_s=SHORT_WAIT_SECONDS) as held:
        assert not held
    assert list(real.iterdir()) == []
