"""`mcp-gateway status` when the workspace is not all it should be: it explains, and exits 0 like `serve`
carries on, instead of failing."""

from __future__ import annotations

from pathlib import Path

import pytest
from gateway_testing import write_workspace

from mcp_gateway.catalog import CacheStore
from mcp_gateway.cli.main import main
from mcp_gateway.errors import CatalogError

UNREADABLE = "cannot read the cache: Permission denied"


def test_status_exits_0_and_explains_when_cache_json_cannot_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_workspace(tmp_path, {"a": {"command": "a-server"}})

    def unreadable(store: CacheStore) -> object:
        raise CatalogError(UNREADABLE)  # as root a file cannot be made unreadable, so the store says so

    monkeypatch.setattr(CacheStore, "load", unreadable)
    code = main(["--home", str(tmp_path), "status"])

    out = capsys.readouterr().out
    assert code == 0
    assert f"cache: {UNREADABLE}" in out
    assert "a: missing" in out
