"""`import` writing the gateway's config.json in a workspace that holds a FIFO or a planted link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from workspace_hazards import bounded, plant_fifo, plant_link, release_fifo

from mcp_gateway.errors import ConfigError
from mcp_gateway.importing.clients import ImportedServer
from mcp_gateway.importing.merge import plan_merge, write_plan

DOCS = ImportedServer("docs", entry={"type": "http", "url": "https://docs.example.com/mcp"})


def test_a_fifo_as_the_gateway_config_is_a_clear_error_not_a_hang(tmp_path: Path) -> None:
    path = plant_fifo(tmp_path / "config.json")
    try:
        with pytest.raises(ConfigError, match="is a FIFO, not a regular file"):
            bounded(lambda: plan_merge(path, [DOCS]))
    finally:
        release_fifo(path)


def test_a_link_planted_as_the_temp_file_is_never_written_through(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    outside = plant_link(tmp_path / f".config.json.{os.getpid()}.tmp", tmp_path / "outside")
    write_plan(plan_merge(path, [DOCS]))
    outside.assert_untouched()
    assert "docs.example.com" in path.read_text()
