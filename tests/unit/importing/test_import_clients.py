"""Reading each client's documented format: what is imported (as which gateway entry) and what is skipped."""

from __future__ import annotations

from pathlib import Path

import pytest
from importer_testing import SAMPLES

from mcp_gateway.importing import Where
from mcp_gateway.importing.clients import ClientReading, Scope, find_client


def read(client: str, sample: str, where: Where, scope: Scope = "user") -> ClientReading:
    found = find_client(client)
    assert found is not None
    return found.read(SAMPLES / sample, scope, where)


def entries(reading: ClientReading) -> dict[str, dict[str, object]]:
    return {server.name: server.entry for server in reading.servers if server.entry is not None}


def skipped(reading: ClientReading) -> dict[str, str]:
    return {server.name: server.skipped or "" for server in reading.servers if server.entry is None}


def test_claude_code_user_scope_imports_stdio_http_and_oauth_and_skips_header_helpers(where: Where) -> None:
    reading = read("claude-code", "claude_code.claude.json", where)
    assert entries(reading) == {
        "github": {
            "type": "stdio",
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
        },
        "sentry": {
            "type": "http",
            "url": "https://mcp.sentry.dev/mcp",
            "headers": {"Authorization": "Bearer sntrys_eyJpYXQiOjE3MDAwMDAwMDB9_abcdefABCDEF0123456789"},
        },
        "memory": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]},
        "linear": {
            "type": "sse",
            "url": "https://mcp.linear.app/sse",
            "oauth": {"clientId": "claude-code", "redirectPort": 8765},  # Claude Code's callbackPort
        },
    }
    assert "headersHelper" in skipped(reading)["internal-api"]
    assert reading.block == ("mcpServers",)
    assert reading.notes == (
        "Claude Code rewrites .claude.json while it runs: quit it before --write-client-config",
        "1 server in the local scope of /home/me/src/shop: import with --scope local --project /home/me/src/shop",
    )


def test_claude_code_local_scope_reads_the_projects_entry_for_the_project_dir(tmp_path: Path) -> None:
    where = Where(home=tmp_path, project=Path("/home/me/src/shop"))
    reading = read("claude-code", "claude_code.claude.json", where, "local")
    assert reading.block == ("projects", "/home/me/src/shop", "mcpServers")
    assert list(entries(reading)) == ["postgres"]
    assert reading.notes[1:] == ("the user scope has servers too: import them with --scope user",)


def test_claude_code_local_scope_matches_a_windows_project_key_by_case_and_slashes(tmp_path: Path) -> None:
    where = Where(home=tmp_path, project=Path("/HOME/me/src/shop/"), platform="win32")
    reading = read("claude-code", "claude_code.claude.json", where, "local")
    assert reading.block == ("projects", "/home/me/src/shop", "mcpServers")


def test_claude_code_project_scope_reads_mcp_json(where: Where) -> None:
    reading = read("claude-code", "claude_code.mcp.json", where, "project")
    assert entries(reading)["docs"] == {
        "type": "http",
        "url": "https://docs.example.com/mcp",
        "headers": {"X-API-Key": "${DOCS_API_KEY}"},
    }


def test_claude_desktop_unwraps_mcp_remote_with_headers_and_keeps_the_bridge_without(where: Where) -> None:
    reading = read("claude-desktop", "claude_desktop_config.json", where)
    found = entries(reading)
    assert found["remote-docs"] == {
        "type": "http",
        "url": "https://mcp.example.com/mcp",
        "headers": {"Authorization": "Bearer 7f3a9c2e1b8d4f6a0e5c3b9d7a1f2e4c"},
    }
    assert found["atlassian"] == {
        "type": "stdio",
        "command": "npx",
        "args": ["-y", "mcp-remote", "https://mcp.atlassian.com/v1/sse"],
    }
    assert found["brave-search"]["env"] == {"BRAVE_API_KEY": "BSAq7uH2kLmN9pQrStUvWxYz0123456"}
    assert not skipped(reading)


