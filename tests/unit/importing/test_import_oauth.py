"""A client's own OAuth block imported as the gateway's `oauth`: each client's spelling, "no OAuth" spelt as
`false` or `enabled: false`, a literal client secret written as a `${VAR}` reference instead, and a block the
gateway cannot use skipped with the reason (the server stays in its client)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from importer_testing import Answers

from mcp_gateway.importing import Where
from mcp_gateway.importing.clients import ClientReading, find_client
from mcp_gateway.importing.clients.entries import read_oauth
from mcp_gateway.importing.clients.model import Skip
from mcp_gateway.importing.clients.variables import needed_variables
from mcp_gateway.importing.sign_in import needs_login, screen_sign_ins

SECRET = "literal-client-secret-4f1c9a2b7e"


def read_json(client: str, path: Path, document: object, where: Where) -> ClientReading:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document))
    found = find_client(client)
    assert found is not None
    return found.read(path, "user", where)


def by_name(reading: ClientReading) -> dict[str, tuple[dict[str, object] | None, str | None, tuple[str, ...]]]:
    return {server.name: (server.entry, server.skipped, server.warnings) for server in reading.servers}


def test_gemini_maps_its_oauth_fields_translates_dollar_references_and_honours_enabled_false(where: Where) -> None:
    servers = {
        "linear": {
            "httpUrl": "https://mcp.linear.app/mcp",
            "oauth": {
                "enabled": True,
                "clientId": "$LINEAR_CLIENT_ID",
                "clientSecret": "${LINEAR_CLIENT_SECRET}",
                "scopes": ["read", "write"],
                "redirectUri": "http://localhost:7777/oauth/callback",
                "authorizationUrl": "https://linear.app/oauth/authorize",
            },
        },
        "plain": {"url": "https://plain.example/mcp", "oauth": {"enabled": False, "clientId": "x"}},
    }
    reading = read_json("gemini", where.home / ".gemini" / "settings.json", {"mcpServers": servers}, where)
    found = by_name(reading)
    assert found["linear"][0] == {
        "type": "http",
        "url": "https://mcp.linear.app/mcp",
        "oauth": {
            "clientId": "${LINEAR_CLIENT_ID}",
            "clientSecret": "${LINEAR_CLIENT_SECRET}",
            "scopes": ["read", "write"],
            "redirectPort": 7777,
        },
    }
    assert needs_login(found["linear"][0])
    assert any("signs in with OAuth in Gemini CLI" in note for note in found["linear"][2])
    assert found["plain"][0] == {"type": "http", "url": "https://plain.example/mcp"}
    assert not needs_login(found["plain"][0])
    assert needed_variables(reading) == ["LINEAR_CLIENT_ID", "LINEAR_CLIENT_SECRET"]


def test_a_literal_client_secret_becomes_a_reference_named_after_the_server(where: Where) -> None:
    servers = {"my-api": {"url": "https://api.example/mcp", "oauth": {"client_id": "zed-app", "client_secret": SECRET}}}
    reading = read_json("zed", where.home / ".config" / "zed" / "settings.json", {"context_servers": servers}, where)
    entry, skipped, warnings = by_name(reading)["my-api"]
    assert skipped is None
    assert entry == {
        "type": "http",
        "url": "https://api.example/mcp",
        "oauth": {"clientId": "zed-app", "clientSecret": "${MY_API_OAUTH_CLIENT_SECRET}"},
    }
    assert SECRET not in json.dumps(entry)
    assert any("set MY_API_OAUTH_CLIENT_SECRET to that secret" in note for note in warnings)
    assert all(SECRET not in note for note in warnings)
    assert needed_variables(reading) == ["MY_API_OAUTH_CLIENT_SECRET"]


def test_cursor_reads_its_static_auth_block(where: Where) -> None:
    servers = {"docs": {"url": "https://docs.example/mcp", "auth": {"CLIENT_ID": "cursor-app", "scopes": "a b"}}}
    reading = read_json("cursor", where.home / ".cursor" / "mcp.json", {"mcpServers": servers}, where)
    entry, _, _ = by_name(reading)["docs"]
    assert entry == {
        "type": "http",
        "url": "https://docs.example/mcp",
        "oauth": {"clientId": "cursor-app", "scopes": ["a", "b"]},
    }


def test_a_windsurf_entry_with_oauth_true_are_imported_for_dynamic_registration(where: Where) -> None:
    servers = {"remote": {"serverUrl": "https://r.example/mcp", "oauth": True}}
    reading = read_json(
        "windsurf", where.home / ".codeium" / "windsurf" / "mcp_config.json", {"mcpServers": servers}, where
    )
    assert by_name(reading)["remote"][0] == {"type": "http", "url": "https://r.example/mcp", "oauth": {}}


def test_a_stdio_entry_keeps_no_oauth_block(where: Where) -> None:
    servers = {"local": {"command": "npx", "args": ["x"], "oauth": {"clientId": "x"}}}
    reading = read_json("claude-code", where.home / ".claude.json", {"mcpServers": servers}, where)
    assert by_name(reading)["local"][0] == {"type": "stdio", "command": "npx", "args": ["x"]}


@pytest.mark.parametrize(
    ("block", "reason"),
    [
        ("yes", "its 'oauth' is neither an object nor true/false"),
        ({"clientSecret": "${S}"}, "has a client secret but no client id"),
        ({"clientId": 7}, "its 'oauth.clientId' is not a string"),
        ({"callbackPort": 70000}, "its 'oauth.callbackPort' is not a port number (1 to 65535)"),
        ({"scopes": [1]}, "its OAuth scopes are neither a list of strings nor one spaced string"),
        (
            {"redirectUri": "https://app.example/cb"},
            "is not on this machine; the gateway's sign-in returns to 127.0.0.1",
        ),
    ],
)
def test_a_block_the_gateway_cannot_use_is_skipped_with_the_reason(block: object, reason: str) -> None:
    with pytest.raises(Skip) as raised:
        read_oauth(block)
    assert reason in raised.value.reason


@pytest.mark.anyio
async def test_an_entry_marked_oauth_by_its_client_is_not_asked_again(where: Where) -> None:
    servers = {"linear": {"type": "http", "url": "https://mcp.linear.app/mcp", "oauth": {"clientId": "claude-code"}}}
    reading = read_json("claude-code", where.home / ".claude.json", {"mcpServers": servers}, where)
    probe = Answers({"https://mcp.linear.app/mcp": 200})
    screened = await screen_sign_ins(reading, "Claude Code", probe=probe, environ={})
    assert probe.asked == []
    assert by_name(screened)["linear"][0] == {
        "type": "http",
        "url": "https://mcp.linear.app/mcp",
        "oauth": {"clientId": "claude-code"},
    }
