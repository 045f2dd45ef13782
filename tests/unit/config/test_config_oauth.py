"""The `oauth` block of a remote server: how `mcp-gateway login` signs in, validated like the rest of config."""

from __future__ import annotations

from collections.abc import Callable

from mcp_gateway.config import GatewayConfig, HttpServer, SseServer
from mcp_gateway.masking import SecretMask

LoadJson = Callable[..., GatewayConfig]


def test_an_oauth_block_is_read_with_its_secret_expanded_and_masked(load_json: LoadJson) -> None:
    entry = {
        "type": "http",
        "url": "https://corp.example/mcp",
        "oauth": {"clientId": "gw", "clientSecret": "${CORP_SECRET}", "scopes": "read write", "redirectPort": 33418},
    }
    config = load_json({"mcpServers": {"corp": entry}}, {"CORP_SECRET": "s3cret-client-value"})
    spec = config.servers["corp"].spec
    assert isinstance(spec, HttpServer)
    assert spec.oauth is not None
    assert (spec.oauth.client_id, spec.oauth.client_secret) == ("gw", "s3cret-client-value")
    assert spec.oauth.scopes == ("read", "write")
    assert spec.oauth.redirect_port == 33418
    mask = SecretMask.for_servers(config.servers.values(), {})
    assert mask.mask("secret is s3cret-client-value") == "secret is ***"


def test_an_empty_block_marks_an_sse_server_as_signing_in(load_json: LoadJson) -> None:
    config = load_json({"mcpServers": {"s": {"type": "sse", "url": "https://s.example/sse", "oauth": {}}}})
    spec = config.servers["s"].spec
    assert isinstance(spec, SseServer)
    assert spec.oauth is not None
    assert (spec.oauth.client_id, spec.oauth.scopes, spec.oauth.redirect_port) == (None, (), None)


def test_a_bad_oauth_block_rejects_its_server_with_the_field_named(load_json: LoadJson) -> None:
    config = load_json(
        {
            "mcpServers": {
                "secret-only": {"type": "http", "url": "https://a.example/mcp", "oauth": {"clientSecret": "x"}},
                "port": {"type": "http", "url": "https://b.example/mcp", "oauth": {"redirectPort": 70000}},
                "typo": {"type": "http", "url": "https://c.example/mcp", "oauth": {"clientID": "x"}},
                "fine": {"type": "http", "url": "https://d.example/mcp", "oauth": {}},
            }
        }
    )
    assert set(config.servers) == {"fine"}
    assert "'clientSecret' is set without 'clientId'" in config.rejected["secret-only"]
    assert "oauth.redirectPort" in config.rejected["port"]
    assert "oauth.clientID" in config.rejected["typo"]


def test_a_stdio_server_has_no_oauth_block(load_json: LoadJson) -> None:
    config = load_json({"mcpServers": {"local": {"command": "x", "oauth": {}}}})
    assert "local" in config.servers
    assert any("oauth" in str(diagnostic) for diagnostic in config.warnings)
