"""The config diff a live reload applies: which servers start, stop, restart or are only re-read."""

from __future__ import annotations

from collections.abc import Callable

from mcp_gateway.config import ConfigChanges, GatewayConfig, config_changes, resolved_definition, server_changes

LoadJson = Callable[..., GatewayConfig]


def diff(load_json: LoadJson, before: object, after: object, environ: dict[str, str] | None = None) -> ConfigChanges:
    old = load_json(before, environ)
    new = load_json(after, environ)
    assert not old.errors, old.diagnostics
    assert not new.errors, new.diagnostics
    return config_changes(old, new)


def test_the_same_file_changes_nothing(load_json: LoadJson) -> None:
    document = {"mcpServers": {"a": {"command": "a-server", "args": ["--x"]}}, "settings": {"idleTimeout": 5}}

    changes = diff(load_json, document, document)

    assert changes == ConfigChanges()
    assert changes.empty
    assert changes.summary() == "nothing that affects the servers"


def test_added_removed_changed_and_updated_servers_are_told_apart(load_json: LoadJson) -> None:
    before = {
        "mcpServers": {
            "kept": {"command": "kept-server"},
            "gone": {"command": "gone-server"},
            "moved": {"command": "moved-server", "args": ["--port", "1"]},
            "renamed": {"command": "renamed-server", "aliases": ["r"]},
        }
    }
    after = {
        "mcpServers": {
            "kept": {"command": "kept-server"},
            "moved": {"command": "moved-server", "args": ["--port", "2"]},
            "renamed": {"command": "renamed-server", "aliases": ["r2"], "excludeTools": ["drop"]},
            "new": {"type": "http", "url": "https://example.test/mcp"},
        }
    }

    changes = diff(load_json, before, after)

    assert changes.added == ("new",)
    assert changes.removed == ("gone",)
    assert changes.changed == ("moved",)
    assert changes.updated == ("renamed",)
    assert changes.settings == ()
    assert changes.summary() == ("added: new; removed: gone; restarted on their next call: moved; updated: renamed")


def test_disabling_removes_and_enabling_adds(load_json: LoadJson) -> None:
    on = {"mcpServers": {"a": {"command": "a-server"}, "b": {"command": "b-server", "disabled": True}}}
    off = {"mcpServers": {"a": {"command": "a-server", "disabled": True}, "b": {"command": "b-server"}}}

    changes = diff(load_json, on, off)

    assert changes.removed == ("a",)
    assert changes.added == ("b",)
    assert changes.changed == changes.updated == ()


def test_a_disabled_server_edited_is_no_change(load_json: LoadJson) -> None:
    before = {"mcpServers": {"a": {"command": "a-server", "disabled": True}}}
    after = {"mcpServers": {"a": {"command": "other-server", "disabled": True}}}

    assert diff(load_json, before, after).empty


def test_an_expanded_value_that_differs_is_a_changed_definition(load_json: LoadJson) -> None:
    """The resolved definition is what the process gets: the same `${TOKEN}` with another value differs."""
    document = {"mcpServers": {"a": {"command": "a-server", "env": {"TOKEN": "${TOKEN}"}}}}
    old = load_json(document, {"TOKEN": "first-token-value"})
    new = load_json(document, {"TOKEN": "second-token-value"})

    changes = server_changes(old.servers, new.servers)

    assert changes.changed == ("a",)
    assert resolved_definition(new.servers["a"])["env"] == {"TOKEN": "second-token-value"}


def test_gateway_side_fields_never_restart_a_server(load_json: LoadJson) -> None:
    before = {"mcpServers": {"a": {"command": "a-server"}}}
    after = {
        "mcpServers": {
            "a": {
                "command": "a-server",
                "aliases": ["alpha"],
                "includeTools": ["x"],
                "lifecycle": "keep-alive",
                "idleTimeout": 3,
                "requestTimeoutMs": 5000,
                "description": "the a server",
            }
        }
    }

    changes = diff(load_json, before, after)

    assert changes.updated == ("a",)
    assert changes.changed == ()


def test_settings_that_differ_are_named_as_in_the_file(load_json: LoadJson) -> None:
    before = {"settings": {"idleTimeout": 5, "toolSearchLimit": 5}}
    after = {"settings": {"idleTimeout": 6, "toolSearchLimit": 5, "requestTimeoutMs": 1000}}

    changes = diff(load_json, before, after)

    assert changes.settings == ("idleTimeout", "requestTimeoutMs")
    assert not changes.empty
    assert changes.summary() == "settings: idleTimeout, requestTimeoutMs"
