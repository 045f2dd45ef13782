"""`ImportService`: import, detect and restore, and what each report says.

Every service gets a fake sign-in probe and a fixed clock: nothing here reaches the network or reads the
time, and nothing is patched.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
from importer_testing import INDEX_INSTALL, OFFLINE, STAMP, Answers, LaunchChecks, fixed_clock

from mcp_gateway.errors import ConfigError, ImportFailedError, ImportUsageError
from mcp_gateway.importing import Where
from mcp_gateway.importing.backups import BackedUpFile, BackupChoice, RestoreReport, RestoreRequest
from mcp_gateway.importing.reports import AskingForSignIns, ClientWrite, ImportReport, ImportRequest, NeededVariable
from mcp_gateway.importing.service import ImportService, Launching
from mcp_gateway.paths import Workspace

pytestmark = pytest.mark.anyio

LAUNCHING = Launching(INDEX_INSTALL, LaunchChecks())

LOCKED = "https://locked.example/mcp"
OPEN = "https://open.example/mcp"
SECRET = "sk-live-4f9aQ7bX2mZk8LpW3nR6tY1c"
CURSOR_SERVERS = {
    "locked": {"url": LOCKED},
    "open": {"type": "http", "url": OPEN},
    "tools": {"command": "tools-mcp", "env": {"API_KEY": SECRET, "REGION": "${env:REGION}"}},
    "prompted": {"command": "prompted-mcp", "env": {"TOKEN": "${input:token}"}},
}


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return Workspace(config_dir=tmp_path / "gateway", state_dir=tmp_path / "gateway")


@pytest.fixture
def where(tmp_path: Path) -> Where:
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    return Where(home=home, project=project, environ={"REGION": "eu", "PATH": str(empty_bin)}, platform="linux")


@pytest.fixture
def probe() -> Answers:
    return Answers({LOCKED: 401, OPEN: 200})


@pytest.fixture
def service(where: Where, workspace: Workspace, probe: Answers) -> ImportService:
    return ImportService(where=where, workspace=workspace, probe=probe, clock=fixed_clock, launching=LAUNCHING)


def cursor_file(where: Where, servers: dict[str, object] | None = None) -> Path:
    path = where.home / ".cursor" / "mcp.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": CURSOR_SERVERS if servers is None else servers}, indent=2))
    return path


async def write_back(service: ImportService) -> ImportReport:
    return await service.import_client(ImportRequest("cursor", write_client_config=True))


async def test_a_dry_run_reports_every_server_the_client_entry_and_the_variables_and_writes_nothing(
    service: ImportService, where: Where, workspace: Workspace, probe: Answers
) -> None:
    path = cursor_file(where)
    original = path.read_bytes()
    report = await service.import_client(ImportRequest("cursor", dry_run=True, write_client_config=True))

    assert (report.client.name, report.scope, report.path) == ("cursor", "user", path)
    outcomes = {server.name: server for server in report.servers}
    assert [server.name for server in report.servers] == list(CURSOR_SERVERS)
    assert outcomes["locked"].status == "added"  # marked as needing `mcp-gateway login`
    assert outcomes["locked"].entry is not None
    assert outcomes["locked"].entry["oauth"] == {}
    assert "without credentials it answered HTTP 401" in outcomes["locked"].notes[0]
    assert outcomes["open"].status == "added"
    assert outcomes["open"].notes == ("it sends no credentials and answered without them: no sign-in needed",)
    assert outcomes["tools"].status == "added"
    assert outcomes["tools"].entry is not None
    assert outcomes["tools"].entry["env"] == {"API_KEY": "***", "REGION": "${REGION}"}
    assert outcomes["prompted"].status == "skipped"
    assert "${input:token}" in str(outcomes["prompted"].reason)
    assert (report.count("added"), report.count("updated"), report.count("unchanged")) == (3, 0, 0)
    assert report.variables == (NeededVariable("REGION", set_here=True),)
    assert report.gateway_config == workspace.config_path

    entry = report.client_entry
    assert (entry.path, entry.block, entry.replaced, entry.kept) == (path, ("mcpServers",), 3, 1)
    assert entry.text.startswith('"mcp-gateway": {\n  "type": "stdio",')
    assert str(workspace.config_dir) in entry.text
    # This PATH has no uvx: the gateway, installed from the index, is started by its own path, which was tried.
    assert (entry.launcher, entry.start_problem, entry.warnings) == ("path", None, ())
    assert f'"command": "{INDEX_INSTALL.script}"' in entry.text

    assert SECRET not in repr(report)
    assert (report.config_write, report.client_write, report.write_failure) == (None, None, None)
    assert sorted(probe.asked) == [("http", LOCKED), ("http", OPEN)]
    assert not workspace.config_dir.exists()
    assert path.read_bytes() == original


async def test_the_sign_in_check_is_announced_with_the_number_of_servers_it_asks(
    service: ImportService, where: Where
) -> None:
    cursor_file(where)
    events: list[AskingForSignIns] = []
    await service.import_client(ImportRequest("cursor", dry_run=True), progress=events.append)
    assert events == [AskingForSignIns(servers=2)]


async def test_nothing_is_announced_when_no_server_needs_the_sign_in_check(
    service: ImportService, where: Where, probe: Answers
) -> None:
    cursor_file(where, {"tools": CURSOR_SERVERS["tools"]})
    events: list[AskingForSignIns] = []
    await service.import_client(ImportRequest("cursor", dry_run=True), progress=events.append)
    assert events == []
    assert probe.asked == []


async def test_write_back_writes_the_gateway_config_then_backs_up_and_rewrites_the_client(
    service: ImportService, where: Where, workspace: Workspace
) -> None:
    path = cursor_file(where)
    original = path.read_bytes()
    report = await write_back(service)

    assert report.config_write == "written"
    assert set(json.loads(workspace.config_path.read_text())["mcpServers"]) == {"locked", "open", "tools"}
    backup = path.with_name(f"mcp.json.mcp-gateway-backup-{STAMP}")  # named by the service's clock
    assert report.client_write == ClientWrite(path, backup, kept=1, versions=1)
    assert backup.read_bytes() == original
    assert set(json.loads(path.read_text())["mcpServers"]) == {"mcp-gateway", "prompted"}
    assert report.write_failure is None


async def test_a_second_write_back_finds_the_gateway_and_changes_nothing(
    service: ImportService, where: Where, workspace: Workspace
) -> None:
    path = cursor_file(where)
    await write_back(service)
    client_bytes, config_bytes = path.read_bytes(), workspace.config_path.read_bytes()

    again = await write_back(service)
    assert again.has_gateway
    assert not again.imported
    statuses = [(server.name, server.status) for server in again.servers]
    assert statuses == [("mcp-gateway", "gateway"), ("prompted", "skipped")]
    assert again.config_write is None
    assert again.client_write is not None
    assert again.client_write.backup is None
    assert (path.read_bytes(), workspace.config_path.read_bytes()) == (client_bytes, config_bytes)
    assert len(list(path.parent.glob("*.mcp-gateway-backup-*"))) == 1


async def test_an_import_that_adds_nothing_new_reports_the_config_unchanged(
    service: ImportService, where: Where, workspace: Workspace
) -> None:
    cursor_file(where)
    await service.import_client(ImportRequest("cursor"))
    config_bytes = workspace.config_path.read_bytes()
    again = await service.import_client(ImportRequest("cursor"))
    assert again.config_write == "unchanged"
    assert again.count("unchanged") == 3
    assert again.client_write is None
    assert workspace.config_path.read_bytes() == config_bytes


async def test_a_client_write_that_fails_is_reported_and_leaves_the_client_file_as_it_was(
    service: ImportService, where: Where, workspace: Workspace
) -> None:
    path = cursor_file(where)
    original = path.read_bytes()
    (path.parent / f".{path.name}.{os.getpid()}.tmp").mkdir()  # where the new text would be written first

    report = await write_back(service)
    assert report.config_write == "written"
    assert workspace.config_path.is_file()
    assert report.client_write is None
    assert report.write_failure is not None
    assert report.write_failure.startswith(f"{path}: cannot write it (")
    assert report.write_failure.endswith("); it is unchanged")
    assert path.read_bytes() == original


async def test_a_client_with_nothing_importable_is_reported_and_nothing_is_written(
    service: ImportService, where: Where, workspace: Workspace
) -> None:
    cursor_file(where, {"prompted": CURSOR_SERVERS["prompted"]})
    report = await write_back(service)
    assert not report.imported
    assert not report.has_gateway
    assert (report.config_write, report.client_write) == (None, None)
    assert not workspace.config_dir.exists()
    assert not list((where.home / ".cursor").glob("*backup*"))


async def test_a_request_the_client_cannot_take_is_a_usage_error(service: ImportService, where: Where) -> None:
    with pytest.raises(ImportUsageError, match="unknown client 'notepad'; use one of: claude-code, "):
        await service.import_client(ImportRequest("notepad"))
    with pytest.raises(ImportUsageError, match="Windsurf has no project scope; use one of: user"):
        await service.import_client(ImportRequest("windsurf", scope="project"))


async def test_a_missing_or_broken_file_is_a_config_error(
    service: ImportService, where: Where, workspace: Workspace
) -> None:
    with pytest.raises(ConfigError, match=r"no Cursor config found \(user scope\)"):
        await service.import_client(ImportRequest("cursor"))
    cursor_file(where)
    config = workspace.config_path
    config.parent.mkdir()
    config.write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        await service.import_client(ImportRequest("cursor"))


async def test_detection_lists_each_client_file_and_chooses_the_only_one_with_servers(
    service: ImportService, where: Where
) -> None:
    cursor_file(where)
    windsurf = where.home / ".codeium" / "windsurf" / "mcp_config.json"
    windsurf.parent.mkdir(parents=True)
    windsurf.write_text('{"mcpServers": {"mcp-gateway": {"command": "mcp-gateway"}}}')

    detection = await service.detect()
    found = {detected.client.name: detected for detected in detection.found}
    assert set(found) == {"cursor", "windsurf"}
    assert (found["cursor"].servers, found["cursor"].has_gateway) == (4, False)
    assert (found["windsurf"].servers, found["windsurf"].has_gateway) == (0, True)
    assert detection.chosen is not None
    assert detection.chosen.name == "cursor"

    windsurf.write_text('{"mcpServers": {"github": {"command": "github-mcp"}}}')
    assert (await service.detect()).chosen is None


async def test_restore_puts_the_newest_backup_back_and_keeps_the_version_it_replaces(
    service: ImportService, where: Where
) -> None:
    path = cursor_file(where)
    original = path.read_bytes()
    await write_back(service)
    rewritten = path.read_bytes()

    restored = await service.restore(RestoreRequest(client="cursor"))
    assert restored == RestoreReport(
        backup=path.with_name(f"mcp.json.mcp-gateway-backup-{STAMP}"),
        original=path,
        kept_current=path.with_name(f"mcp.json.mcp-gateway-before-restore-{STAMP}"),
        marked=(path.with_name(f"mcp.json.mcp-gateway-restored-{STAMP}"),),
        is_original=True,
    )
    assert path.read_bytes() == original
    assert path.with_name(f"mcp.json.mcp-gateway-before-restore-{STAMP}").read_bytes() == rewritten


async def test_restore_without_a_single_file_with_backups_returns_the_choice(
    service: ImportService, where: Where
) -> None:
    assert await service.restore(RestoreRequest()) == BackupChoice(files=())
    cursor = cursor_file(where)
    await write_back(service)
    windsurf = where.home / ".codeium" / "windsurf" / "mcp_config.json"
    windsurf.parent.mkdir(parents=True)
    windsurf.write_text('{"mcpServers": {"github": {"command": "github-mcp"}}}')
    await service.import_client(ImportRequest("windsurf", write_client_config=True))

    choice = await service.restore(RestoreRequest())
    assert isinstance(choice, BackupChoice)
    assert set(choice.files) == {
        BackedUpFile(cursor, cursor.with_name(f"mcp.json.mcp-gateway-backup-{STAMP}"), 1),
        BackedUpFile(windsurf, windsurf.with_name(f"mcp_config.json.mcp-gateway-backup-{STAMP}"), 1),
    }
    restored = await service.restore(RestoreRequest(client="windsurf"))
    assert isinstance(restored, RestoreReport)
    assert restored.original == windsurf


async def test_a_backup_named_as_printed_is_found_after_a_step_back_renamed_it(
    service: ImportService, where: Where
) -> None:
    path = cursor_file(where)
    original = path.read_bytes()
    report = await write_back(service)
    assert report.client_write is not None
    printed = report.client_write.backup
    assert printed is not None
    assert isinstance(await service.restore(RestoreRequest(client="cursor")), RestoreReport)
    assert not printed.exists()
    await write_back(service)
    again = await service.restore(RestoreRequest(backup=str(printed)))
    assert isinstance(again, RestoreReport)
    assert again.backup == path.with_name(f"mcp.json.mcp-gateway-restored-{STAMP}")
    assert path.read_bytes() == original


async def test_restoring_a_named_file_that_is_no_backup_or_is_gone_raises(service: ImportService, where: Where) -> None:
    with pytest.raises(ImportUsageError, match=r"notes\.txt is not a backup made by mcp-gateway import"):
        await service.restore(RestoreRequest(backup=str(where.home / "notes.txt")))
    gone = where.home / f"mcp.json.mcp-gateway-backup-{STAMP}"
    with pytest.raises(ImportFailedError, match="no such backup"):
        await service.restore(RestoreRequest(backup=str(gone)))
    with pytest.raises(ImportUsageError, match="unknown client 'notepad'"):
        await service.restore(RestoreRequest(client="notepad"))


async def test_an_offline_sign_in_check_imports_the_server_with_a_note(where: Where, workspace: Workspace) -> None:
    cursor_file(where, {"open": CURSOR_SERVERS["open"]})
    offline = ImportService(
        where=where, workspace=workspace, probe=Answers(default=OFFLINE), clock=fixed_clock, launching=LAUNCHING
    )
    report = await offline.import_client(ImportRequest("cursor", dry_run=True))
    [server] = report.servers
    assert server.status == "added"
    assert f"asking whether it needs a sign-in failed ({OFFLINE})" in server.notes[-1]


CONTEXT7_HTTP = {"type": "http", "url": "https://mcp.context7.com/mcp", "headers": {"CONTEXT7_API_KEY": SECRET}}
CODEX_CONFIG = """\
[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env_vars = ["GITHUB_TOKEN"]

[mcp_servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]
"""


async def test_a_later_client_never_replaces_a_same_named_server_with_another_definition(
    service: ImportService, where: Where, workspace: Workspace
) -> None:
    claude = where.home / ".claude.json"
    github = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}
    claude.write_text(json.dumps({"mcpServers": {"context7": CONTEXT7_HTTP, "github": github}}))
    await service.import_client(ImportRequest("claude-code", write_client_config=True))
    imported_from_claude = json.loads(workspace.config_path.read_text())["mcpServers"]
    codex = where.home / ".codex" / "config.toml"
    codex.parent.mkdir()
    codex.write_text(CODEX_CONFIG)

    report = await service.import_client(ImportRequest("codex", write_client_config=True))

    outcomes = {server.name: server for server in report.servers}
    assert {name: server.status for name, server in outcomes.items()} == {
        "context7": "conflict",
        "github": "conflict",
        "memory": "added",
    }
    assert outcomes["context7"].changed == ("type", "command", "args")
    assert outcomes["github"].changed == ("env",)
    assert str(outcomes["github"].reason).startswith("the gateway already has a 'github' with a different env, ")
    assert str(outcomes["github"].reason).endswith("import again with --replace")
    assert SECRET not in repr(report)
    servers = json.loads(workspace.config_path.read_text())["mcpServers"]
    assert {name: servers[name] for name in imported_from_claude} == imported_from_claude  # Claude's still work
    assert set(servers) == {"context7", "github", "memory"}
    codex_servers = tomllib.loads(codex.read_text())["mcp_servers"]
    assert set(codex_servers) == {"context7", "github", "mcp-gateway"}  # the conflicting ones stay in Codex
    assert codex_servers["github"] == tomllib.loads(CODEX_CONFIG)["mcp_servers"]["github"]

    config = json.loads(workspace.config_path.read_text())
    config["mcpServers"]["github"]["idleTimeout"] = 3  # made by hand since
    workspace.config_path.write_text(json.dumps(config))
    replaced = await service.import_client(ImportRequest("codex", replace=True))
    assert {server.name: server.status for server in replaced.servers} == {
        "context7": "updated",
        "github": "updated",
        "mcp-gateway": "gateway",
    }
    servers = json.loads(workspace.config_path.read_text())["mcpServers"]
    assert servers["github"]["env"] == {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}
    assert servers["github"]["idleTimeout"] == 3  # what was made by hand stays


async def test_a_later_import_brings_other_clients_gateway_entries_up_to_date_with_the_variables_now_needed(
    service: ImportService, where: Where, workspace: Workspace
) -> None:
    codex = where.home / ".codex" / "config.toml"
    codex.parent.mkdir()
    signs_in = '[mcp_servers.notion]\nurl = "https://mcp.notion.example/mcp"\nscopes = ["read"]\n'
    codex.write_text(f"{CODEX_CONFIG}\n{signs_in}")
    await service.import_client(ImportRequest("codex", write_client_config=True))
    codex_before = tomllib.loads(codex.read_text())["mcp_servers"]
    assert set(codex_before) == {"notion", "mcp-gateway"}  # OAuth: it stays in Codex
    assert codex_before["mcp-gateway"]["env_vars"] == ["GITHUB_TOKEN"]
    claude = where.home / ".claude.json"
    linear = {"type": "http", "url": "https://linear.example/mcp", "headers": {"Authorization": "Bearer ${LINEAR}"}}
    claude.write_text(json.dumps({"mcpServers": {"linear": linear}}))

    planned = await service.import_client(ImportRequest("claude-code", dry_run=True))
    assert [(r.client, r.path, r.missing, r.backup) for r in planned.refreshed] == [
        ("Codex CLI", codex, ("LINEAR",), None)
    ]
    assert tomllib.loads(codex.read_text())["mcp_servers"] == codex_before

    report = await service.import_client(ImportRequest("claude-code", write_client_config=True))

    [refresh] = report.refreshed
    assert (refresh.client, refresh.missing, refresh.failure) == ("Codex CLI", ("LINEAR",), None)
    assert refresh.backup is not None
    assert tomllib.loads(refresh.backup.read_text())["mcp_servers"] == codex_before
    codex_after = tomllib.loads(codex.read_text())["mcp_servers"]
    assert codex_after["mcp-gateway"]["env_vars"] == ["GITHUB_TOKEN", "LINEAR"]
    assert {k: v for k, v in codex_after["mcp-gateway"].items() if k != "env_vars"} == {
        k: v for k, v in codex_before["mcp-gateway"].items() if k != "env_vars"
    }
    assert {name: codex_after[name] for name in codex_before if name != "mcp-gateway"} == {
        name: codex_before[name] for name in codex_before if name != "mcp-gateway"
    }

    again = await service.import_client(ImportRequest("claude-code", write_client_config=True))
    assert again.refreshed == ()  # up to date now: nothing more is rewritten


async def test_gemini_gateway_entries_for_other_workspaces_are_left_alone_and_this_ones_updated(
    service: ImportService, where: Where, workspace: Workspace
) -> None:
    def gemini_entry(home: Path) -> dict[str, object]:
        return {"command": "uvx", "args": ["--from", "mcp-meta-gateway", "mcp-gateway"],
                "env": {"MCP_GATEWAY_HOME": str(home), "DEBUG": "1", "A": "$A"}}  # fmt: skip

    user_settings = where.home / ".gemini" / "settings.json"
    project_settings = where.project / ".gemini" / "settings.json"
    for path, home in ((user_settings, workspace.config_dir), (project_settings, where.home / "elsewhere")):
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({"mcpServers": {"mcp-gateway": gemini_entry(home)}}, indent=2))
    project_text = project_settings.read_text()
    claude = where.home / ".claude.json"
    claude.write_text(json.dumps({"mcpServers": {"b": {"command": "b-mcp", "env": {"B": "${B}"}}}}))

    report = await service.import_client(ImportRequest("claude-code"))

    assert [(r.client, r.path, r.missing) for r in report.refreshed] == [("Gemini CLI", user_settings, ("B",))]
    entry = json.loads(user_settings.read_text())["mcpServers"]["mcp-gateway"]
    assert entry["env"] == {"MCP_GATEWAY_HOME": str(workspace.config_dir), "DEBUG": "1", "A": "$A", "B": "$B"}
    assert entry["command"] == "uvx"
    assert project_settings.read_text() == project_text  # its gateway serves another workspace
