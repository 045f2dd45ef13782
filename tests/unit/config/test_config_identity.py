"""Connection identity: what the cached catalog is keyed by, and what must not change it."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from mcp_gateway.config import GatewayConfig, StdioServer

LoadJson = Callable[..., GatewayConfig]


def identity_of(load_json: LoadJson, entry: object, environ: Mapping[str, str] | None = None) -> Mapping[str, Any]:
    config = load_json({"mcpServers": {"s": entry}}, environ)
    assert config.server_names() == ["s"], config.diagnostics
    return config.servers["s"].identity


def test_stdio_identity_holds_only_connection_fields_with_defaults_filled(load_json: LoadJson) -> None:
    identity = identity_of(load_json, {"command": "npx", "aliases": ["gh"], "lifecycle": "eager"})

    assert identity == {
        "type": "stdio",
        "command": "npx",
        "args": [],
        "env": {},
        "cwd": None,
        "inheritEnv": True,
    }


def test_remote_identity_holds_only_connection_fields_with_defaults_filled(load_json: LoadJson) -> None:
    identity = identity_of(load_json, {"type": "sse", "url": "https://x.example/sse", "description": "d"})

    assert identity == {"type": "sse", "url": "https://x.example/sse", "headers": {}, "bearerTokenEnv": None}


def test_identity_is_plain_json(load_json: LoadJson) -> None:
    identity = identity_of(load_json, {"command": "c", "args": ["a"], "env": {"K": "v"}})

    assert json.loads(json.dumps(identity)) == identity
    assert identity["args"] == ["a"]


def test_type_omitted_and_type_stdio_have_the_same_identity(load_json: LoadJson) -> None:
    assert identity_of(load_json, {"command": "c"}) == identity_of(load_json, {"type": "stdio", "command": "c"})


def test_args_omitted_and_empty_args_have_the_same_identity(load_json: LoadJson) -> None:
    assert identity_of(load_json, {"command": "c"}) == identity_of(load_json, {"command": "c", "args": []})


def test_explicit_defaults_have_the_same_identity_as_omitted_ones(load_json: LoadJson) -> None:
    explicit: dict[str, object] = {"command": "c", "env": {}, "cwd": None, "inheritEnv": True}

    assert identity_of(load_json, explicit) == identity_of(load_json, {"command": "c"})


def test_streamable_http_spellings_have_the_same_identity(load_json: LoadJson) -> None:
    url = "https://x.example/mcp"

    assert identity_of(load_json, {"transport": "streamable-http", "url": url}) == identity_of(
        load_json, {"type": "http", "url": url}
    )


def test_snake_case_keys_have_the_same_identity(load_json: LoadJson) -> None:
    assert identity_of(load_json, {"command": "c", "inherit_env": False}) == identity_of(
        load_json, {"command": "c", "inheritEnv": False}
    )


@pytest.mark.parametrize(
    "extra",
    [
        {"aliases": ["gh", "git"]},
        {"lifecycle": "keep-alive"},
        {"idleTimeout": 1},
        {"connectTimeoutMs": 5, "requestTimeoutMs": 5, "closeTimeoutMs": 5},
        {"disabled": True},
        {"includeTools": ["get_*"], "excludeTools": ["delete_*"]},
        {"refreshOnStartup": True},
        {"protocol": "legacy"},
        {"description": "code hosting"},
    ],
)
def test_identity_is_unaffected_by_gateway_side_metadata(load_json: LoadJson, extra: dict[str, object]) -> None:
    base = {"command": "npx", "args": ["-y", "pkg"], "env": {"T": "${T}"}}

    assert identity_of(load_json, base | extra) == identity_of(load_json, base)


@pytest.mark.parametrize(
    "change",
    [
        {"command": "uvx"},
        {"args": ["-y", "other"]},
        {"env": {"T": "${OTHER}"}},
        {"cwd": "/tmp"},
        {"inheritEnv": False},
    ],
)
def test_identity_changes_with_any_connection_field(load_json: LoadJson, change: dict[str, object]) -> None:
    base = {"command": "npx", "args": ["-y", "pkg"], "env": {"T": "${T}"}}

    assert identity_of(load_json, base | change) != identity_of(load_json, base)


def test_identity_keeps_variables_unexpanded(load_json: LoadJson) -> None:
    entry = {"type": "http", "url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}

    first = identity_of(load_json, entry, {"HOST": "a.example", "TOKEN": "one"})
    rotated = identity_of(load_json, entry, {"HOST": "a.example", "TOKEN": "two"})

    assert first == rotated
    assert first["url"] == "https://${HOST}/mcp"
    assert first["headers"] == {"Authorization": "Bearer ${TOKEN}"}
    assert "one" not in json.dumps(first)


def test_identity_keeps_a_tilde_cwd_unexpanded(load_json: LoadJson) -> None:
    identity = identity_of(load_json, {"command": "c", "cwd": "~/p"}, {"HOME": "/home/u"})

    assert identity["cwd"] == "~/p"


def test_identity_is_a_copy_that_shares_nothing_with_the_spec(load_json: LoadJson) -> None:
    config = load_json({"mcpServers": {"s": {"command": "c", "env": {"K": "v"}}}})

    config.servers["s"].identity["env"]["K"] = "changed"

    spec = config.servers["s"].spec
    assert isinstance(spec, StdioServer)
    assert spec.env == {"K": "v"}
