"""Pure parts of connecting: the SDK protocol mode per server, the headers of remote servers, and URLs in errors."""

from __future__ import annotations

import pytest

from mcp_gateway.config import HttpServer, SseServer
from mcp_gateway.downstream.connect import protocol_mode, remote_headers
from mcp_gateway.downstream.translate import display_url
from mcp_gateway.errors import ServerStartError


@pytest.mark.parametrize(
    ("configured", "remembered", "mode"),
    [
        ("auto", None, "auto"),
        ("auto", "2025-06-18", "legacy"),
        ("auto", "2024-11-05", "legacy"),
        ("auto", "2026-07-28", "auto"),  # asked again: its discover answer carries its instructions
        ("auto", "1999-01-01", "auto"),
        ("legacy", None, "legacy"),
        ("legacy", "2026-07-28", "legacy"),
        ("2026-07-28", "2025-06-18", "2026-07-28"),
        ("2025-03-26", "2026-07-28", "legacy"),
    ],
)
def test_the_protocol_mode_is_the_setting_else_what_the_server_negotiated_before(
    configured: str, remembered: str | None, mode: str
) -> None:
    assert protocol_mode(configured, remembered) == mode


def test_a_bearer_token_from_the_environment_becomes_an_authorization_header() -> None:
    spec = HttpServer(url="https://mcp.example.com/mcp", headers={"X-Team": "core"}, bearer_token_env="DOCS_TOKEN")
    headers = remote_headers("docs", spec, {"DOCS_TOKEN": "s3cret-value"})
    assert headers == {"X-Team": "core", "Authorization": "Bearer s3cret-value"}


def test_configured_headers_pass_through_without_a_bearer_token() -> None:
    spec = SseServer(url="https://mcp.example.com/sse", headers={"X-Api-Key": "k"})
    assert remote_headers("docs", spec, {}) == {"X-Api-Key": "k"}


@pytest.mark.parametrize("environ", [{}, {"DOCS_TOKEN": ""}])
def test_a_missing_bearer_token_variable_fails_the_start_naming_the_variable(environ: dict[str, str]) -> None:
    spec = HttpServer(url="https://mcp.example.com/mcp", bearer_token_env="DOCS_TOKEN")
    with pytest.raises(ServerStartError) as caught:
        remote_headers("docs", spec, environ)
    assert caught.value.server == "docs"
    assert not caught.value.retryable
    assert "DOCS_TOKEN" in caught.value.message
    assert "bearerTokenEnv" in caught.value.message


def test_remote_headers_do_not_modify_the_configured_headers() -> None:
    spec = HttpServer(url="https://mcp.example.com/mcp", headers={"X-Team": "core"}, bearer_token_env="T")
    remote_headers("docs", spec, {"T": "token-value"})
    assert spec.headers == {"X-Team": "core"}


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:secret@example.com:8443/mcp?api_key=secret#frag", "https://example.com:8443/mcp"),
        ("http://127.0.0.1:9000/sse", "http://127.0.0.1:9000/sse"),
    ],
)
def test_a_url_in_an_error_message_carries_no_credentials(url: str, shown: str) -> None:
    assert display_url(url) == shown
