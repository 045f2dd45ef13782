import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from mcp_gateway.catalog import MAX_SET_ASIDE_FILES, CacheStore, ServerCatalog, ToolRecord, cache_lock
from mcp_gateway.errors import CatalogError

RICH_TOOL: dict[str, Any] = {
    "name": "create_issue",
    "title": "Create an issue",
    "description": "Opens an issue in a repository. 在仓库中创建问题。",
    "inputSchema": {
        "type": "object",
        "properties": {"repo": {"type": "string"}, "title": {"type": "string", "description": "Issue title"}},
        "required": ["repo", "title"],
    },
    "outputSchema": {"type": "object", "properties": {"url": {"type": "string"}}},
    "annotations": {"destructiveHint": False, "openWorldHint": True},
    "_meta": {"vendor.example/scope": ["repo"]},
    "icons": [{"src": "https://example.com/icon.png", "mimeType": "image/png"}],
    "execution": {"taskSupport": "optional"},
}


def _catalog(server: str, *tools: dict[str, Any], fingerprint: str = "fp", fetched_at: float = 1000.0) -> ServerCatalog:
    return ServerCatalog(
        server=server,
        fingerprint=fingerprint,
        fetched_at=fetched_at,
        tools=tuple(ToolRecord.from_wire(tool) for tool in tools or ({"name": f"{server}_tool"},)),
    )


def _store(tmp_path: Path, *, lock_timeout_s: float = 5.0) -> CacheStore:
    state = tmp_path / "state"
    return CacheStore(state / "cache.json", state / "cache.json.lock", lock_timeout_s=lock_timeout_s)


def _write_raw(store: CacheStore, data: bytes) -> None:
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_bytes(data)


def _valid_entry(tools: list[Any] | None = None) -> dict[str, Any]:
    return {"fingerprint": "fp", "fetchedAt": 1, "tools": tools if tools is not None else [{"name": "t"}]}


def test_round_trip_keeps_every_tool_field_and_server_metadata(tmp_path: Path) -> None:
    store = _store(tmp_path)
    entry = ServerCatalog(
        server="git.hub",
        fingerprint="abc",
        fetched_at=1_700_000_000.25,
        tools=(ToolRecord.from_wire(RICH_TOOL), ToolRecord.from_wire({"name": "bare"})),
        protocol_version="2025-11-25",
        server_name="github-mcp",
        server_version="1.2.3",
        instructions="Use owner/repo form.",
        server_title="GitHub",
        server_description="Issues, pull requests and code on GitHub.",
    )
    store.save_server(entry)

    loaded = _store(tmp_path).load().servers
    assert loaded == {"git.hub": entry}
    assert loaded["git.hub"].tools[0].to_wire() == RICH_TOOL
    on_disk = json.loads(store.path.read_bytes())
    assert on_disk["version"] == 1
    assert on_disk["servers"]["git.hub"]["tools"][0] == RICH_TOOL
    assert on_disk["servers"]["git.hub"]["protocolVersion"] == "2025-11-25"
    assert on_disk["servers"]["git.hub"]["serverDescription"] == "Issues, pull requests and code on GitHub."


def test_file_is_compact_json_with_unicode_unescaped(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save_server(_catalog("s", RICH_TOOL))
    text = store.path.read_text(encoding="utf-8")
    assert "创建问题" in text
    assert ", " not in text.replace("Opens an issue in a repository. ", "")
    assert "\n" not in text


def test_missing_file_loads_as_empty_without_creating_anything(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.load().servers == {}
    assert not store.path.parent.exists()


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"", b"\xff\xfe\x00", b"[1, 2]", b'"text"', b'{"servers": {}}', b'{"version": 1, "servers": []}'],
)
def test_unusable_file_is_set_aside_and_catalog_starts_empty(tmp_path: Path, content: bytes) -> None:
    store = _store(tmp_path)
    _write_raw(store, content)

    view = store.load()

    assert view.servers == {}
    assert not store.path.exists()
    assert view.signature is None
    assert not store.changed_since(view.signature)
    (aside,) = store.path.parent.glob("cache.json.corrupt-*")
    assert aside.read_bytes() == content
    store.save_server(_catalog("fresh"))
    assert set(_store(tmp_path).load().servers) == {"fresh"}


def test_only_the_newest_set_aside_files_are_kept(tmp_path: Path) -> None:
    store = _store(tmp_path)
    for _ in range(MAX_SET_ASIDE_FILES + 3):
        _write_raw(store, b"garbage")
        store.load()
    assert len(list(store.path.parent.glob("cache.json.corrupt-*"))) == MAX_SET_ASIDE_FILES


