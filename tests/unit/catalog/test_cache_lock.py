"""The cross-process cache lock: exclusive, bounded, released by a holder's death, and never through a link."""

import multiprocessing
import stat
import time
from multiprocessing.synchronize import Event
from pathlib import Path

import pytest
from workspace_hazards import plant_link

from mcp_gateway.catalog import cache_lock
from mcp_gateway.errors import CatalogError

SHORT_TIMEOUT_S = 0.05
WAIT_BOUND_S = 10.0


def _hold_lock_forever(lock_path: str, holding: Event) -> None:
    with cache_lock(Path(lock_path)):
        holding.set()
        time.sleep(WAIT_BOUND_S * 6)


def test_a_second_holder_times_out_with_catalog_error_naming_the_lock_file(tmp_path: Path) -> None:
    path = tmp_path / "cache.json.lock"
    with cache_lock(path), pytest.raises(CatalogError) as raised, cache_lock(path, timeout_s=SHORT_TIMEOUT_S):
        pass
    assert str(path) in raised.value.message
    assert "within 0.05 s" in raised.value.message


def test_the_lock_is_free_again_after_the_holder_leaves_even_on_error(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    with pytest.raises(ValueError, match="boom"), cache_lock(path):
        raise ValueError("boom")
    with cache_lock(path, timeout_s=SHORT_TIMEOUT_S):
        pass


def test_a_new_lock_file_is_private_and_stays_after_release(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    with cache_lock(path):
        pass
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lock"]  # no soft-lock marker, nothing else


def test_an_existing_lock_file_keeps_its_mode_and_content(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    path.write_bytes(b"someone's notes")
    path.chmod(0o644)
    with cache_lock(path):
        pass
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert path.read_bytes() == b"someone's notes"


def test_a_linked_lock_file_is_refused_and_its_target_never_touched(tmp_path: Path) -> None:
    path = tmp_path / "ws" / "cache.json.lock"
    outside = plant_link(path, tmp_path / "outside", b"", mode=0o644)
    with pytest.raises(CatalogError, match="symbolic link") as raised, cache_lock(path):
        pass
    assert str(path) in raised.value.message
    outside.assert_untouched()


def test_a_lock_held_by_a_killed_process_is_released(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    context = multiprocessing.get_context("spawn")
    holding = context.Event()
    holder = context.Process(target=_hold_lock_forever, args=(str(path), holding))
    holder.start()
    try:
        assert holding.wait(WAIT_BOUND_S)
        with pytest.raises(CatalogError), cache_lock(path, timeout_s=SHORT_TIMEOUT_S):
            pass
        holder.kill()
        holder.join(WAIT_BOUND_S)
        with cache_lock(path, timeout_s=WAIT_BOUND_S):
            pass
    finally:
        if holder.is_alive():
            holder.kill()
            holder.join(WAIT_BOUND_S)
