"""Secrets never appear in what import prints; variable references do."""

from __future__ import annotations

from mcp_gateway.importers.masking import mask_json
from mcp_gateway.masking import MASK


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
        "--api-key",
        "${API_KEY}",
        "@modelcontextprotocol/server-filesystem",
        "/Users/me/Documents",
    ]
    expected = [
        "-y",
        "mcp-remote",
        f"https://mcp.example.com/mcp?api_key={MASK}&team=core",
        "--header",
        f"Authorization: Bearer {MASK}",
        "--api-key",
        MASK,
        f"--token={MASK}",
        MASK,
        "--api-key",
        "${API_KEY}",
        "@modelcontextprotocol/server-filesystem",
        "/Users/me/Documents",
    ]
    assert mask_json({"args": args}) == {"args": expected}


def test_url_passwords_and_secret_query_values_are_masked() -> None:
    assert mask_json({"url": "postgresql://admin:s3cret@db/app"}) == {"url": f"postgresql://admin:{MASK}@db/app"}
    assert mask_json({"url": "https://x/mcp?token=abc&page=2"}) == {"url": f"https://x/mcp?token={MASK}&page=2"}
