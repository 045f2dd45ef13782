"""A server a client keeps turned off is imported disabled, whichever way the client says so, and never contacted.

Every client's own switch (reference `client-configs.md` §1.1): Claude Code's per-project `disabledMcpServers` and
`disabledMcpjsonServers` (there is no per-entry flag, but `"disabled": true` is honoured as people write it),
`"disabled": true` in Cursor, VS Code, Claude Desktop, Windsurf, Cline, Roo and epoch files, `"enabled": false` in
OpenCode, Zed and epoch files, `enabled = false` in Codex, and Gemini CLI's `mcp.excluded`, `mcp.allowed` and
`gemini mcp disable` (`mcp-server-enablement.json`). After write-back, Claude Code's lists no longer name a server
that moved into the gateway (which keeps it off itself).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from importer_testing import GATEWAY_HOME, Answers

from mcp_gateway.importing import Where
from mcp_gateway.importing.clients import ClientReading, Launch, Scope, find_client
from mcp_gateway.importing.sign_in import screen_sign_ins

ON = {"command": "npx", "args": ["-y", "server-on"]}
OFF = {"command": "npx", "args": ["-y", "server-off"]}
LAUNCH = Launch("/opt/bin/mcp-gateway", (), {"MCP_GATEWAY_HOME": GATEWAY_HOME})


def read(client: str, path: Path, where: Where, scope: Scope = "user") -> ClientReading:
    found = find_client(client)
    assert found is not None
    return found.read(path, scope, where)


def write(path: Path, document: dict[str, Any] | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document if isinstance(document, str) else json.dumps(document, indent=2))
    return path


def disabled(reading: ClientReading) -> dict[str, bool]:
    return {server.name: bool(server.entry and server.entry.get("disabled")) for server in reading.servers}


def note_of(reading: ClientReading, name: str) -> str:
    [server] = [server for server in reading.servers if server.name == name]
    [note] = [warning for warning in server.warnings if "turned off" in warning]
    return note


@pytest.mark.parametrize(
    ("client", "file", "off"),
    [
        ("claude-code", ".claude.json", {"disabled": True}),
        ("claude-desktop", ".config/Claude/claude_desktop_config.json", {"disabled": True}),
        ("cursor", ".cursor/mcp.json", {"disabled": True}),
        ("windsurf", ".codeium/windsurf/mcp_config.json", {"disabled": True}),
        ("cline", ".cline/data/settings/cline_mcp_settings.json", {"disabled": True}),
        ("roo", ".roo/mcp.json", {"disabled": True}),
        ("gemini", ".gemini/settings.json", {"disabled": True}),
    ],
)
def test_a_disabled_entry_of_an_mcp_servers_file_is_imported_disabled_with_a_note(
    client: str, file: str, off: dict[str, Any], where: Where
) -> None:
    path = write(where.home / file, {"mcpServers": {"on": ON, "off": {**OFF, **off}}})
    reading = read(client, path, where)
    assert disabled(reading) == {"on": False, "off": True}
    assert "`mcp-gateway config enable off` turns it on" in note_of(reading, "off")
    assert 'its entry says "disabled": true' in note_of(reading, "off")


def test_vscode_and_epoch_entries_say_it_their_way(where: Where) -> None:
    vscode = write(where.home / "vscode.json", {"servers": {"on": ON, "off": {**OFF, "disabled": True}}})
    epoch = write(where.home / "epoch.json", {"servers": {"on": ON, "off": {**OFF, "enabled": False}}})
    assert disabled(read("vscode", vscode, where)) == {"on": False, "off": True}
    assert disabled(read("servers-json", epoch, where)) == {"on": False, "off": True}
    assert 'its entry says "enabled": false' in note_of(read("servers-json", epoch, where), "off")


def test_opencode_and_zed_say_enabled_false(where: Where) -> None:
    opencode = write(
        where.home / "opencode.json",
        '{"mcp": {"on": {"type": "local", "command": ["npx", "on"]},\n'
        '  "off": {"type": "local", "command": ["npx", "off"], "enabled": false}}}',
    )
    zed = write(where.home / "zed.json", {"context_servers": {"on": ON, "off": {**OFF, "enabled": False}}})
    assert disabled(read("opencode", opencode, where)) == {"on": False, "off": True}
    assert disabled(read("zed", zed, where)) == {"on": False, "off": True}


def test_codex_says_enabled_false_in_toml(where: Where) -> None:
    path = write(
        where.home / ".codex/config.toml",
        '[mcp_servers.on]\ncommand = "npx"\n\n[mcp_servers.off]\ncommand = "npx"\nenabled = false\n',
    )
    assert disabled(read("codex", path, where)) == {"on": False, "off": True}


def test_gemini_keeps_servers_off_by_its_lists_and_by_gemini_mcp_disable_matching_names_as_it_does(
    where: Where,
) -> None:
    servers = {"on": ON, "Excluded": OFF, "unlisted": OFF, "Toggled": OFF}
    settings = {"mcp": {"excluded": ["excluded"], "allowed": ["on", "excluded", "toggled"]}, "mcpServers": servers}
    path = write(where.home / ".gemini/settings.json", settings)
    write(where.home / ".gemini/mcp-server-enablement.json", {"toggled": {"enabled": False}, "on": {"enabled": True}})
    reading = read("gemini", path, where)
    assert disabled(reading) == {"on": False, "Excluded": True, "unlisted": True, "Toggled": True}
    assert "mcp.excluded" in note_of(reading, "Excluded")
    assert "mcp.allowed leaves it out" in note_of(reading, "unlisted")
    assert "`gemini mcp disable`" in note_of(reading, "Toggled")


def claude_state(where: Where) -> Path:
    """`~/.claude.json` with user servers, two projects, and the /mcp menu's switch used in both."""
    document = {
        "numStartups": 4,
        "mcpServers": {"github": ON, "fetch": ON, "memory": ON, "manual": {**OFF, "disabled": True}},
        "projects": {
            str(where.project): {
                "disabledMcpServers": ["github", "shop-db", "other"],
                "mcpServers": {"shop-db": OFF, "shop-cache": ON},
            },
            "/home/me/elsewhere": {"disabledMcpServers": ["fetch", "memory"], "mcpServers": {"memory": ON}},
        },
    }
    return write(where.home / ".claude.json", document)


