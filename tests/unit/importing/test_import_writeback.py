"""Write-back: the client's file holds the gateway entry plus everything unrelated, byte for byte."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from importer_testing import GATEWAY_HOME, SAMPLES, UVX_PATH, InstallSample

from mcp_gateway.config import as_object
from mcp_gateway.importing.clients import ClientReading, Launch, Scope, Where, find_client, jsonc
from mcp_gateway.importing.clients.model import GATEWAY_NAME

JSON_SAMPLES: list[tuple[str, str, Scope]] = [
    ("claude-code", "claude_code.claude.json", "user"),
    ("claude-code", "claude_code.claude.json", "local"),
    ("claude-code", "claude_code.mcp.json", "project"),
    ("claude-desktop", "claude_desktop_config.json", "user"),
    ("opencode", "opencode.jsonc", "user"),
    ("cursor", "cursor.mcp.json", "user"),
    ("vscode", "vscode.mcp.json", "user"),
    ("vscode", "vscode.settings.json", "user"),
    ("windsurf", "windsurf.mcp_config.json", "user"),
    ("gemini", "gemini.settings.json", "user"),
    ("zed", "zed.settings.json", "user"),
    ("cline", "cline_mcp_settings.json", "user"),
    ("roo", "roo.mcp_settings.json", "user"),
    ("servers-json", "servers.mcp.json", "user"),
]
STRICT_JSON = {"claude-code", "claude-desktop", "cursor", "windsurf", "cline", "roo"}
EXTRA_BLOCKS = {"gemini": [("mcp", "allowed")]}


def read(client: str, path: Path, scope: Scope, where: Where) -> ClientReading:
    found = find_client(client)
    assert found is not None
    return found.read(path, scope, where)


def rewrite(reading: ClientReading, launch: Launch) -> str:
    found = find_client(reading.client)
    assert found is not None
    return found.rewrite(reading, launch)


def outside(text: str, paths: list[tuple[str, ...]]) -> list[str]:
    """The text with the values at `paths` cut out: what must not change."""
    root = jsonc.parse(text)
    spans = sorted((node.start, node.end) for path in paths if (node := root.find(path)) is not None)
    pieces: list[str] = []
    position = 0
    for start, end in spans:
        pieces.append(text[position:start])
        position = end
    pieces.append(text[position:])
    return pieces


def value_at(text: str, path: tuple[str, ...]) -> dict[str, object]:
    node = jsonc.parse(text).find(path)
    assert node is not None
    value = as_object(node.value)
    assert value is not None
    return value


def member_texts(text: str, block: tuple[str, ...], names: set[str]) -> list[str]:
    node = jsonc.parse(text).find(block)
    assert node is not None
    return [text[m.key_start : m.value.end] for m in node.members or () if m.key in names]


@pytest.fixture
def where_shop(tmp_path: Path) -> Where:
    return Where(home=tmp_path, project=Path("/home/me/src/shop"))


@pytest.mark.parametrize(("client", "sample", "scope"), JSON_SAMPLES)
def test_write_back_changes_only_the_server_block_and_keeps_skipped_entries_verbatim(
    client: str, sample: str, scope: Scope, where_shop: Where, launch: Launch
) -> None:
    reading = read(client, SAMPLES / sample, scope, where_shop)
    original = reading.text
    new = rewrite(reading, launch)
    paths = [reading.block, *EXTRA_BLOCKS.get(client, [])]
    assert outside(new, paths) == outside(original, paths)
    kept = {server.name for server in reading.skipped}
    for text in member_texts(original, reading.block, kept):
        assert text in new
    assert sorted(value_at(new, reading.block)) == sorted({*kept, GATEWAY_NAME})
    if client in STRICT_JSON:
        json.loads(new)  # the app would silently ignore a file with a comment or a trailing comma


@pytest.mark.parametrize(("client", "sample", "scope"), JSON_SAMPLES)
def test_a_rewritten_file_imports_nothing_more_and_rewrites_to_itself(
    client: str, sample: str, scope: Scope, where_shop: Where, launch: Launch
) -> None:
    path = where_shop.home / "client-file"
    path.write_text(rewrite(read(client, SAMPLES / sample, scope, where_shop), launch))
    again = read(client, path, scope, where_shop)
    assert not again.imported
    assert again.has_gateway
    assert rewrite(again, launch) == again.text


def test_the_gateway_entry_has_each_clients_own_shape(where_shop: Where, launch: Launch) -> None:
    shapes: dict[str, object] = {}
    for client, sample, scope in JSON_SAMPLES:
        reading = read(client, SAMPLES / sample, scope, where_shop)
        shapes[client] = value_at(rewrite(reading, launch), reading.block)[GATEWAY_NAME]
    args = ["--from", "mcp-meta-gateway", "mcp-gateway"]
    env = {"MCP_GATEWAY_HOME": GATEWAY_HOME}
    assert shapes["claude-code"] == {
        "type": "stdio",
        "command": UVX_PATH,
        "args": args,
        "env": env,
        "alwaysLoad": True,  # Claude Code waits for it before the first turn
    }
    assert shapes["opencode"] == {"type": "local", "command": [UVX_PATH, *args], "environment": env, "enabled": True}
    assert shapes["vscode"] == {"type": "stdio", "command": UVX_PATH, "args": args, "env": env}
    assert shapes["zed"] == {"source": "custom", "enabled": True, "command": UVX_PATH, "args": args, "env": env}
    assert shapes["servers-json"] == {"transport": "stdio", "command": UVX_PATH, "args": args, "env": env}
    assert shapes["claude-desktop"] == {"command": UVX_PATH, "args": args, "env": env}


def test_gemini_passes_needed_variables_by_name_and_lists_the_gateway_as_allowed(where: Where) -> None:
    reading = read("gemini", SAMPLES / "gemini.settings.json", "user", where)
    launch = Launch("uvx", ("mcp-gateway",), {"MCP_GATEWAY_HOME": "/h"}, ("GITHUB_TOKEN", "API_TOKEN"))
    new = rewrite(reading, launch)
    assert value_at(new, ("mcpServers", GATEWAY_NAME, "env")) == {
        "MCP_GATEWAY_HOME": "/h",
        "GITHUB_TOKEN": "$GITHUB_TOKEN",
        "API_TOKEN": "$API_TOKEN",
    }
    assert value_at(new, ("mcp",)) == {"allowed": ["mcp-gateway", "gcp"]}


def test_a_file_without_the_server_key_gets_one_appended(where: Where, launch: Launch, tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text('{\n  "preferences": {\n    "menuBarEnabled": false\n  }\n}\n')
    reading = read("claude-desktop", path, "user", where)
    new = rewrite(reading, launch)
    assert new.startswith(
        '{\n  "preferences": {\n    "menuBarEnabled": false\n  },\n  "mcpServers": {\n    "mcp-gateway": {'
    )
    assert new.endswith("\n    }\n  }\n}\n")


def test_codex_write_back_replaces_only_the_imported_tables(where: Where, launch: Launch) -> None:
    reading = read("codex", SAMPLES / "codex.config.toml", "user", where)
    launch = Launch(launch.command, launch.args, launch.env, ("GITHUB_PERSONAL_ACCESS_TOKEN", "DOCS_TOKEN"))
    new = rewrite(reading, launch)
    assert new == (
        "# Codex CLI configuration\n"
        'model = "gpt-5-codex"\n'
        'approval_policy = "on-request"  # ask before running commands\n'
        "\n"
        "[profiles.fast]\n"
        'model = "gpt-5-mini"\n'
        "\n"
        "[mcp_servers.mcp-gateway]\n"
        f'command = "{UVX_PATH}"\n'
        'args = ["--from", "mcp-meta-gateway", "mcp-gateway"]\n'
        f'env = {{ MCP_GATEWAY_HOME = "{GATEWAY_HOME}" }}\n'
        'env_vars = ["GITHUB_PERSONAL_ACCESS_TOKEN", "DOCS_TOKEN"]\n'
        "startup_timeout_sec = 60\n"
        "required = true\n"
        "\n"
        "# Figma signs in with OAuth (codex mcp login figma)\n"
        "[mcp_servers.figma]\n"
        'url = "https://mcp.figma.com/mcp"\n'
        'scopes = ["files:read"]\n'
        "\n"
        "[tui]\n"
        "notifications = true\n"
    )
    again = read("codex", _written(new, where), "user", where)
    assert not again.imported
    assert rewrite(again, launch) == new
    assert tomllib.loads(new)["profiles"] == {"fast": {"model": "gpt-5-mini"}}


def test_codex_write_back_appends_the_gateway_when_no_table_was_removed(
    where: Where, launch: Launch, install_sample: InstallSample
) -> None:
    path = where.home / ".codex" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text('model = "x"\n[mcp_servers.figma]\nurl = "https://f/mcp"\nscopes = ["a"]')
    new = rewrite(read("codex", path, "user", where), launch)
    assert new.startswith(
        'model = "x"\n[mcp_servers.figma]\nurl = "https://f/mcp"\nscopes = ["a"]\n\n[mcp_servers.mcp-gateway]\n'
    )


def _written(text: str, where: Where) -> Path:
    path = where.home / "config.toml"
    path.write_text(text)
    return path
