"""What counts as a secret, and `SecretMask`: every known secret masked, ordinary values left alone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from gateway_testing import fake_server, load, write_workspace

from mcp_gateway.masking import (
    MASK,
    MIN_SECRET_CHARS,
    Redact,
    SecretMask,
    declares_secret,
    looks_like_token,
    redact_args,
    redact_env,
    redact_header,
    redact_url,
)

TOKEN = "ghp_R2d2C3poL1ke5kyWalker0123456789abc"


def collected(rule: Callable[[Redact], object]) -> list[str]:
    """The secret pieces a rule finds, in order (the rule is called with a collecting callback)."""
    found: list[str] = []

    def collect(value: str) -> str:
        found.append(value)
        return value

    rule(collect)
    return found


def masked(value: str) -> str:
    return MASK


@pytest.mark.parametrize(
    "name", ["API_TOKEN", "DB_PASSWORD", "GITHUB_PAT", "X-API-Key", "Authorization", "Cookie", "--api-key", "secret"]
)
def test_names_that_declare_a_secret(name: str) -> None:
    assert declares_secret(name)


@pytest.mark.parametrize(
    "name", ["NODE_ENV", "PORT", "--port", "API_KEY_FILE", "AUTH_MODE", "TOKEN_URL", "--key-file", "Accept"]
)
def test_names_that_say_something_about_a_secret_or_nothing_do_not_declare_one(name: str) -> None:
    assert not declares_secret(name)


@pytest.mark.parametrize(
    "value",
    [TOKEN, "sk-proj-abcdefgh", "0123456789abcdef0123456789abcdef", "AbCd1234EfGh5678IjKl"],
)
def test_generated_credentials_look_like_tokens(value: str) -> None:
    assert looks_like_token(value)


@pytest.mark.parametrize(
    "value",
    [
        "@modelcontextprotocol/server-github",
        "/usr/local/bin/uvx",
        "https://mcp.example.com/mcp",
        "2025.1.0",
        "production",
    ],
)
def test_paths_urls_versions_and_words_do_not_look_like_tokens(value: str) -> None:
    assert not looks_like_token(value)


def test_env_values_are_secrets_by_declared_name_or_looks_but_never_paths_or_plain_settings() -> None:
    env = {
        "API_TOKEN": "hunter2-plain",
        "OPAQUE": TOKEN,
        "NODE_ENV": "production",
        "PROJECT_DIR": "/home/me/project",
        "PWD": "/home/me/project",
        "PRIVATE_KEY": "~/.ssh/id_ed25519",
        "DATABASE_URL": "postgresql://admin:s3cret-pass@db/app",
    }
    found: list[str] = []
    for name, value in env.items():
        found += collected(lambda redact: redact_env(name, value, redact))  # noqa: B023  # called at once
    assert found == ["hunter2-plain", TOKEN, "s3cret-pass"]


def test_arguments_after_secret_flags_headers_assignments_urls_and_tokens_are_secrets() -> None:
    args = [
        "--api-key",
        "arg-secret-1",
        "--token=arg-secret-2",
        "--password",
        "arg-secret-3",
        "--header",
        "Authorization: Bearer arg-secret-4",
        "API_KEY=arg-secret-5",
        "https://mcp.example.com/mcp?key=arg-secret-6&team=core",
        TOKEN,
        "--port",
        "8080",
        "--key-file",
        "/home/me/key.pem",
        "localhost:8080",
        "/home/me/project",
    ]
    assert collected(lambda redact: redact_args(args, redact)) == [f"arg-secret-{n}" for n in range(1, 7)] + [TOKEN]
    shown = redact_args(args, masked)
    assert shown[:9] == [
        "--api-key",
        MASK,
        f"--token={MASK}",
        "--password",
        MASK,
        "--header",
        f"Authorization: Bearer {MASK}",
        f"API_KEY={MASK}",
        f"https://mcp.example.com/mcp?key={MASK}&team=core",
    ]
    assert shown[9:] == [MASK, "--port", "8080", "--key-file", "/home/me/key.pem", "localhost:8080", "/home/me/project"]


def test_headers_are_secrets_by_name_or_looks_and_keep_their_auth_scheme() -> None:
    assert redact_header("Authorization", "Bearer header-secret", masked) == f"Bearer {MASK}"
    assert redact_header("X-API-Key", "header-secret", masked) == MASK
    assert redact_header("X-Trace", TOKEN, masked) == MASK
    assert redact_header("Accept", "application/json", masked) == "application/json"
    assert redact_header("X-Team", "core", masked) == "core"


def test_url_credentials_are_the_userinfo_password_and_secret_query_values() -> None:
    assert redact_url("postgresql://admin:s3cret@db/app", masked) == f"postgresql://admin:{MASK}@db/app"
    url = "https://x.example/mcp?key=k-secret&token=t-secret&page=2&q=words"
    assert redact_url(url, masked) == f"https://x.example/mcp?key={MASK}&token={MASK}&page=2&q=words"
    ordinary = "see https://x.example:8080/a@b for 2 items"
    assert redact_url(ordinary, masked) == ordinary


def test_the_mask_replaces_every_known_value_longest_first() -> None:
    mask = SecretMask(["abcdef", "abcdefgh-longer"])
    assert mask.mask("a abcdefgh-longer b abcdef c") == f"a {MASK} b {MASK} c"
    assert mask.longest == len("abcdefgh-longer")


def test_the_mask_leaves_out_values_too_short_to_mask_safely() -> None:
    short = "x" * (MIN_SECRET_CHARS - 1)
    mask = SecretMask([short, " padded-secret \n"])
    assert mask.values == ("padded-secret",)
    assert mask.mask(f"{short} and padded-secret") == f"{short} and {MASK}"


def test_the_mask_masks_url_credentials_nobody_configured_and_nothing_ordinary() -> None:
    mask = SecretMask()
    text = "GET https://api.example/v1?api_key=unconfigured-123&page=2 failed for https://me:pw123@host/x"
    assert mask.mask(text) == f"GET https://api.example/v1?api_key={MASK}&page=2 failed for https://me:{MASK}@host/x"
    ordinary = "NODE_ENV=production in /home/me/project on port 8080 (token expired; key rotated)"
    assert mask.mask(ordinary) == ordinary


def test_the_mask_of_a_config_holds_every_configured_secret_and_no_ordinary_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("E2E_ENV_TOKEN", "expanded-env-secret")
    local = fake_server()
    local["args"] += ["--api-key", "flag-secret-1", "--token=flag-secret-2", "--port", "8080"]
    local["env"] |= {"API_TOKEN": "${E2E_ENV_TOKEN}", "NODE_ENV": "production", "PROJECT_DIR": "/home/me/project"}
    remote = {
        "type": "http",
        "url": "https://mcp.example.com/mcp?key=url-secret",
        "headers": {"X-API-Key": "header-secret", "Accept": "application/json"},
        "bearerTokenEnv": "BEARER_FOR_TEST",
    }
    config = load(write_workspace(tmp_path, {"local": local, "remote": remote}))
    mask = SecretMask.for_servers(config.servers.values(), {"BEARER_FOR_TEST": "bearer-secret"})
    secrets = ["expanded-env-secret", "flag-secret-1", "flag-secret-2", "url-secret", "header-secret", "bearer-secret"]
    assert sorted(mask.values) == sorted(secrets)
    ordinary = "NODE_ENV=production PROJECT_DIR=/home/me/project --port 8080 Accept: application/json"
    assert mask.mask(f"{' '.join(secrets)} {ordinary}") == f"{' '.join([MASK] * len(secrets))} {ordinary}"


# ---- mask_clipped: outside text kept bounded ----


def test_mask_clipped_masks_and_bounds_and_says_how_much_was_left_out() -> None:
    secret = "sk-live-0123456789abcdefABCDEF"
    mask = SecretMask([secret])
    assert mask.mask_clipped(f"use {secret} now", 100) == "use *** now"
    clipped = mask.mask_clipped("x" * 1000, 100)
    assert len(clipped) == 100
    assert clipped.endswith("… (900 more characters)")


def test_mask_clipped_never_shows_a_secret_split_by_the_cut() -> None:
    secret = "sk-live-0123456789abcdefABCDEF"
    text = "a" * 90 + secret + "b" * 1000  # the cut falls inside the secret
    clipped = SecretMask([secret]).mask_clipped(text, 100)
    assert "sk-live" not in clipped
    assert len(clipped) <= 100


def test_mask_clipped_text_passes_through_it_again_unchanged() -> None:
    mask = SecretMask(["sk-live-0123456789abcdefABCDEF"])
    once = mask.mask_clipped("word " * 500, 300)
    assert mask.mask_clipped(once, 300) == once


def test_a_mask_learns_secrets_met_at_run_time_and_only_grows() -> None:
    mask = SecretMask(["configured-secret-1"])
    mask.learn(["oauth-access-token-xyz", "short"])
    mask.learn([])
    assert mask.mask("configured-secret-1 oauth-access-token-xyz short") == "*** *** short"
    assert mask.values == ("oauth-access-token-xyz", "configured-secret-1")
