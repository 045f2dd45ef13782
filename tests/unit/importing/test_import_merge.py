"""Merging into the gateway's config.json: add, update connection fields, keep hand-made fields, no-op re-runs."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from mcp_gateway.config import load_config
from mcp_gateway.importing.clients import ImportedServer
from mcp_gateway.importing.merge import candidate_aliases, plan_merge, seed_aliases, write_plan

GITHUB = ImportedServer(
    "github-mcp-server",
    entry={"type": "stdio", "command": "npx", "args": ["-y", "gh"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
)
DOCS = ImportedServer("docs", entry={"type": "http", "url": "https://docs.example.com/mcp"})
SKIPPED = ImportedServer("linear", skipped="it signs in with OAuth")


def test_a_missing_config_is_created_0600_with_the_servers_and_seeded_aliases(tmp_path: Path) -> None:
    path = tmp_path / "gw" / "config.json"
    plan = plan_merge(path, [GITHUB, DOCS, SKIPPED])
    assert [(o.name, o.status) for o in plan.outcomes] == [("github-mcp-server", "added"), ("docs", "added")]
    write_plan(plan)
    document = json.loads(path.read_text())
    assert document["version"] == 1
    assert GITHUB.entry is not None
    assert document["mcpServers"] == {
        "github-mcp-server": {**GITHUB.entry, "aliases": ["github"]},
        "docs": DOCS.entry,
    }
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    config = load_config(path, environ={"GITHUB_TOKEN": "t"}, create_missing=False)
    assert set(config.servers) == {"github-mcp-server", "docs"}
    assert not [d for d in config.diagnostics if d.severity == "error"]


def test_re_running_the_same_import_leaves_the_file_byte_identical(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    write_plan(plan_merge(path, [GITHUB, DOCS]))
    before = path.read_bytes()
    again = plan_merge(path, [GITHUB, DOCS])
    assert not again.changed
    assert [o.status for o in again.outcomes] == ["unchanged", "unchanged"]
    write_plan(again)
    assert path.read_bytes() == before


def test_an_update_changes_connection_fields_and_keeps_hand_made_ones_and_the_files_spelling(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    hand_made = {
        "transport": "stdio",
        "command": "node",
        "args": ["old.js"],
        "env": {"OLD": "1"},
        "aliases": ["gh", "代码仓库"],
        "lifecycle": "keep-alive",
        "idle_timeout": 5,
        "exclude_tools": ["delete_*"],
        "requestTimeoutMs": 1000,
        "disabled": True,
    }
    path.write_text(json.dumps({"version": 1, "mcpServers": {"github-mcp-server": hand_made}}, indent=4))
    plan = plan_merge(path, [GITHUB], replace=True)
    (outcome,) = plan.outcomes
    assert outcome.status == "updated"
    assert outcome.changed == ("command", "args", "env")
    assert outcome.entry == {
        **hand_made,
        "command": "npx",
        "args": ["-y", "gh"],
        "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"},
    }
    assert plan.text.startswith('{\n    "version": 1,\n    "mcpServers": {\n        "github-mcp-server": {\n')


def test_a_transport_change_drops_the_old_transports_fields(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    old = {"command": "npx", "args": ["x"], "cwd": "/srv", "inheritEnv": False, "aliases": ["d"]}
    path.write_text(json.dumps({"mcpServers": {"docs": old}}))
    (outcome,) = plan_merge(path, [DOCS], replace=True).outcomes
    assert outcome.entry == {"type": "http", "url": "https://docs.example.com/mcp", "aliases": ["d"]}


def test_a_server_the_gateway_has_with_another_connection_is_a_conflict_and_nothing_of_it_changes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.json"
    theirs = {"type": "http", "url": "https://docs.example.com/mcp", "headers": {"X-Key": "k"}, "connectTimeoutMs": 9}
    text = json.dumps({"mcpServers": {"docs": theirs}}, indent=2)
    path.write_text(text)
    stdio_variant = ImportedServer("docs", entry={"command": "npx", "args": ["-y", "docs-mcp"]})
    plan = plan_merge(path, [stdio_variant, GITHUB])
    conflict, added = plan.outcomes
    assert (conflict.status, conflict.entry, conflict.changed) == ("conflict", theirs, ("type", "command", "args"))
    assert plan.conflicts == (conflict,)
    assert added.status == "added"
    assert json.loads(plan.text)["mcpServers"]["docs"] == theirs
    assert plan.text.startswith(text[: text.index('"connectTimeoutMs": 9') + 21])


def test_the_same_definition_again_is_unchanged_whatever_the_gateway_added_around_it(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    assert DOCS.entry is not None
    path.write_text(json.dumps({"mcpServers": {"docs": {**DOCS.entry, "aliases": ["d"], "connectTimeoutMs": 9}}}))
    plan = plan_merge(path, [DOCS])
    assert [outcome.status for outcome in plan.outcomes] == ["unchanged"]
    assert not plan.changed


def test_a_cwd_the_client_cannot_express_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    assert GITHUB.entry is not None
    path.write_text(json.dumps({"mcpServers": {"github-mcp-server": {**GITHUB.entry, "cwd": "/srv"}}}))
    assert not plan_merge(path, [GITHUB]).changed


def test_the_servers_alias_key_of_a_hand_written_config_is_used(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"servers": {"a": {"command": "x"}}}')
    plan = plan_merge(path, [DOCS])
    assert json.loads(plan.text) == {"servers": {"a": {"command": "x"}, "docs": DOCS.entry}}


def test_other_servers_and_settings_keep_their_exact_text(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    text = (
        '{\n  "settings": {"idleTimeout": 3},\n  "mcpServers": {\n'
        '    "mine": {"command": "x", "aliases": ["m"]}\n  }\n}\n'
    )
    path.write_text(text)
    plan = plan_merge(path, [DOCS])
    assert plan.text == (
        '{\n  "settings": {"idleTimeout": 3},\n  "mcpServers": {\n    "mine": {"command": "x", "aliases": ["m"]},\n'
        '    "docs": {"type": "http", "url": "https://docs.example.com/mcp"}\n  }\n}\n'
    )


def test_candidate_aliases_are_the_meaningful_words_of_the_key() -> None:
    assert candidate_aliases("github-mcp-server") == ["github"]
    assert candidate_aliases("google-calendar") == ["google", "calendar"]
    assert candidate_aliases("brave_search") == ["brave"]
    assert candidate_aliases("mcpServerPlaywright") == ["playwright"]
    assert candidate_aliases("github") == []


def test_seeded_aliases_never_name_two_servers() -> None:
    seeded = seed_aliases(["google-calendar", "google-drive", "slack-mcp"], taken=["slack", "calendar-app"])
    assert seeded == {"google-calendar": ["calendar"], "google-drive": ["drive"], "slack-mcp": []}


def test_a_snake_case_servers_key_is_merged_into_not_duplicated(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"mcp_servers": {"a": {"command": "x"}}}')
    assert json.loads(plan_merge(path, [DOCS]).text) == {"mcp_servers": {"a": {"command": "x"}, "docs": DOCS.entry}}