def test_malformed_server_entries_are_dropped_while_others_survive(tmp_path: Path) -> None:
    store = _store(tmp_path)
    servers: dict[str, Any] = {
        "good": _valid_entry([RICH_TOOL]),
        "fingerprint_not_string": {**_valid_entry(), "fingerprint": 5},
        "fetched_at_string": {**_valid_entry(), "fetchedAt": "yesterday"},
        "tool_without_name": _valid_entry([{"description": "anonymous"}]),
        "tool_not_object": _valid_entry(["t"]),
        "tools_missing": {"fingerprint": "fp", "fetchedAt": 1},
        "entry_not_object": [],
    }
    _write_raw(store, json.dumps({"version": 1, "servers": servers}).encode())

    loaded = store.load().servers

    assert loaded.keys() == {"good"}
    assert loaded["good"].tools[0].to_wire() == RICH_TOOL
    assert store.path.exists()
    store.save_server(_catalog("other"))
    assert json.loads(store.path.read_bytes())["servers"].keys() == {"good", "other"}


def test_two_stores_on_one_file_merge_instead_of_overwriting(tmp_path: Path) -> None:
    first, second = _store(tmp_path), _store(tmp_path)
    first.save_server(_catalog("alpha"))
    assert second.load().servers.keys() == {"alpha"}

    first.save_server(_catalog("beta"))
    merged = second.save_server(_catalog("gamma")).servers

    assert merged.keys() == {"alpha", "beta", "gamma"}
    assert _store(tmp_path).load().servers.keys() == {"alpha", "beta", "gamma"}


def test_saving_a_server_replaces_only_its_own_entry(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save_many([_catalog("a", fingerprint="old"), _catalog("b", fingerprint="old")])
    merged = store.save_server(_catalog("a", fingerprint="new")).servers
    assert merged["a"].fingerprint == "new"
    assert merged["b"].fingerprint == "old"


def test_remove_servers_and_prune_drop_entries_and_keep_the_rest(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save_many([_catalog(name) for name in ("a", "b", "c", "d")])
    assert store.remove_servers(["a", "unknown"]).servers.keys() == {"b", "c", "d"}
    assert store.prune({"b", "c", "not-cached"}).servers.keys() == {"b", "c"}
    assert _store(tmp_path).load().servers.keys() == {"b", "c"}


def test_a_write_that_changes_nothing_leaves_the_file_untouched(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save_server(_catalog("a"))
    before = store.signature()
    store.remove_servers(["absent"])
    store.prune({"a"})
    assert store.signature() == before


def test_file_is_private_in_a_private_directory(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save_server(_catalog("a"))
    assert store.path.stat().st_mode & 0o777 == 0o600
    assert store.lock_path.stat().st_mode & 0o777 == 0o600
    assert store.path.parent.stat().st_mode & 0o777 == 0o700


def test_changed_since_notices_another_writer_and_not_its_own_writes(tmp_path: Path) -> None:
    mine, other = _store(tmp_path), _store(tmp_path)
    assert mine.signature() is None
    assert not mine.changed_since(None)
    seen = mine.load().signature
    assert not mine.changed_since(seen)

    other.save_server(_catalog("a"))
    assert mine.changed_since(seen)
    seen = mine.load().signature
    assert not mine.changed_since(seen)

    seen = mine.save_server(_catalog("b")).signature
    assert not mine.changed_since(seen)
    other.save_server(_catalog("a", fingerprint="changed"))
    assert mine.changed_since(seen)


@pytest.mark.parametrize("failing", ["replace", "fsync"])
def test_failed_write_keeps_the_old_file_and_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    store = _store(tmp_path)
    store.save_server(_catalog("a"))
    before = store.path.read_bytes()

    def fail(*args: object, **keywords: object) -> None:
        raise OSError(errno.EIO, "injected I/O error")

    monkeypatch.setattr(os, failing, fail)
    with pytest.raises(CatalogError, match="cannot write"):
        store.save_server(_catalog("b"))
    monkeypatch.undo()

    assert store.path.read_bytes() == before
    assert sorted(p.name for p in store.path.parent.iterdir()) == ["cache-digest.json", "cache.json", "cache.json.lock"]


def test_temp_file_left_by_a_crashed_writer_is_removed_by_the_next_write(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save_server(_catalog("a"))
    stale = store.path.parent / ".cache.json.424242.tmp"
    stale.write_bytes(b'{"version":1,"serv')
    store.save_server(_catalog("b"))
    assert not stale.exists()


def test_write_waits_for_the_lock_and_times_out_with_catalog_error(tmp_path: Path) -> None:
    store = _store(tmp_path, lock_timeout_s=0.05)
    store.save_server(_catalog("a"))
    with cache_lock(store.lock_path), pytest.raises(CatalogError) as raised:
        store.save_server(_catalog("b"))
    assert str(store.lock_path) in str(raised.value)
    assert store.load().servers.keys() == {"a"}


def test_unreadable_file_raises_catalog_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(tmp_path)
    store.save_server(_catalog("a"))

    def refuse(path: Path, max_bytes: int) -> bytes:
        raise PermissionError(errno.EACCES, "Permission denied")  # the tests may run as root, who reads anything

    monkeypatch.setattr("mcp_gateway.catalog.store.read_regular", refuse)
    with pytest.raises(CatalogError, match="cannot read"):
        store.load()


def test_uncreatable_directory_raises_catalog_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    store = CacheStore(blocker / "state" / "cache.json", blocker / "state" / "cache.json.lock")
    with pytest.raises(CatalogError, match="cannot create"):
        store.save_server(_catalog("a"))
