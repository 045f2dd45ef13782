"""A cold start answers from the handshake the last one made, only while everything it was made from is unchanged."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcp_gateway import __version__
from mcp_gateway.front import remembered_handshake
from mcp_gateway.front.early_answers import Handshake
from mcp_gateway.front.hello import Answer
from mcp_gateway.front.remembered_handshake import MAX_BYTES, remember, remembered, remembered_path, signatures_now

HANDSHAKE = Handshake("Use search_tools first. Servers: alpha.", [{"name": "search_tools", "inputSchema": {}}])
ENVIRON = {"HOME": "/home/ada", "GITHUB_TOKEN": "ghp_example"}


@pytest.fixture
def workspace(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A config, a digest, and where the handshake made from them is kept."""
    config, digest = tmp_path / "config.json", tmp_path / "cache.digest.json"
    config.write_text('{"mcpServers": {}}')
    digest.write_text("{}")
    return config, digest, remembered_path(tmp_path / "run" / "0123456789abcdef0123.sock")


def kept_for(workspace: tuple[Path, Path, Path], environ: dict[str, str] = ENVIRON) -> Path:
    config, digest, kept = workspace
    kept.parent.mkdir(mode=0o700, exist_ok=True)
    sources = signatures_now([config, digest])
    remember(kept, environ, sources, Answer(True, __version__, handshake=HANDSHAKE).encode())
    return kept


def test_what_was_remembered_is_answered_while_nothing_changed(workspace: tuple[Path, Path, Path]) -> None:
    kept = kept_for(workspace)
    assert kept.name == "0123456789abcdef0123.handshake"
    assert kept.stat().st_mode & 0o777 == 0o600
    assert remembered(kept, dict(ENVIRON)) == HANDSHAKE
    assert [path.name for path in kept.parent.iterdir()] == [kept.name]  # no temporary file left


@pytest.mark.parametrize("changed", ["config", "digest"])
def test_an_edited_source_makes_the_handshake_again(workspace: tuple[Path, Path, Path], changed: str) -> None:
    kept = kept_for(workspace)
    config, digest, _ = workspace
    edited = config if changed == "config" else digest
    replacement = edited.with_name("replacement")
    replacement.write_text(edited.read_text())  # the same bytes, as an editor saves them: a new file
    os.replace(replacement, edited)
    assert remembered(kept, ENVIRON) is None


def test_a_source_that_appears_or_goes_makes_the_handshake_again(workspace: tuple[Path, Path, Path]) -> None:
    config, digest, _ = workspace
    digest.unlink()
    kept = kept_for(workspace)
    assert remembered(kept, ENVIRON) == HANDSHAKE
    digest.write_text("{}")
    assert remembered(kept, ENVIRON) is None
    digest.unlink()
    config.unlink()
    assert remembered(kept, ENVIRON) is None


def test_another_environment_makes_the_handshake_again(workspace: tuple[Path, Path, Path]) -> None:
    kept = kept_for(workspace)
    assert remembered(kept, ENVIRON | {"GITHUB_TOKEN": "ghp_other"}) is None  # its secrets are masked in the text
    assert remembered(kept, ENVIRON | {"EXTRA": "1"}) is None


def test_another_version_makes_the_handshake_again(
    workspace: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = kept_for(workspace)
    monkeypatch.setattr(remembered_handshake, "__version__", "0.0.0-other")
    assert remembered(kept, ENVIRON) is None


@pytest.mark.parametrize(
    "content",
    [b"", b"not json\n\n", b'{"mcpGatewayRemembered": []}\n{}\n', b"x" * (MAX_BYTES + 1)],
)
def test_a_damaged_file_makes_the_handshake_again(workspace: tuple[Path, Path, Path], content: bytes) -> None:
    kept = kept_for(workspace)
    kept.write_bytes(content)
    assert remembered(kept, ENVIRON) is None


def test_a_link_planted_where_it_is_kept_is_neither_read_nor_written_through(
    workspace: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    kept = kept_for(workspace)
    planted = tmp_path / "planted"
    planted.write_bytes(kept.read_bytes())
    kept.unlink()
    kept.symlink_to(planted)
    assert remembered(kept, ENVIRON) is None
    before = planted.read_bytes()
    kept_for(workspace)
    assert not kept.is_symlink()
    assert planted.read_bytes() == before
