"""A misspelt or borrowed key anywhere in config.json gets "did you mean", including the keys whose absence
rejects the server (`comand` for `command`), and the error for the missing key names the near one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mcp_gateway.config import GatewayConfig

Load = Callable[..., GatewayConfig]


def texts(config: GatewayConfig) -> list[str]:
    return [f"{d.severity}: {d.json_path}: {d.message} ({d.suggestion})" for d in config.diagnostics]


@pytest.mark.parametrize(
    ("entry", "written", "meant"),
    [
        ({"command": "npx", "arg": ["x"]}, "arg", "args"),
        ({"command": "npx", "argument": ["x"]}, "argument", "args"),
        ({"command": "npx", "arguments": ["x"]}, "arguments", "args"),
        ({"command": "npx", "enviroment": {"A": "b"}}, "enviroment", "env"),
        ({"command": "npx", "environment": {"A": "b"}}, "environment", "env"),
        ({"command": "npx", "evn": {"A": "b"}}, "evn", "env"),
        ({"command": "npx", "workingDirectory": "/tmp"}, "workingDirectory", "cwd"),
        ({"command": "npx", "disable": True}, "disable", "disabled"),
        ({"command": "npx", "idleTimout": 3}, "idleTimout", "idleTimeout"),
        ({"url": "https://mcp.example.com/mcp", "type": "http", "header": {"X-Client": "a"}}, "header", "headers"),
    ],
)
def test_an_unknown_key_that_means_a_missing_field_keeps_the_server_out_with_the_rename(
    load_json: Load, entry: dict[str, Any], written: str, meant: str
) -> None:
    """`arg` for `args` would start a bare `npx` (or `python`) that waits for ever: an error, not a warning."""
    config = load_json({"mcpServers": {"demo": entry, "other": {"command": "npx"}}})

    assert "demo" not in config.servers
    assert "other" in config.servers
    [error] = config.errors
    assert error.json_path == f"mcpServers.demo.{written}"
    assert error.message == (
        f"unknown field '{written}' is probably '{meant}', without which it would not run as meant; "
        "the server is not loaded"
    )
    assert error.suggestion == f"rename '{written}' to '{meant}'"
    assert config.rejected["demo"].startswith(f"unknown field '{written}' is probably '{meant}'")


def test_an_unknown_key_beside_the_field_it_looks_like_is_a_warning_and_the_server_loads(load_json: Load) -> None:
    config = load_json({"mcpServers": {"demo": {"command": "npx", "args": ["x"], "arg": ["y"], "tpye": "stdio"}}})

    assert "demo" in config.servers
    assert config.errors == ()
    said = texts(config)
    assert "warning: mcpServers.demo.arg: unknown field 'arg' is ignored (did you mean 'args'?)" in said
    assert "warning: mcpServers.demo.tpye: unknown field 'tpye' is ignored (did you mean 'type'?)" in said
    assert config.servers["demo"].misspelt == ("'arg' (did you mean 'args'?)", "'tpye' (did you mean 'type'?)")


@pytest.mark.parametrize(
    ("entry", "written", "meant"),
    [
        ({"comand": "npx", "args": ["x"]}, "comand", "command"),
        ({"commnad": "npx"}, "commnad", "command"),
        ({"Comand": "npx"}, "Comand", "command"),
        ({"cmd": "npx"}, "cmd", "command"),
        ({"ulr": "https://mcp.example.com/mcp"}, "ulr", "url"),
        ({"httpUrl": "https://mcp.example.com/mcp"}, "httpUrl", "url"),
    ],
)
def test_a_server_without_command_or_url_is_told_which_key_was_probably_meant(
    load_json: Load, entry: dict[str, Any], written: str, meant: str
) -> None:
    config = load_json({"mcpServers": {"demo": entry}})

    assert "demo" not in config.servers
    reason = config.rejected["demo"]
    assert reason.startswith("the server has neither 'command' nor 'url'"), reason
    assert f"(it has '{written}', which is probably '{meant}')" in reason
    errors = [d for d in config.diagnostics if d.severity == "error"]
    assert [d.suggestion for d in errors] == [f"rename '{written}' to '{meant}'"]
    warnings = texts(config)
    assert f"warning: mcpServers.demo.{written}: unknown field '{written}' is ignored (did you mean '{meant}'?)" in (
        warnings
    )


def test_every_unknown_key_of_a_rejected_server_is_said_in_one_run(load_json: Load) -> None:
    config = load_json({"mcpServers": {"demo": {"comand": "npx", "arg": ["x"], "enviroment": {}}}})

    said = "\n".join(texts(config))
    assert "mcpServers.demo.arg: unknown field 'arg' is ignored (did you mean 'args'?)" in said
    assert "mcpServers.demo.enviroment: unknown field 'enviroment' is ignored (did you mean 'env'?)" in said


def test_a_server_without_command_or_url_and_no_near_key_is_told_what_to_add(load_json: Load) -> None:
    config = load_json({"mcpServers": {"demo": {"args": ["x"], "somethingElse": 1}}})

    errors = [d for d in config.diagnostics if d.severity == "error"]
    assert len(errors) == 1
    assert "(it has" not in errors[0].message
    assert errors[0].suggestion == 'add "command" for a local server, or "url" and "type" for a remote one'


@pytest.mark.parametrize(
    ("entry", "written", "field"),
    [
        ({"type": "stdio", "comand": "npx"}, "comand", "command"),
        ({"type": "http", "ulr": "https://mcp.example.com/mcp"}, "ulr", "url"),
        ({"type": "sse", "endpoint": "https://mcp.example.com/sse"}, "endpoint", "url"),
    ],
)
def test_a_missing_required_field_names_the_key_that_was_probably_meant(
    load_json: Load, entry: dict[str, Any], written: str, field: str
) -> None:
    config = load_json({"mcpServers": {"demo": entry}})

    [error] = [d for d in config.diagnostics if d.severity == "error"]
    assert error.json_path == f"mcpServers.demo.{field}"
    assert f"required field '{field}' is missing (it has '{written}', which is probably '{field}')" in error.message
    assert error.suggestion == f"rename '{written}' to '{field}'"


def test_enabled_false_keeps_the_server_out_and_says_what_disabled_means(load_json: Load) -> None:
    config = load_json({"mcpServers": {"demo": {"command": "npx", "enabled": False}}})

    assert "demo" not in config.servers  # never started: what "enabled": false was written to say
    [error] = config.diagnostics
    assert error.severity == "error"
    assert error.suggestion == 'write "disabled": true to turn the server off'


def test_enabled_true_is_a_warning_since_a_server_is_on_anyway(load_json: Load) -> None:
    config = load_json({"mcpServers": {"demo": {"command": "npx", "enabled": True}}})

    [warning] = config.diagnostics
    assert warning.message == "unknown field 'enabled' is ignored"
    assert warning.suggestion is not None
    assert "a server is on unless" in warning.suggestion
    assert config.servers["demo"].spec.disabled is False


@pytest.mark.parametrize("key", ["mcpServer", "MCPServers", "context_servers", "mcp"])
def test_a_misspelt_or_borrowed_top_level_key_suggests_mcp_servers(load_json: Load, key: str) -> None:
    config = load_json({key: {"demo": {"command": "npx"}}})

    assert not config.servers
    assert f"warning: {key}: unknown field '{key}' is ignored (did you mean 'mcpServers'?)" in texts(config)


def test_servers_is_read_as_mcp_servers_and_a_misspelt_setting_is_suggested(load_json: Load) -> None:
    config = load_json({"servers": {"demo": {"command": "npx"}}, "settings": {"idle_timout": 3, "debg": True}})

    assert "demo" in config.servers
    said = "\n".join(texts(config))
    assert "settings.idle_timout: unknown field 'idle_timout' is ignored (did you mean 'idleTimeout'?)" in said
    assert "settings.debg: unknown field 'debg' is ignored (did you mean 'debug'?)" in said
