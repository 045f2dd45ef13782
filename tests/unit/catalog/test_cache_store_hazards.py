"""cache.json and its lock file when something else sits at their names: a link, a FIFO, a device, a huge
file, a newer gateway's catalog, a temp file left by a killed writer.

A link is never followed (its target keeps its content and mode), nothing blocks, the catalog serves on
(empty, then rebuilt), and a newer gateway's file is left exactly as it is.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

import pytest
from workspace_hazards import bounded, dead_pid, plant_fifo, plant_link, release_fifo

from mcp_gateway.catalog import CacheStore, ServerCatalog, ToolRecord
from mcp_gateway.errors import CatalogError

CACHE_CAP_BYTES = 256 * 1024 * 1024
"""The documented cap on cache.json (`MAX_CACHE_BYTES`)."""
NEWER_CACHE = json.dumps({"version": 2, "servers": {"s": {"anything": "a newer gateway writes"}}}).encode()


def catalog(server: str) -> ServerCatalog:
    return ServerCatalog(server, "fp", 1000.0, (ToolRecord.from_wire({"name": f"{server}_tool"}),))


def a_store(tmp_path: Path) -> CacheStore:
    state = tmp_path / "state"
    state.mkdir(exist_ok=True)
    return CacheStore(state / "cache.json", state / "cache.json.lock", lock_timeout_s=5.0)


def valid_cache(*servers: str) -> bytes:
    entries = {name: {"fingerprint": "fp", "fetchedAt": 1, "tools": [{"name": "t"}]} for name in servers}
    return json.dumps({"version": 1, "servers": entries}).encode()


def set_aside(store: CacheStore, tag: str) -> list[Path]:
    return sorted(store.path.parent.glob(f"cache.json.{tag}-*"))


def test_a_linked_cache_is_never_read_or_chmodded_through_the_link_and_is_set_aside(tmp_path: Path) -> None:
    store = a_store(tmp_path)
    outside = plant_link(store.path, tmp_path / "outside", valid_cache("planted"), mode=0o644)

    assert store.load().servers == {}

    outside.assert_untouched()
    (aside,) = set_aside(store, "link")
    assert aside.is_symlink()  # the link itself was moved; its target stays where it was
    assert not store.path.exists()


def test_a_linked_cache_is_never_written_through(tmp_path: Path) -> None:
    store = a_store(tmp_path)
    outside = plant_link(store.path, tmp_path / "outside", valid_cache("planted"), mode=0o644)

    assert store.save_server(catalog("mine")).servers.keys() == {"mine"}

    outside.assert_untouched()
    assert not store.path.is_symlink()
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600


def test_a_linked_lock_file_is_never_followed_or_chmodded_and_the_write_is_refused_clearly(tmp_path: Path) -> None:
    store = a_store(tmp_path)
    outside = plant_link(store.lock_path, tmp_path / "outside", b"", mode=0o644)

    with pytest.raises(CatalogError) as raised:
        store.save_server(catalog("mine"))

    outside.assert_untouched()
    assert str(store.lock_path) in raised.value.message
    assert "symbolic link" in raised.value.message
    assert not store.path.exists()


def test_a_fifo_as_the_cache_is_set_aside_without_blocking(tmp_path: Path) -> None:
    store = a_store(tmp_path)
    fifo = plant_fifo(store.path)
    try:
        assert bounded(store.load).servers == {}
    finally:
        release_fifo(fifo)
    (aside,) = set_aside(store, "not-a-file")
    assert stat.S_ISFIFO(aside.lstat().st_mode)
    assert bounded(lambda: store.save_server(catalog("mine"))).servers.keys() == {"mine"}


def test_a_link_to_dev_zero_as_the_cache_is_set_aside_without_reading_it(tmp_path: Path) -> None:
    store = a_store(tmp_path)
    store.path.symlink_to("/dev/zero")
    assert bounded(store.load).servers == {}
    assert len(set_aside(store, "link")) == 1


def test_a_cache_past_the_cap_is_set_aside_without_reading_it(tmp_path: Path) -> None:
    store = a_store(tmp_path)
    with store.path.open("wb") as file:
        file.truncate(CACHE_CAP_BYTES + 1)  # sparse: costs no disk
    assert bounded(store.load).servers == {}
    assert len(set_aside(store, "oversize")) == 1


def test_an_unusable_cache_that_cannot_be_set_aside_is_ignored_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    store = a_store(tmp_path)
    fifo = plant_fifo(store.path)

    def refuse(source: object, target: object, **directories: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with caplog.at_level(logging.WARNING):
        try:
            assert bounded(store.load).servers == {}
        finally:
            release_fifo(fifo)
    assert stat.S_ISFIFO(store.path.lstat().st_mode)
    assert any("could not set aside" in record.getMessage() for record in caplog.records)


def test_a_newer_gateways_cache_is_read_only_never_set_aside_or_rewritten(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = a_store(tmp_path)
    store.path.write_bytes(NEWER_CACHE)

    assert store.load().servers == {}
    with caplog.at_level(logging.WARNING), pytest.raises(CatalogError) as raised:
        store.save_server(catalog("mine"))

    assert store.path.read_bytes() == NEWER_CACHE
    assert list(store.path.parent.glob("cache.json.*-*")) == []
    assert "newer mcp-gateway" in raised.value.message
    assert any("newer mcp-gateway" in record.getMessage() for record in caplog.records)


def test_an_older_format_is_still_set_aside_and_rebuilt(tmp_path: Path) -> None:
    store = a_store(tmp_path)
    store.path.write_bytes(json.dumps({"version": 0, "servers": {}}).encode())
    assert store.save_server(catalog("mine")).servers.keys() == {"mine"}
    assert len(set_aside(store, "foreign-v0")) == 1


def test_a_temp_file_left_by_a_killed_writer_is_removed_when_the_cache_is_loaded(tmp_path: Path) -> None:
    store = a_store(tmp_path)
    store.path.write_bytes(valid_cache("a"))
    stale = store.path.parent / f".cache.json.{dead_pid()}.tmp"
    stale.write_bytes(b'{"version":1,"serv')
    writing = store.path.parent / f".cache.json.{os.getppid()}.tmp"  # a live process: maybe mid-write
    writing.write_bytes(b"{")

    assert store.load().servers.keys() == {"a"}

    assert not stale.exists()
    assert writing.exists()


def test_loading_never_changes_the_mode_of_a_file_it_did_not_create(tmp_path: Path) -> None:
    store = a_store(tmp_path)
    store.path.write_bytes(valid_cache("a"))
    store.path.chmod(0o644)
    assert store.load().servers.keys() == {"a"}
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o644
    store.save_server(catalog("b"))  # the next write replaces it with a private file of its own
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
