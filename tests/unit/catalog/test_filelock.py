import multiprocessing
import time
from multiprocessing.synchronize import Event
from pathlib import Path

import pytest

from mcp_gateway.catalog.filelock import FileLock
from mcp_gateway.errors import CatalogError

SHORT_TIMEOUT_S = 0.05
WAIT_BOUND_S = 10.0


def _hold_lock_forever(lock_path: str, holding: Event) -> None:
    with FileLock(Path(lock_path)):
        holding.set()
        time.sleep(WAIT_BOUND_S * 6)


def test_second_holder_times_out_with_catalog_error_naming_the_lock_file(tmp_path: Path) -> None:
    path = tmp_path / "cache.json.lock"
    with FileLock(path), pytest.raises(CatalogError) as raised:
        FileLock(path, timeout_s=SHORT_TIMEOUT_S).acquire()
    assert str(path) in str(raised.value)


def test_lock_is_free_again_after_the_holder_leaves_even_on_error(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    lock = FileLock(path)
    with pytest.raises(ValueError, match="boom"), lock:
        raise ValueError("boom")
    assert not lock.held
    with FileLock(path, timeout_s=SHORT_TIMEOUT_S) as other:
        assert other.held


def test_lock_file_is_created_private_and_existing_one_is_made_private(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.lock"
    with FileLock(fresh):
        pass
    assert fresh.stat().st_mode & 0o777 == 0o600
    loose = tmp_path / "loose.lock"
    loose.touch()
    loose.chmod(0o644)
    with FileLock(loose):
        pass
    assert loose.stat().st_mode & 0o777 == 0o600


def test_lock_is_not_reentrant_on_one_object(tmp_path: Path) -> None:
    with FileLock(tmp_path / "lock") as lock, pytest.raises(RuntimeError, match="not reentrant"):
        lock.acquire()


def test_missing_lock_directory_raises_catalog_error(tmp_path: Path) -> None:
    path = tmp_path / "absent" / "lock"
    with pytest.raises(CatalogError, match="cannot open lock file"):
        FileLock(path).acquire()


def test_lock_held_by_a_killed_process_is_released(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    context = multiprocessing.get_context("spawn")
    holding = context.Event()
    holder = context.Process(target=_hold_lock_forever, args=(str(path), holding))
    holder.start()
    try:
        assert holding.wait(WAIT_BOUND_S)
        with pytest.raises(CatalogError):
            FileLock(path, timeout_s=SHORT_TIMEOUT_S).acquire()
        holder.kill()
        holder.join(WAIT_BOUND_S)
        with FileLock(path, timeout_s=WAIT_BOUND_S) as lock:
            assert lock.held
    finally:
        if holder.is_alive():
            holder.kill()
            holder.join(WAIT_BOUND_S)
