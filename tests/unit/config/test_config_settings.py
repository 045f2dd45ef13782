"""`settings`: defaults, both key spellings, per-setting fallback, unknown fields, the legacy migration."""

from __future__ import annotations

from collections.abc import Callable

from mcp_gateway.config import Diagnostic, GatewayConfig, Settings

LoadJson = Callable[..., GatewayConfig]


def at(config: GatewayConfig, json_path: str) -> list[Diagnostic]:
    return [d for d in config.diagnostics if d.json_path == json_path]


def test_missing_settings_take_the_defaults(load_json: LoadJson) -> None:
    config = load_json({"mcpServers": {}})

    assert config.settings == Settings()
    assert config.diagnostics == ()


def test_snake_and_camel_setting_keys_give_the_same_settings(load_json: LoadJson) -> None:
    camel = load_json({"settings": {"idleTimeout": 3, "cacheTtlDays": 0, "toolSearchLimit": 5, "debug": True}})
    snake = load_json({"settings": {"idle_timeout": 3, "cache_ttl_days": 0, "tool_search_limit": 5, "debug": True}})

    assert camel.settings == snake.settings
    assert snake.settings.idle_timeout == 3
    assert snake.settings.tool_search_limit == 5
    assert snake.diagnostics == ()


def test_bad_setting_value_falls_back_to_its_default_and_the_rest_still_apply(load_json: LoadJson) -> None:
    config = load_json({"settings": {"idleTimeout": "ten", "toolSearchLimit": 5, "debug": True}})

    assert config.settings.idle_timeout == Settings().idle_timeout
    assert config.settings.tool_search_limit == 5
    assert config.settings.debug is True
    (diagnostic,) = config.diagnostics
    assert diagnostic.severity == "error"
    assert diagnostic.json_path == "settings.idleTimeout"
    assert diagnostic.message == "'idleTimeout' must be a number, not a string; the default 10 is used"
    assert diagnostic.suggestion == "expected a number of minutes (0 or less: never stop it), e.g. 10"


def test_out_of_range_setting_is_reported_in_plain_words_at_the_key_as_written(load_json: LoadJson) -> None:
    config = load_json({"settings": {"tool_search_limit": 50, "cacheTtlDays": -1}})

    (limit,) = at(config, "settings.tool_search_limit")
    assert limit.message == "'tool_search_limit' must be at most 20; the default 10 is used"
    (ttl,) = at(config, "settings.cacheTtlDays")
    assert ttl.message.startswith("'cacheTtlDays' must be at least 0")
    assert config.settings == Settings()


def test_unknown_setting_is_reported_with_a_suggestion_and_ignored(load_json: LoadJson) -> None:
    config = load_json({"settings": {"idleTimout": 3}})

    (diagnostic,) = config.diagnostics
    assert diagnostic.severity == "warning"
    assert diagnostic.json_path == "settings.idleTimout"
    assert diagnostic.message == "unknown field 'idleTimout' is ignored"
    assert diagnostic.suggestion == "did you mean 'idleTimeout'?"
    assert config.settings == Settings()


def test_settings_that_is_not_an_object_is_an_error_and_the_defaults_apply(load_json: LoadJson) -> None:
    config = load_json({"settings": [1], "mcpServers": {"a": {"command": "a"}}})

    (diagnostic,) = at(config, "settings")
    assert diagnostic.severity == "error"
    assert config.settings == Settings()
    assert config.server_names() == ["a"]


def test_both_spellings_of_one_setting_keep_the_camel_case_one_with_a_warning(load_json: LoadJson) -> None:
    config = load_json({"settings": {"idle_timeout": 1, "idleTimeout": 2}})

    assert config.settings.idle_timeout == 2
    (diagnostic,) = config.diagnostics
    assert diagnostic.json_path == "settings.idle_timeout"
    assert "ignored" in diagnostic.message


def test_legacy_metadata_bootstrap_off_migrates_to_startup_metadata_check_false(load_json: LoadJson) -> None:
    config = load_json({"settings": {"metadataBootstrap": "off"}})

    assert config.settings.startup_metadata_check is False
    (diagnostic,) = config.diagnostics
    assert diagnostic.severity == "warning"
    assert diagnostic.json_path == "settings.metadataBootstrap"
    assert "migrated" in diagnostic.message
    assert diagnostic.suggestion == 'write "startupMetadataCheck": false instead'


def test_legacy_metadata_bootstrap_background_migrates_to_true(load_json: LoadJson) -> None:
    config = load_json({"settings": {"metadata_bootstrap": "background", "debug": True}})

    assert config.settings.startup_metadata_check is True
    assert config.settings.debug is True
    (diagnostic,) = config.diagnostics
    assert diagnostic.json_path == "settings.metadata_bootstrap"
    assert diagnostic.suggestion == 'write "startupMetadataCheck": true instead'


def test_startup_metadata_check_wins_over_legacy_metadata_bootstrap(load_json: LoadJson) -> None:
    config = load_json({"settings": {"metadataBootstrap": "background", "startupMetadataCheck": False}})

    assert config.settings.startup_metadata_check is False
    (diagnostic,) = config.diagnostics
    assert diagnostic.severity == "warning"
    assert "ignored" in diagnostic.message


def test_unknown_legacy_metadata_bootstrap_value_is_an_error_and_ignored(load_json: LoadJson) -> None:
    config = load_json({"settings": {"metadataBootstrap": "sometimes"}})

    assert config.settings.startup_metadata_check is Settings().startup_metadata_check
    (diagnostic,) = config.diagnostics
    assert diagnostic.severity == "error"
    assert diagnostic.suggestion == 'write "startupMetadataCheck": true or false instead'
