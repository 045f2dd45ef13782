"""`enable`/`disable`: one server's "disabled" edited in config.json, every other byte kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_gateway.config import load_config
from mcp_gateway.errors import ConfigError, UsageError
from mcp_gateway.service.switching import set_disabled

HAND_WRITTEN = """{
  "version": 1,
  "settings": {"idleTimeout": 5},
  "mcpServers": {
    "github": {"command": "gh-server", "aliases": ["gh"]},
    "slack": {
      "command": "slack-server",
      "disabled": false
    }
  }
}
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.json"
    path.write_text(HAND_WRITTEN)
    return path


def test_disable_adds_the_flag_to_the_entry_and_keeps_every_other_line(config: Path) -> None:
    switched = set_disabled(config, "github", disabled=True)

    assert (switched.server, switched.disabled, switched.changed) == ("github", True, True)
    after = config.read_text()
    assert after == HAND_WRITTEN.replace('"aliases": ["gh"]}', '"aliases": ["gh"], "disabled": true}')
    assert load_config(config).servers["github"].spec.disabled
    assert config.stat().st_mode & 0o777 == 0o600


def test_disable_replaces_a_written_false_in_place_and_enable_removes_it(config: Path) -> None:
    set_disabled(config, "slack", disabled=True)
    assert '"disabled": true\n    }' in config.read_text()

    switched = set_disabled(config, "slack", disabled=False)

    assert switched.changed
    assert "disabled" not in json.loads(config.read_text())["mcpServers"]["slack"]
    assert not load_config(config).servers["slack"].spec.disabled


def test_a_server_already_so_is_left_alone_and_nothing_is_written(config: Path) -> None:
    before = config.stat().st_mtime_ns

    switched = set_disabled(config, "github", disabled=False)

    assert not switched.changed
    assert config.read_text() == HAND_WRITTEN
    assert config.stat().st_mtime_ns == before


def test_an_alias_names_its_server(config: Path) -> None:
    assert set_disabled(config, "gh", disabled=True).server == "github"


def test_an_unknown_server_is_a_usage_error_suggesting_the_closest_one(config: Path) -> None:
    with pytest.raises(UsageError) as raised:
        set_disabled(config, "gihtub", disabled=True)

    assert "no server named 'gihtub'" in raised.value.message
    assert "did you mean 'github'?" in raised.value.message
    assert config.read_text() == HAND_WRITTEN


def test_a_file_that_is_not_json_is_not_touched(config: Path) -> None:
    config.write_text('{"mcpServers": {"github": ')

    with pytest.raises(ConfigError) as raised:
        set_disabled(config, "github", disabled=True)

    assert "not valid JSON" in raised.value.message
    assert config.read_text() == '{"mcpServers": {"github": '
