"""Secrets never appear in what import prints; variable references do."""

from __future__ import annotations

import pytest

from mcp_gateway.importers.masking import MASK, looks_like_token, mask_args, mask_json, mask_url


def test_header_values_are_masked_unless_they_only_reference_variables() -> None:
    masked = mask_json({"headers": {"Authorization": "Bearer abc", "X-Key": "${KEY}", "X-Plain": "codex"}})
    assert masked == {"headers": {"Authorization": MASK, "X-Key": "${KEY}", "X-Plain": MASK}}


def test_env_values_are_masked_by_secret_names_or_token_looks() -> None:
    env = {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "short",
        "API_KEY": "x",
        "DB_PASSWORD": "hunter2",
        "GITHUB_PAT": "abc",
        "LOG_LEVEL": "warn",
        "OPAQUE": "AbCdEfGh1234567890XyZw",
        "REFERENCE_TOKEN": "${GITHUB_TOKEN}",
        "GEMINI_STYLE_TOKEN": "$GITHUB_TOKEN",
        "MCP_GATEWAY_HOME": "/home/me/.mcp-gateway",
    }
    assert mask_json({"env": env}) == {
        "env": {
            "GITHUB_PERSONAL_ACCESS_TOKEN": MASK,
            "API_KEY": MASK,
            "DB_PASSWORD": MASK,
            "GITHUB_PAT": MASK,
            "LOG_LEVEL": "warn",
            "OPAQUE": MASK,
            "REFERENCE_TOKEN": "${GITHUB_TOKEN}",
            "GEMINI_STYLE_TOKEN": "$GITHUB_TOKEN",
            "MCP_GATEWAY_HOME": "/home/me/.mcp-gateway",
        }
    }


def test_opencode_environment_and_codex_http_headers_are_masked_too() -> None:
    assert mask_json({"environment": {"TOKEN": "abc"}}) == {"environment": {"TOKEN": MASK}}
    assert mask_json({"http_headers": {"X": "abc"}}) == {"http_headers": {"X": MASK}}


def test_arguments_that_carry_secrets_are_masked() -> None:
    args = [
        "-y",
        "mcp-remote",
        "https://mcp.example.com/mcp?api_key=abc123&team=core",
        "--header",
        "Authorization: Bearer abc",
        "--api-key",
        "abc",
        "--token=xyz",
        "ghp_R2d2C3poL1ke5kyWalker0123456789abc",
        "@modelcontextprotocol/server-filesystem",
        "/Users/me/Documents",
    ]
    assert mask_args(args) == [
        "-y",
        "mcp-remote",
        f"https://mcp.example.com/mcp?api_key={MASK}&team=core",
        "--header",
        f"Authorization: {MASK}",
        "--api-key",
        MASK,
        f"--token={MASK}",
        MASK,
        "@modelcontextprotocol/server-filesystem",
        "/Users/me/Documents",
    ]


def test_url_passwords_and_secret_query_values_are_masked() -> None:
    assert mask_url("postgresql://admin:s3cret@db/app") == f"postgresql://admin:{MASK}@db/app"
    assert mask_url("https://x/mcp?token=abc&page=2") == f"https://x/mcp?token={MASK}&page=2"


@pytest.mark.parametrize(
    "value",
    [
        "ghp_R2d2C3poL1ke5kyWalker0123456789abc",
        "sk-proj-abcdefgh",
        "0123456789abcdef0123456789abcdef",
        "AbCd1234EfGh5678IjKl",
    ],
)
def test_generated_credentials_look_like_tokens(value: str) -> None:
    assert looks_like_token(value)


@pytest.mark.parametrize(
    "value",
    ["@modelcontextprotocol/server-github", "/usr/local/bin/uvx", "https://mcp.example.com/mcp", "2025.1.0", "warn"],
)
def test_paths_urls_versions_and_words_do_not_look_like_tokens(value: str) -> None:
    assert not looks_like_token(value)
