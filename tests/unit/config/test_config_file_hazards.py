"""A config path holding something that is not a config file: a clear `ConfigError` at once, never a hang."""

from __future__ import annotations

from pathlib import Path

import pytest
from workspace_hazards import bounded, plant_fifo, plant_link, release_fifo

from mcp_gateway.config import load_config
from mcp_gateway.errors import ConfigError

CONFIG_CAP_BYTES = 16 * 1024 * 1024
"""The documented cap (`MAX_CONFIG_BYTES`), written out so the test states the promise rather than echoing it."""


def load_error(config_path: Path) -> str:
    with pytest.raises(ConfigError) as raised:
        bounded(lambda: load_config(config_path, environ={}))
    message = raised.value.message
    assert str(config_path) in message
    assert "\n" not in message
    return message


def test_a_fifo_as_the_config_file_is_refused_at_once(config_path: Path) -> None:
    plant_fifo(config_path)
    try:
        message = load_error(config_path)
    finally:
        release_fifo(config_path)
    assert "is a FIFO, not a regular file" in message
    assert "replace it with a JSON file" in message


def test_a_link_to_dev_zero_as_the_config_file_is_refused_at_once(config_path: Path) -> None:
    config_path.parent.mkdir(parents=True)
    config_path.symlink_to("/dev/zero")
    assert "is a character device, not a regular file" in load_error(config_path)


def test_a_directory_as_the_config_file_is_refused(config_path: Path) -> None:
    config_path.mkdir(parents=True)
    assert "is a directory, not a regular file" in load_error(config_path)


def test_a_config_file_past_the_cap_is_refused_without_reading_it(config_path: Path) -> None:
    config_path.parent.mkdir(parents=True)
    with config_path.open("wb") as file:
        file.truncate(CONFIG_CAP_BYTES + 1)  # sparse: costs no disk
    assert "is larger than 16 MiB" in load_error(config_path)


def test_a_config_file_linked_from_a_dotfiles_repository_is_read_through_the_link(
    config_path: Path, tmp_path: Path
) -> None:
    document = b'{"mcpServers": {"a": {"command": "a"}}}'
    outside = plant_link(config_path, tmp_path / "dotfiles", document, mode=0o644)
    config = load_config(config_path, environ={})
    assert config.server_names() == ["a"]
    outside.assert_untouched()


def test_the_template_is_never_written_through_a_dangling_link(config_path: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "config.json"
    target.parent.mkdir()
    config_path.parent.mkdir(parents=True)
    config_path.symlink_to(target)
    message = load_error(config_path)
    assert not target.exists()
    assert "cannot read the config file" in message
