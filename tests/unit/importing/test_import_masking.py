"""Secrets never appear in what import prints; variable references do."""

from __future__ import annotations

from mcp_gateway.importing.reports import mask_json, secrets_in
from mcp_gateway.masking import MASK, SecretMask


def test_secret_headers_are_masked_by_name_unless_they_only_reference_variables() -> None:
    masked = mask_json({"headers": {"Authorization": "Bearer abc", "X-Key": "${KEY}", "Cookie": "sid=1"}})
    assert masked == {"headers": {"Authorization": f"Bearer {MASK}", "X-Key": "${KEY}", "Cookie": MASK}}


def test_headers_named_like_credentials_are_masked_whatever_their_value() -> None:
    names = ["Authorization", "Proxy-Authorization", "Cookie", "X-API-Key", "X-Auth-Token", "X-Secret", "X-Password"]
    headers = dict.fromkeys(names, "core")
    assert mask_json({"headers": headers}) == {"headers": dict.fromkeys(names, MASK)}


def test_headers_that_are_not_secrets_are_shown_as_they_are() -> None:
    headers = {
        "X-Client": "my-app",
        "Accept": "application/json, text/event-stream",
        "User-Agent": "mcp-gateway/1.0 (linux)",
        "Content-Type": "application/json",
        "X-Team": "core",
    }
    assert mask_json({"headers": headers}) == {"headers": headers}


def test_a_header_that_is_not_named_as_a_secret_but_holds_a_generated_token_is_masked() -> None:
    assert mask_json({"headers": {"X-Forwarded": "ghp_R2d2C3poL1ke5kyWalker0123456789abc"}}) == {
        "headers": {"X-Forwarded": MASK}
    }


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
    assert mask_json({"http_headers": {"X-Api-Key": "abc", "X": "abc"}}) == {
        "http_headers": {"X-Api-Key": MASK, "X": "abc"}
    }


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


def test_credentials_in_a_url_are_masked_under_any_key() -> None:
    entry = {
        "serverUrl": "https://me:hunter2@mcp.example.com/mcp",
        "httpUrl": "https://mcp.example.com/mcp?key=abc&api_key=def&access_token=ghi&region=eu",
    }
    assert mask_json(entry) == {
        "serverUrl": f"https://me:{MASK}@mcp.example.com/mcp",
        "httpUrl": f"https://mcp.example.com/mcp?key={MASK}&api_key={MASK}&access_token={MASK}&region=eu",
    }
    assert mask_json({"url": "https://mcp.example.com/mcp"}) == {"url": "https://mcp.example.com/mcp"}


def test_a_token_alone_among_the_arguments_is_masked_and_words_are_not() -> None:
    args = ["server", "sk-proj-abcdefgh", "ghp_abcdefgh1234", "aB3dE5gH7jK9mN1pQ3sT5", "production", "v1.2.3"]
    assert mask_json({"args": args}) == {"args": ["server", MASK, MASK, MASK, "production", "v1.2.3"]}


def test_secrets_inside_an_sh_c_string_are_masked_and_the_rest_is_kept() -> None:
    script = (
        "TOKEN=abc API_KEY='k1' exec npx server --api-key sk-live-1234 --name core; "
        'curl -H "Authorization: Bearer xyz" -H "X-Client: me" https://u:pw@host/p?token=t1'
    )
    (shown,) = mask_json({"args": [script]})["args"]  # type: ignore[index]
    assert shown == (
        f"TOKEN={MASK} API_KEY='{MASK}' exec npx server --api-key {MASK} --name core; "
        f'curl -H "Authorization: Bearer {MASK}" -H "X-Client: me" https://u:{MASK}@host/p?token={MASK}'
    )
    assert mask_json({"command": ["sh", "-c", "exec server --port 8080"]}) == {
        "command": ["sh", "-c", "exec server --port 8080"]
    }


def test_secrets_in_collects_what_mask_json_hides_so_free_text_is_masked_by_the_same_rules() -> None:
    entry = {
        "command": "sh",
        "args": ["-c", "SLACK_TOKEN=xoxb-1234-abcd exec slack-mcp"],
        "env": {"API_KEY": "k-secret-1", "REGION": "eu", "REF_TOKEN": "${GITHUB_TOKEN}"},
        "headers": {"Authorization": "Bearer abcdef123", "X-Client": "my-app"},
        "url": "https://me:hunter22@mcp.example.com/mcp",
    }
    found = secrets_in(entry)
    assert sorted(found) == sorted(["xoxb-1234-abcd", "k-secret-1", "abcdef123", "hunter22"])
    note = "it printed xoxb-1234-abcd and k-secret-1 with X-Client my-app in eu"
    assert SecretMask(found).mask(note) == f"it printed {MASK} and {MASK} with X-Client my-app in eu"
