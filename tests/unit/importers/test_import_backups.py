"""Backups next to the file, restored byte for byte; a restore never loses the version it replaces."""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from mcp_gateway.importers import backups_of, create_backup, parse_backup, restore

NOW = datetime(2026, 11, 15, 9, 30, 12, tzinfo=UTC)


def test_a_backup_is_an_exact_copy_with_the_files_permissions_and_a_utc_timestamp(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    path.write_bytes(b'{\r\n  "a": 1\r\n}\xef\xbb\xbf')
    os.chmod(path, 0o600)
    backup = create_backup(path, NOW)
    assert backup.name == ".claude.json.mcp-gateway-backup-20261115T093012Z"
    assert backup.read_bytes() == path.read_bytes()
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600


def test_the_stamp_is_utc_whatever_zone_the_callers_clock_gives(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text("{}")
    in_paris = NOW.astimezone(timezone(timedelta(hours=1)))
    assert create_backup(path, in_paris).name == "mcp.json.mcp-gateway-backup-20261115T093012Z"


def test_backups_in_the_same_second_get_a_sequence_and_sort_oldest_first(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text("1")
    first = create_backup(path, NOW)
    path.write_text("2")
    second = create_backup(path, NOW)
    assert second.name.endswith("20261115T093012Z-2")
    assert [b.path for b in backups_of(path)] == [first, second]
    assert backups_of(tmp_path / "other.json") == []


def test_restore_puts_the_exact_bytes_back_and_keeps_the_replaced_version(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    original = b'// comment\n{ "a": 1, }\n'
    path.write_bytes(original)
    backup = parse_backup(create_backup(path, NOW))
    assert backup is not None
    path.write_bytes(b'{"mcpServers": {}}')
    restored = restore(backup, NOW)
    assert path.read_bytes() == original
    assert restored.kept_current is not None
    assert restored.kept_current.read_bytes() == b'{"mcpServers": {}}'
    assert backups_of(path) == [backup]  # the kept version is not a backup --restore would pick


def test_restoring_an_unchanged_file_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text("{}")
    backup = parse_backup(create_backup(path, NOW))
    assert backup is not None
    assert restore(backup, NOW).kept_current is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "a.json.mcp-gateway-backup-20261115T093012Z"]


def test_only_names_import_made_are_backups(tmp_path: Path) -> None:
    assert parse_backup(tmp_path / "a.json.bak") is None
    assert parse_backup(tmp_path / "a.json.mcp-gateway-backup-yesterday") is None
    parsed = parse_backup(tmp_path / "a.json.mcp-gateway-backup-20261115T093012Z-3")
    assert parsed is not None
    assert (parsed.original, parsed.sequence) == (tmp_path / "a.json", 3)


def test_restoring_a_symlinked_config_writes_through_the_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "claude.json"
    real.parent.mkdir()
    real.write_text("original")
    link = tmp_path / ".claude.json"
    link.symlink_to(real)
    backup = parse_backup(create_backup(link, NOW))
    assert backup is not None
    real.write_text("changed")
    restore(backup, NOW)
    assert link.is_symlink()
    assert real.read_text() == "original"
