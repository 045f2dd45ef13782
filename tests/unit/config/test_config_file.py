"""The config file as a whole: the template, the only whole-file failures, and top-level keys."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from mcp_gateway.config import Diagnostic, GatewayConfig, Settings, StdioServer, default_config_text, load_config
from mcp_gateway.errors import ConfigError

LoadJson = Callable[..., GatewayConfig]


def at(config: GatewayConfig, json_path: str) -> list[Diagnostic]:
    return [d for d in config.diagnostics if d.json_path == json_path]


def test_missing_file_is_created_from_the_template_with_private_permissions(config_path: Path) -> None:
    config = load_config(config_path, environ={})

    assert config_path.read_text(encoding="utf-8") == default_config_text()
    assert stat.S_IMODE(os.stat(config_path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(config_path.parent).st_mode) == 0o700
    assert config.servers == {}
    assert config.rejected == {}
    assert config.diagnostics == ()
    assert config.settings == Settings()


def test_template_holds_version_every_default_setting_and_no_servers() -> None:
    document = json.loads(default_config_text())

    assert document["version"] == 1
    assert document["mcpServers"] == {}
    assert Settings.model_validate(document["settings"]) == Settings()
    assert document["settings"]["idleTimeout"] == 10  # written as a user would, not 10.0
    assert default_config_text().startswith('{\n  "version": 1,')


def test_existing_file_is_never_overwritten_by_the_template(config_path: Path) -> None:
    config_path.parent.mkdir()
    config_path.write_text('{"mcpServers": {"a": {"command": "a"}}}', encoding="utf-8")

    config = load_config(config_path, environ={})

    assert config.server_names() == ["a"]
    assert "mcpServers" in config_path.read_text(encoding="utf-8")


def test_missing_file_without_create_gives_an_empty_config_and_a_warning(config_path: Path) -> None:
    config = load_config(config_path, environ={}, create_missing=False)

    assert not config_path.exists()
    assert config.servers == {}
    assert [d.severity for d in config.diagnostics] == ["warning"]
    assert "does not exist" in config.diagnostics[0].message


def test_invalid_json_raises_config_error_with_line_and_column(config_path: Path) -> None:
    config_path.parent.mkdir()
    config_path.write_text('{\n  "mcpServers": {\n    "a": {"command": "a",}\n  }\n}\n', encoding="utf-8")

    with pytest.raises(ConfigError) as raised:
        load_config(config_path, environ={})

    message = str(raised.value)
    assert str(config_path) in message
    assert "line 3, column 26" in message
    assert "trailing comma" in message
    assert "\n" not in message


def test_root_that_is_not_an_object_raises_config_error(config_path: Path) -> None:
    config_path.parent.mkdir()
    config_path.write_text('[{"command": "a"}]', encoding="utf-8")

    with pytest.raises(ConfigError, match="top level must be a JSON object"):
        load_config(config_path, environ={})


def test_empty_file_raises_config_error_saying_how_to_fix_it(config_path: Path) -> None:
    config_path.parent.mkdir()
    config_path.write_text("  \n", encoding="utf-8")

    with pytest.raises(ConfigError, match=r"empty.*delete it"):
        load_config(config_path, environ={})


def test_unreadable_file_raises_config_error_naming_the_file(config_path: Path) -> None:
    config_path.parent.mkdir(parents=True)
    config_path.symlink_to(config_path.name)  # a link to itself: open fails however privileged the test runs

    with pytest.raises(ConfigError) as raised:
        load_config(config_path, environ={})

    assert str(raised.value).startswith(f"{config_path}: cannot read the config file")


def test_non_utf8_file_raises_config_error(config_path: Path) -> None:
    config_path.parent.mkdir()
    config_path.write_bytes(b'{"mcpServers": {"\xff": {}}}')

    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(config_path, environ={})


def test_a_byte_order_mark_is_accepted(config_path: Path) -> None:
    config_path.parent.mkdir()
    config_path.write_text('{"mcpServers": {"a": {"command": "a"}}}', encoding="utf-8-sig")

    assert load_config(config_path, environ={}).server_names() == ["a"]


def test_unknown_top_level_key_is_reported_with_a_suggestion_and_ignored(load_json: LoadJson) -> None:
    config = load_json({"mcpServer": {"a": {"command": "a"}}})

    (diagnostic,) = at(config, "mcpServer")
    assert diagnostic.severity == "warning"
    assert diagnostic.message == "unknown field 'mcpServer' is ignored"
    assert diagnostic.suggestion == "did you mean 'mcpServers'?"
    assert config.servers == {}


def test_a_setting_at_the_top_level_is_reported_as_misplaced(load_json: LoadJson) -> None:
    config = load_json({"idleTimeout": 3})

    (diagnostic,) = at(config, "idleTimeout")
    assert diagnostic.suggestion is not None
    assert "move it into 'settings'" in diagnostic.suggestion
    assert config.settings.idle_timeout == Settings().idle_timeout


def test_a_server_at_the_top_level_is_reported_as_misplaced(load_json: LoadJson) -> None:
    config = load_json({"github": {"command": "npx"}})

    (diagnostic,) = at(config, "github")
    assert diagnostic.suggestion is not None
    assert "move it into 'mcpServers'" in diagnostic.suggestion


def test_schema_key_and_version_1_are_accepted_silently(load_json: LoadJson) -> None:
    config = load_json({"$schema": "https://example.com/schema.json", "version": 1, "mcpServers": {}})

    assert config.diagnostics == ()


def test_newer_version_is_an_error_but_the_file_still_loads(load_json: LoadJson) -> None:
    config = load_json({"version": 2, "mcpServers": {"a": {"command": "a"}}})

    (diagnostic,) = at(config, "version")
    assert diagnostic.severity == "error"
    assert "newer" in diagnostic.message
    assert config.server_names() == ["a"]


def test_version_that_is_not_a_number_is_an_error(load_json: LoadJson) -> None:
    config = load_json({"version": "1"})

    (diagnostic,) = at(config, "version")
    assert diagnostic.severity == "error"


def test_a_key_repeated_in_the_file_is_reported(config_path: Path) -> None:
    config_path.parent.mkdir()
    config_path.write_text(
        '{"mcpServers": {"a": {"command": "old"}, "a": {"command": "new", "args": [], "args": ["x"]}}}',
        encoding="utf-8",
    )

    config = load_config(config_path, environ={})

    assert {d.json_path for d in config.diagnostics} == {"mcpServers.a", "mcpServers.a.args"}
    assert all("appears more than once" in d.message for d in config.diagnostics)
    spec = config.servers["a"].spec
    assert isinstance(spec, StdioServer)
    assert spec.command == "new"
    assert spec.args == ("x",)
