"""Backups next to the file, restored byte for byte; a restore never loses the version it replaces."""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from mcp_gateway.importing.backups import (
    backups_of,
    create_backup,
    history_of,
    next_step_back,
    original_of,
    parse_backup,
    restore,
)

NOW = datetime(2026, 11, 15, 9, 30, 12, tzinfo=UTC)


def test_a_backup_is_an_exact_copy_readable_by_its_owner_only_with_a_utc_timestamp(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    path.write_bytes(b'{\r\n  "a": 1\r\n}\xef\xbb\xbf')
    for mode, kept in ((0o600, 0o600), (0o644, 0o600), (0o400, 0o400)):
        os.chmod(path, mode)
        backup = create_backup(path, NOW)
        assert backup.name.startswith(".claude.json.mcp-gateway-backup-20261115T093012Z")
        assert backup.read_bytes() == path.read_bytes()
        assert stat.S_IMODE(backup.stat().st_mode) == kept  # a token in a 0644 file is not left 0644 beside it


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
    (walked,) = backups_of(path)  # the kept version is not a backup a step back would pick
    assert (walked.path.name, walked.restored) == ("settings.json.mcp-gateway-restored-20261115T093012Z", True)
    assert restored.marked == (walked.path,)
    assert walked.path.read_bytes() == original


def test_restoring_an_unchanged_file_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text("{}")
    backup = parse_backup(create_backup(path, NOW))
    assert backup is not None
    restored = restore(backup, NOW)
    assert (restored.kept_current, restored.changed) == (None, False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "a.json.mcp-gateway-restored-20261115T093012Z"]


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


def versions(path: Path, *contents: bytes) -> list[Path]:
    """`path` written with each content in turn, a backup taken before each write after the first (one a
    minute, as write-backs would be); returns the backups, oldest first."""
    path.write_bytes(contents[0])
    taken: list[Path] = []
    for minute, content in enumerate(contents[1:]):
        taken.append(create_backup(path, NOW + timedelta(minutes=minute)))
        path.write_bytes(content)
    return taken


def test_each_step_back_goes_one_further_until_the_original(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    first, second = versions(path, b"original", b"after write 1, then edited", b"after write 2")
    step = next_step_back(path)
    assert step is not None
    assert step.path == second
    restore(step, NOW + timedelta(hours=1))
    assert path.read_bytes() == b"after write 1, then edited"
    path.write_bytes(b"after write 1, then edited; rewritten by the client at its start")
    step = next_step_back(path)
    assert step is not None
    assert step.path == first
    restore(step, NOW + timedelta(hours=2))
    assert path.read_bytes() == b"original"
    assert next_step_back(path) is None
    assert [b.restored for b in backups_of(path)] == [True, True]


def test_restoring_the_original_marks_every_newer_backup_restored(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    versions(path, b"original", b"one", b"two", b"three")
    original = original_of(path)
    assert original is not None
    assert original.path.read_bytes() == b"original"
    restored = restore(original, NOW + timedelta(hours=1))
    assert path.read_bytes() == b"original"
    assert len(restored.marked) == 3
    assert next_step_back(path) is None


def test_a_restore_is_undone_by_restoring_the_version_it_kept(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    versions(path, b"original", b"rewritten")
    step = next_step_back(path)
    assert step is not None
    kept = restore(step, NOW + timedelta(hours=1)).kept_current
    assert kept is not None
    undo = parse_backup(kept)
    assert undo is not None
    assert undo.made_by == "restore"
    again = restore(undo, NOW + timedelta(hours=2))
    assert path.read_bytes() == b"rewritten"
    assert again.marked == ()  # undoing a restore moves no pointer
    assert again.kept_current is not None
    assert again.kept_current.read_bytes() == b"original"
    made = [(copy.made_by, copy.restored) for copy in history_of(path)]
    assert made == [("write-back", True), ("restore", False), ("restore", False)]


def test_a_write_back_after_a_walk_back_is_the_next_step(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    (backup,) = versions(path, b"original", b"rewritten")
    parsed = parse_backup(backup)
    assert parsed is not None
    restore(parsed, NOW)
    newer = create_backup(path, NOW)  # the same second as the restored one: it may not take its old name
    assert newer.name == "mcp.json.mcp-gateway-backup-20261115T093012Z-2"
    path.write_bytes(b"rewritten again")
    step = next_step_back(path)
    assert step is not None
    assert step.path == newer


def test_a_newer_backup_identical_to_the_file_is_passed_by(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    first, _ = versions(path, b"original", b"rewritten", b"rewritten")
    step = next_step_back(path)
    assert step is not None
    assert step.path == first


def test_an_entry_update_backup_says_so_and_a_link_at_a_copys_name_is_no_copy(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{}")
    update = parse_backup(create_backup(path, NOW, "entry-update"))
    assert update is not None
    assert (update.path.name, update.made_by) == (
        "settings.json.mcp-gateway-backup-update-20261115T093012Z",
        "entry-update",
    )
    planted = tmp_path / "settings.json.mcp-gateway-backup-20261115T093013Z"
    planted.symlink_to(tmp_path / "elsewhere")
    assert [copy.path for copy in history_of(path)] == [update.path]
    assert parse_backup(tmp_path / "a.json.mcp-gateway-before-restore-update-20261115T093012Z") is None