def test_opencode_splits_the_command_array_and_translates_env_references(where: Where) -> None:
    reading = read("opencode", "opencode.jsonc", where)
    found = entries(reading)
    assert found["github"] == {
        "type": "stdio",
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"],
        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
    }
    assert found["context7"] == {
        "type": "http",
        "url": "https://mcp.context7.com/mcp",
        "headers": {"CONTEXT7_API_KEY": "${CONTEXT7_API_KEY}"},
    }
    assert found["old-time"] == {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"], "disabled": True}
    assert found["figma"] == {  # "oauth": false on context7 means none; figma's object is the gateway's oauth
        "type": "http",
        "url": "https://mcp.figma.com/mcp",
        "oauth": {"clientId": "opencode", "scopes": ["files:read"]},
    }
    assert "{file:" in skipped(reading)["notes"]


def test_cursor_translates_editor_variables_and_skips_env_files(where: Where) -> None:
    reading = read("cursor", "cursor.mcp.json", where)
    found = entries(reading)
    assert found["stripe"]["env"] == {"STRIPE_SECRET_KEY": "${STRIPE_SECRET_KEY}"}
    assert found["supabase"]["headers"] == {"Authorization": "Bearer ${SUPABASE_ACCESS_TOKEN}"}
    assert found["notion"]["type"] == "http"
    assert "envFile" in skipped(reading)["local-tools"]


def test_vscode_skips_servers_that_use_prompted_inputs(where: Where) -> None:
    reading = read("vscode", "vscode.mcp.json", where)
    assert entries(reading)["github"] == {
        "type": "http",
        "url": "https://api.githubcopilot.com/mcp/",
        "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"},
    }
    assert "input:perplexity-key" in skipped(reading)["perplexity"]
    assert reading.block == ("servers",)


def test_vscode_reads_legacy_servers_from_settings_json(where: Where) -> None:
    reading = read("vscode", "vscode.settings.json", where)
    assert reading.block == ("mcp", "servers")
    assert entries(reading)["time"]["args"] == ["mcp-server-time", "--local-timezone=Europe/Berlin"]


def test_windsurf_reads_server_url_and_carries_disabled_tools_over(where: Where) -> None:
    reading = read("windsurf", "windsurf.mcp_config.json", where)
    found = entries(reading)
    assert found["figma"] == {
        "type": "http",
        "url": "https://figma.example.com/mcp",
        "headers": {"X-Figma-Token": "${FIGMA_TOKEN}"},
    }
    assert found["github"]["excludeTools"] == ["delete_repository"]
    assert found["puppeteer"]["disabled"] is True
    assert "file:" in skipped(reading)["secrets-from-file"]


def test_codex_turns_variable_names_into_references(where: Where) -> None:
    reading = read("codex", "codex.config.toml", where)
    found = entries(reading)
    assert found["github"] == {
        "type": "stdio",
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"],
        "env": {"GITHUB_TOOLSETS": "repos,issues", "GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN}"},
        "connectTimeoutMs": 20000,
    }
    assert found["docs"] == {
        "type": "http",
        "url": "https://mcp.example.com/mcp",
        "headers": {"X-Client": "codex", "X-Workspace": "${DOCS_WORKSPACE}", "Authorization": "Bearer ${DOCS_TOKEN}"},
        "requestTimeoutMs": 120000,
    }
    assert found["time"]["disabled"] is True
    assert "OAuth" in skipped(reading)["figma"]


def test_gemini_translates_dollar_variables_and_honours_the_allowed_list(where: Where) -> None:
    reading = read("gemini", "gemini.settings.json", where)
    found = entries(reading)
    assert found["github"] == {
        "type": "stdio",
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"],
        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
        "excludeTools": ["delete_file"],
        "requestTimeoutMs": 30000,
    }
    assert found["remote"]["type"] == "http"
    assert found["remote"]["description"] == "The team's internal tools"
    assert found["events"] == {"type": "sse", "url": "https://events.example.com/sse"}
    assert found["scratch"]["disabled"] is True  # not in mcp.allowed
    assert "Google credentials" in skipped(reading)["gcp"]