def test_claude_code_user_scope_imports_servers_turned_off_in_any_project_disabled(where: Where) -> None:
    reading = read("claude-code", claude_state(where), where)
    assert disabled(reading) == {"github": True, "fetch": True, "memory": True, "manual": True}
    assert f"disabledMcpServers of {where.project}" in note_of(reading, "github")
    assert "disabledMcpServers of /home/me/elsewhere" in note_of(reading, "fetch")


def test_claude_code_local_scope_reads_its_own_projects_switch(where: Where) -> None:
    reading = read("claude-code", claude_state(where), where, "local")
    assert disabled(reading) == {"shop-db": True, "shop-cache": False}


def test_claude_code_project_scope_honours_declined_mcp_json_servers_wherever_claude_code_keeps_them(
    where: Where,
) -> None:
    state = {"projects": {str(where.project): {"disabledMcpServers": ["toggled"], "disabledMcpjsonServers": ["old"]}}}
    write(where.home / ".claude.json", state)
    write(where.project / ".claude/settings.local.json", {"disabledMcpjsonServers": ["declined"]})
    write(where.home / ".claude/settings.json", {"disabledMcpjsonServers": ["everywhere"]})
    names = ("on", "toggled", "old", "declined", "everywhere")
    path = write(where.project / ".mcp.json", {"mcpServers": dict.fromkeys(names, ON)})
    reading = read("claude-code", path, where, "project")
    assert disabled(reading) == {"on": False, "toggled": True, "old": True, "declined": True, "everywhere": True}
    assert "settings.local.json" in note_of(reading, "declined")


def test_claude_code_write_back_drops_moved_servers_from_every_projects_switch_unless_one_is_still_there(
    where: Where,
) -> None:
    path = claude_state(where)
    client = find_client("claude-code")
    assert client is not None
    after = json.loads(client.rewrite(read("claude-code", path, where), LAUNCH))
    projects = after["projects"]
    # github moved into the gateway (off there); shop-db is still a local server here; "other" was no server of ours.
    assert projects[str(where.project)]["disabledMcpServers"] == ["shop-db", "other"]
    # memory is still a local server of that project: its switch still means something there.
    assert projects["/home/me/elsewhere"]["disabledMcpServers"] == ["memory"]
    assert after["numStartups"] == 4

    local = json.loads(client.rewrite(read("claude-code", path, where, "local"), LAUNCH))
    assert local["projects"][str(where.project)]["disabledMcpServers"] == ["github", "other"]
    assert local["projects"]["/home/me/elsewhere"]["disabledMcpServers"] == ["fetch", "memory"]


def test_a_disabled_remote_server_is_not_asked_whether_it_needs_a_sign_in(where: Where) -> None:
    servers = {
        "docs": {"type": "http", "url": "https://docs.example/mcp"},
        "old": {"type": "http", "url": "https://old.example/mcp", "disabled": True},
    }
    reading = read("claude-code", write(where.home / ".claude.json", {"mcpServers": servers}), where)
    probe = Answers(default=401)
    screened = anyio.run(lambda: screen_sign_ins(reading, "Claude Code", probe=probe, environ={}))
    assert probe.asked == [("http", "https://docs.example/mcp")]
    entries = {server.name: server.entry for server in screened.servers}
    assert entries["docs"] is not None
    assert entries["docs"]["oauth"] == {}
    assert entries["old"] == {"type": "http", "url": "https://old.example/mcp", "disabled": True}