def test_zed_skips_extension_servers_and_reads_the_legacy_nested_command(where: Where) -> None:
    reading = read("zed", "zed.settings.json", where)
    found = entries(reading)
    assert found["legacy-time"] == {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"]}
    assert found["remote"]["disabled"] is True
    assert "extension" in skipped(reading)["postgres-context-server"]


def test_cline_reads_flat_nested_and_legacy_transports_and_url_alone_means_sse(where: Where) -> None:
    reading = read("cline", "cline_mcp_settings.json", where)
    found = entries(reading)
    assert found["events"]["type"] == "sse"
    assert found["docs"] == {
        "type": "http",
        "url": "https://docs.example.com/mcp",
        "disabled": True,
        "requestTimeoutMs": 30000,
    }
    assert found["legacy"]["type"] == "http"
    assert found["github"]["requestTimeoutMs"] == 60000
    assert found["linear"] == {"type": "http", "url": "https://mcp.linear.app/mcp", "oauth": {"clientId": "cline"}}


def test_roo_skips_workspace_folder_in_the_global_file_but_resolves_it_in_a_project_file(where: Where) -> None:
    global_reading = read("roo", "roo.mcp_settings.json", where)
    assert "whatever folder is open" in skipped(global_reading)["filesystem"]
    assert entries(global_reading)["events"]["type"] == "sse"
    assert entries(global_reading)["context7"]["type"] == "http"
    project_reading = read("roo", "roo.mcp_settings.json", where, "project")
    assert entries(project_reading)["filesystem"]["args"] == [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        str(where.project),
    ]


def test_servers_keyed_format_resolves_transport_aliases_and_snake_case(where: Where) -> None:
    reading = read("servers-json", "servers.mcp.json", where)
    found = entries(reading)
    assert found["filesystem"]["connectTimeoutMs"] == 30000
    assert found["remote"]["type"] == "http"
    assert found["events"]["type"] == "sse"
    assert found["stream"]["type"] == "http"  # `transport` wins over `type`
    assert "websocket" in skipped(reading)["ws"]


def test_the_gateways_own_entry_is_never_imported(where: Where, tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(
        '{"mcpServers": {"mcp-gateway": {"command": "uvx"}, '
        '"renamed": {"command": "/opt/uv/bin/uvx", "args": ["--from", "mcp-meta-gateway", "mcp-gateway"]}, '
        '"other": {"command": "uvx", "args": ["mcp-gateway"]}}}'
    )
    client = find_client("cursor")
    assert client is not None
    reading = client.read(path, "user", where)
    assert [server.name for server in reading.servers if server.itself] == ["mcp-gateway", "renamed"]
    assert [server.name for server in reading.imported] == ["other"]  # PyPI's `mcp-gateway` is another project


def test_a_bad_entry_is_skipped_with_the_reason_and_the_others_still_import(where: Where, tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {"a": {"command": 3}, "b": "x", "c": {"url": "ftp://x"}, "d": {"command": "ok"}}}')
    client = find_client("cursor")
    assert client is not None
    reading = client.read(path, "user", where)
    assert skipped(reading) == {
        "a": "'command' is not a string",
        "b": "the entry is not an object",
        "c": "the gateway cannot use it: url: String should match pattern '^https?://'",
    }
    assert list(entries(reading)) == ["d"]


@pytest.mark.parametrize(
    ("client", "path"),
    [
        ("claude-code", ".claude.json"),
        ("claude-desktop", ".config/Claude/claude_desktop_config.json"),
        ("opencode", ".config/opencode/opencode.json"),
        ("cursor", ".cursor/mcp.json"),
        ("vscode", ".config/Code/User/mcp.json"),
        ("windsurf", ".codeium/windsurf/mcp_config.json"),
        ("codex", ".codex/config.toml"),
        ("gemini", ".gemini/settings.json"),
        ("zed", ".config/zed/settings.json"),
        ("cline", ".cline/data/settings/cline_mcp_settings.json"),
        ("roo", ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json"),
        ("servers-json", ".epoch/mcp.json"),
    ],
)
def test_each_client_looks_for_its_user_file_under_home_on_linux(client: str, path: str, where: Where) -> None:
    found = find_client(client)
    assert found is not None
    assert where.home / path in found.candidates(where, "user")


def test_claude_desktop_prefers_the_msix_copy_on_windows_and_the_library_folder_on_macos(tmp_path: Path) -> None:
    client = find_client("claude-desktop")
    assert client is not None
    package = tmp_path / "AppData" / "Local" / "Packages" / "Claude_pzs8sxrjxfjjc"
    package.mkdir(parents=True)
    windows = Where(home=tmp_path, project=tmp_path, platform="win32")
    assert client.candidates(windows, "user") == [
        package / "LocalCache" / "Roaming" / "Claude" / "claude_desktop_config.json",
        tmp_path / "AppData" / "Roaming" / "Claude" / "claude_desktop_config.json",
    ]
    macos = Where(home=tmp_path, project=tmp_path, platform="darwin")
    assert client.candidates(macos, "user") == [
        tmp_path / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    ]


def test_client_variables_move_their_files(tmp_path: Path) -> None:
    environ = {
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "CODEX_HOME": str(tmp_path / "codex"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "GEMINI_CLI_HOME": str(tmp_path / "gemini"),
        "APPDATA": str(tmp_path / "roaming"),
    }
    linux = Where(home=tmp_path / "home", project=tmp_path, environ=environ)
    expected = {
        "claude-code": tmp_path / "claude" / ".claude.json",
        "codex": tmp_path / "codex" / "config.toml",
        "zed": tmp_path / "xdg" / "zed" / "settings.json",
        "gemini": tmp_path / "gemini" / ".gemini" / "settings.json",
        "vscode": tmp_path / "xdg" / "Code" / "User" / "mcp.json",
    }
    for name, path in expected.items():
        client = find_client(name)
        assert client is not None
        assert client.candidates(linux, "user")[0] == path
    windows = Where(home=tmp_path / "home", project=tmp_path, environ=environ, platform="win32")
    vscode = find_client("vscode")
    assert vscode is not None
    assert vscode.candidates(windows, "user")[0] == tmp_path / "roaming" / "Code" / "User" / "mcp.json"


def test_the_gateway_run_as_a_python_module_is_recognised_as_itself(where: Where, tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {"gw": {"command": "/usr/bin/python3", "args": ["-m", "mcp_gateway"]}}}')
    client = find_client("claude-desktop")
    assert client is not None
    assert client.read(path, "user", where).has_gateway


@pytest.mark.parametrize("alias", ["claude", "vs-code", "gemini-cli", "roo-code", "epoch", "Codex"])
def test_client_names_have_the_aliases_people_type(alias: str) -> None:
    assert find_client(alias) is not None


@pytest.mark.parametrize("scope", ["user", "project"])
def test_a_relative_working_directory_is_the_projects_in_a_project_file_and_a_warning_in_a_user_file(
    where: Where, tmp_path: Path, scope: Scope
) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"mcpServers": {"tool": {"command": "node", "args": ["x.js"], "cwd": "tools/x"}}}')
    found = find_client("gemini")
    assert found is not None
    (server,) = found.read(path, scope, where).servers
    assert server.entry is not None
    if scope == "project":
        assert server.entry["cwd"] == str(where.project / "tools/x")
        assert not any("relative" in warning for warning in server.warnings)
    else:
        assert server.entry["cwd"] == "tools/x"
        assert any("its working directory 'tools/x' is relative" in warning for warning in server.warnings)
