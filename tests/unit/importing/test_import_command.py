"""`mcp-gateway import` as a user runs it: detection, dry run, import, write-back, restore, exit codes.

The command runs in-process with a fake sign-in probe, a fixed clock and a gateway installed from the index
whose launch check starts nothing, handed to it as `main` hands it the real ones; `User.run_main` goes
through `main` itself, for the commands that never reach them.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from importer_testing import (
    CHECKOUT_INSTALL,
    INDEX_INSTALL,
    OFFLINE,
    STAMP,
    Answers,
    InstallSample,
    LaunchChecks,
    fixed_clock,
)

from mcp_gateway.cli import main
from mcp_gateway.cli.importing import run_import
from mcp_gateway.cli.main import build_parser
from mcp_gateway.errors import GatewayError
from mcp_gateway.importing.launch import LAUNCHERS
from mcp_gateway.importing.service import Launching

CLIENT_VARIABLES = (
    "MCP_GATEWAY_HOME",
    "CLAUDE_CONFIG_DIR",
    "XDG_CONFIG_HOME",
    "OPENCODE_CONFIG",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "CLINE_DIR",
    "CLINE_DATA_DIR",
    "CLINE_MCP_SETTINGS_PATH",
    "EPOCH_HOME",
    "GITHUB_TOKEN",
)


class User:
    """A scratch HOME, project and gateway home, with `mcp-gateway import …` run in-process."""

    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str], probe: Answers) -> None:
        self.probe = probe
        self.checks = LaunchChecks()
        self.installation = INDEX_INSTALL
        self.home = root / "home"
        self.project = root / "project"
        self.gateway = root / "gateway"
        self.bin = root / "bin"
        for directory in (self.home, self.project, self.bin):
            directory.mkdir()
        self.capsys = capsys

    def servers(self) -> set[str]:
        """The server keys in the gateway's config.json."""
        return set(json.loads((self.gateway / "config.json").read_text())["mcpServers"])

    def run(self, *args: str) -> tuple[int, str, str]:
        """The import command with this user's probe and the fixed clock; an error is shown as `main` does."""
        parsed = build_parser().parse_args(["--home", str(self.gateway), "import", *args])
        try:
            launching = Launching(self.installation, self.checks)
            code = run_import(parsed, probe=self.probe, clock=fixed_clock, launching=launching)
        except GatewayError as error:
            print(f"mcp-gateway: {error.message}", file=sys.stderr)
            code = error.exit_code
        captured = self.capsys.readouterr()
        return code, captured.out, captured.err

    def run_main(self, *args: str) -> tuple[int, str, str]:
        """`mcp-gateway import …` through `main`, with the real probe and clock: only for runs that use neither."""
        code = main(["--home", str(self.gateway), "import", *args])
        captured = self.capsys.readouterr()
        return code, captured.out, captured.err

    def put_uvx_on_path(self) -> Path:
        uvx = self.bin / "uvx"
        uvx.write_text("#!/bin/sh\n")
        uvx.chmod(0o755)
        return uvx


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> User:
    created = User(tmp_path, capsys, Answers(default=OFFLINE))
    monkeypatch.setenv("HOME", str(created.home))
    monkeypatch.setenv("PATH", str(created.bin))
    for name in CLIENT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(created.project)
    return created


def test_dry_run_shows_each_server_the_entries_and_the_client_entry_with_secrets_masked(
    user: User, install_sample: InstallSample
) -> None:
    install_sample("claude_code.claude.json", user.home / ".claude.json")
    user.put_uvx_on_path()
    code, out, _ = user.run("--client", "claude-code", "--dry-run")
    assert code == 0
    assert "  github: imported (new in the gateway)\n" in out
    assert '"env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}' in out
    assert '"headers": {"Authorization": "Bearer ***"}' in out
    assert "sntrys_" not in out
    assert "  linear: imported (new in the gateway)\n" in out
    assert "    note: it signs in with OAuth in Claude Code; the gateway cannot reuse that sign-in" in out
    assert '"oauth": {"clientId": "claude-code", "redirectPort": 8765}' in out
    assert " login linear\n" in out
    assert "it stays in Claude Code as it is" in out
    assert "GITHUB_TOKEN (not set in this shell)" in out
    assert '  "mcp-gateway": {\n    "type": "stdio",\n    "command": "uvx",' in out
    assert f'"MCP_GATEWAY_HOME": "{user.gateway}"' in out
    assert '"alwaysLoad": true' in out
    assert "Launcher: uvx (this gateway was installed from the package index)." in out
    assert "Checked: the entry's command starts the gateway." in out
    assert "Dry run: nothing was written." in out
    assert not user.gateway.exists()
    assert not list(user.home.glob("*.mcp-gateway-backup-*"))


def test_import_write_back_second_run_and_restore_round_trip(user: User, install_sample: InstallSample) -> None:
    claude = install_sample("claude_code.claude.json", user.home / ".claude.json")
    original = claude.read_bytes()
    code, out, _ = user.run("--client", "claude-code", "--write-client-config")
    assert code == 0, out
    assert user.servers() == {"github", "sentry", "memory", "linear"}
    written = json.loads(claude.read_text())
    assert set(written["mcpServers"]) == {"mcp-gateway", "internal-api"}
    assert written["projects"] == json.loads(original)["projects"]
    (backup,) = user.home.glob(".claude.json.mcp-gateway-backup-*")
    assert backup.read_bytes() == original
    assert f"Undo: mcp-gateway import --restore {backup}" in out

    config_before = (user.gateway / "config.json").read_bytes()
    client_before = claude.read_bytes()
    code, out, _ = user.run("--client", "claude-code", "--write-client-config")
    assert code == 0
    assert "already starts the gateway; nothing left to import" in out
    assert (user.gateway / "config.json").read_bytes() == config_before
    assert claude.read_bytes() == client_before
    assert len(list(user.home.glob(".claude.json.mcp-gateway-backup-*"))) == 1

    code, out, _ = user.run("--restore", "--client", "claude-code")
    assert code == 0
    assert claude.read_bytes() == original


def test_without_client_one_detected_config_is_imported(user: User, install_sample: InstallSample) -> None:
    install_sample("opencode.jsonc", user.home / ".config" / "opencode" / "opencode.jsonc")
    code, out, _ = user.run("--dry-run")
    assert code == 0
    assert "Detected client configs:\n  opencode" in out
    assert "Importing from OpenCode." in out


def test_without_client_several_detected_configs_ask_for_one(user: User, install_sample: InstallSample) -> None:
    install_sample("opencode.jsonc", user.home / ".config" / "opencode" / "opencode.jsonc")
    install_sample("codex.config.toml", user.home / ".codex" / "config.toml")
    code, out, err = user.run()
    assert code == 2
    assert "opencode" in out
    assert "codex" in out
    assert "choose one with --client NAME" in err
    assert not user.gateway.exists()


def test_without_client_and_no_configs_import_fails(user: User) -> None:
    code, _, err = user.run_main()
    assert code == 1
    assert "found no client config with servers" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--client", "notepad"], "unknown client 'notepad'"),
        (["--client", "windsurf", "--scope", "project"], "Windsurf has no project scope"),
        (["--from", "x.json"], "--from needs --client"),
    ],
)
def test_usage_errors_exit_2(user: User, args: list[str], message: str) -> None:
    code, _, err = user.run_main(*args)
    assert code == 2
    assert message in err


def test_an_unreadable_client_file_exits_1_and_names_the_place(user: User) -> None:
    (user.home / ".cursor").mkdir()
    (user.home / ".cursor" / "mcp.json").write_text('{"mcpServers": {"a": {"command": "x"},, }}')
    code, _, err = user.run("--client", "cursor")
    assert code == 1
    assert "mcp.json: not valid JSON: line 1, column 39: expected a quoted key" in err


def test_a_client_with_only_unimportable_servers_exits_1(user: User) -> None:
    (user.project / ".vscode").mkdir()
    (user.project / ".vscode" / "mcp.json").write_text('{"servers": {"p": {"type": "stdio", "command": "${input:x}"}}}')
    code, out, _ = user.run("--client", "vscode", "--scope", "project", "--write-client-config")
    assert code == 1
    assert "Nothing could be imported" in out
    assert not list((user.project / ".vscode").glob("*backup*"))


def cursor_with_remotes(user: User) -> Path:
    """Cursor's file with two remote servers that send no credentials, and the probe's answers for them."""
    path = user.home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    servers = {"locked": {"url": "https://locked.example/mcp"}, "open": {"url": "https://open.example/mcp"}}
    path.write_text(json.dumps({"mcpServers": servers}))
    user.probe.answers.update({"https://locked.example/mcp": 401, "https://open.example/mcp": 200})
    return path


def test_the_sign_in_check_is_announced_on_stderr_and_the_probes_answers_decide(user: User) -> None:
    cursor_with_remotes(user)
    code, out, err = user.run("--client", "cursor", "--dry-run")
    assert code == 0
    assert err == "Asking 2 remote servers without credentials whether each needs a sign-in…\n"
    assert "  locked: imported (new in the gateway)\n" in out
    assert "    note: it signs in with OAuth (without credentials it answered HTTP 401); " in out
    assert '"oauth": {}' in next(line for line in out.splitlines() if "gateway entry" in line and "locked" in line)
    assert "Sign in to it once, in a terminal" in out
    assert "\n  mcp-gateway --home " in out
    assert " login locked\n" in out
    assert "  open: imported (new in the gateway)\n" in out
    assert "    note: it sends no credentials and answered without them: no sign-in needed\n" in out
    assert sorted(user.probe.asked) == [("http", "https://locked.example/mcp"), ("http", "https://open.example/mcp")]
    contacted = next(line for line in out.splitlines() if line.startswith("Contacted"))
    assert "to see whether each needs a sign-in" in contacted
    assert "https://locked.example/mcp" in contacted
    assert "https://open.example/mcp" in contacted


def test_no_probe_asks_no_server_and_says_what_is_unknown(user: User) -> None:
    cursor_with_remotes(user)
    code, out, err = user.run("--client", "cursor", "--dry-run", "--no-probe")
    assert code == 0
    assert user.probe.asked == []
    assert err == ""
    assert "Contacted" not in out
    assert (
        "Not contacted (--no-probe): https://locked.example/mcp, https://open.example/mcp; whether each needs a "
        "sign-in is unknown, see its note\n"
    ) in out
    assert "  locked: imported (new in the gateway)\n" in out
    assert out.count("note: it sends no credentials, and it was not asked whether it needs a sign-in (--no-probe)") == 2


def test_a_url_password_reported_back_by_a_failed_probe_is_masked(user: User) -> None:
    path = user.home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    url = "https://me:hunter22@down.example/mcp?token=abc123&team=core"
    path.write_text(json.dumps({"mcpServers": {"down": {"url": url}}}))
    user.probe.answers[url] = f"All connection attempts failed for {url}"
    code, out, _ = user.run("--client", "cursor", "--dry-run")
    assert code == 0
    assert "hunter22" not in out
    assert "abc123" not in out
    assert "https://me:***@down.example/mcp?token=***&team=core" in out
    assert "asking whether it needs a sign-in failed (All connection attempts failed for https://me:***@" in out


def test_an_import_says_what_is_left_to_do_and_the_backup_carries_the_clocks_time(user: User) -> None:
    path = cursor_with_remotes(user)
    code, out, _ = user.run("--client", "cursor", "--dry-run")
    assert code == 0
    assert out.endswith(
        f"Sign in to it once, in a terminal (the gateway cannot reuse Cursor's sign-in):\n"
        f"  mcp-gateway --home {user.gateway} login locked\n"
        "Dry run: nothing was written.\nNext: mcp-gateway import --client cursor --scope user --write-client-config\n"
    )
    code, out, _ = user.run("--client", "cursor")
    assert code == 0
    assert f"Wrote {user.gateway / 'config.json'}.\n" in out
    assert "Cursor still starts its servers itself; add --write-client-config to point it at the gateway.\n" in out
    assert out.endswith(
        f"Check the servers: mcp-gateway --home {user.gateway} refresh (starts each once and caches its tools), "
        "then status.\n"
    )
    code, out, _ = user.run("--client", "cursor", "--write-client-config")
    assert code == 0
    assert f"{user.gateway / 'config.json'} already had every server; left unchanged.\n" in out
    assert f"Undo: mcp-gateway import --restore {path}.mcp-gateway-backup-{STAMP}\n" in out
    assert f"Rewrote {path}: its servers are now 'mcp-gateway'.\n" in out


def test_a_client_file_that_cannot_be_written_exits_1_after_saying_what_was_written(user: User) -> None:
    path = cursor_with_remotes(user)
    original = path.read_bytes()
    (path.parent / f".{path.name}.{os.getpid()}.tmp").mkdir()  # where the new text would be written first
    code, out, err = user.run("--client", "cursor", "--write-client-config")
    assert code == 1
    assert out.endswith(f"Wrote {user.gateway / 'config.json'}.\n")
    assert err.endswith(f"mcp-gateway: {path}: cannot write it (Is a directory); it is unchanged\n")
    assert path.read_bytes() == original


def test_gui_clients_get_the_absolute_uvx_path(user: User, install_sample: InstallSample) -> None:
    install_sample("cursor.mcp.json", user.home / ".cursor" / "mcp.json")
    uvx = user.put_uvx_on_path()
    code, out, _ = user.run("--client", "cursor", "--write-client-config")
    assert code == 0
    written = json.loads((user.home / ".cursor" / "mcp.json").read_text())
    assert written["mcpServers"]["mcp-gateway"]["command"] == str(uvx)
    assert "warning" not in out


def test_without_uvx_an_index_install_is_started_by_its_own_path(user: User, install_sample: InstallSample) -> None:
    install_sample("cursor.mcp.json", user.home / ".cursor" / "mcp.json")
    code, out, _ = user.run("--client", "cursor", "--write-client-config")
    assert code == 0
    assert "Launcher: path (uvx is not on this PATH" in out
    entry = json.loads((user.home / ".cursor" / "mcp.json").read_text())["mcpServers"]["mcp-gateway"]
    assert (entry["command"], entry["args"]) == (str(INDEX_INSTALL.script), [])


@pytest.mark.parametrize("client", ["claude-code", "cursor"])
def test_asking_for_uvx_without_uvx_warns_for_every_client(
    user: User, install_sample: InstallSample, client: str
) -> None:
    install_sample("claude_code.claude.json", user.home / ".claude.json")
    install_sample("cursor.mcp.json", user.home / ".cursor" / "mcp.json")
    code, out, _ = user.run("--client", client, "--launcher", "uvx", "--dry-run")
    assert code == 0
    assert "Launcher: uvx (asked for)." in out
    assert "cannot start the gateway with this entry: install uv (https://docs.astral.sh/uv/)" in out


def test_a_checkout_install_is_started_by_its_own_path_unless_uvx_is_asked_for(
    user: User, install_sample: InstallSample
) -> None:
    install_sample("claude_code.claude.json", user.home / ".claude.json")
    user.put_uvx_on_path()
    user.installation = CHECKOUT_INSTALL
    code, out, _ = user.run("--client", "claude-code", "--write-client-config")
    assert code == 0
    assert "Launcher: path (this gateway was installed from /src/mcp-gateway, not from the package index)." in out
    entry = json.loads((user.home / ".claude.json").read_text())["mcpServers"]["mcp-gateway"]
    assert (entry["command"], entry["args"]) == (str(CHECKOUT_INSTALL.script), [])
    (checked, environ), *_ = user.checks.checked
    assert checked.command == str(CHECKOUT_INSTALL.script)
    assert checked.env == {"MCP_GATEWAY_HOME": str(user.gateway)}
    assert environ["HOME"] == str(user.home)  # run in the import's own environment, as the client would
    code, out, _ = user.run("--client", "claude-code", "--launcher", "uvx", "--write-client-config")
    assert code == 0
    entry = json.loads((user.home / ".claude.json").read_text())["mcpServers"]["mcp-gateway"]
    assert (entry["command"], entry["args"]) == ("uvx", ["--from", "mcp-meta-gateway", "mcp-gateway"])


def test_an_entry_whose_command_does_not_start_is_never_written(user: User, install_sample: InstallSample) -> None:
    path = install_sample("claude_code.claude.json", user.home / ".claude.json")
    original = path.read_bytes()
    user.put_uvx_on_path()
    user.checks.problem = "'uvx --from mcp-meta-gateway mcp-gateway' exited with status 2: error: not found"
    code, out, _ = user.run("--client", "claude-code", "--dry-run")
    assert code == 0
    assert "problem: the entry's command does not start the gateway, so the client could not either: " in out
    assert "Try --launcher path (this installation)" in out
    assert "--write-client-config" not in out.splitlines()[-1]  # that write would be refused
    assert out.endswith(
        "Next: mcp-gateway import --client claude-code --scope user --launcher path --dry-run "
        "(the uvx entry does not start)\n"
    )
    code, out, _ = user.run("--client", "claude-code", "--launcher", "uvx", "--dry-run")
    assert out.endswith(
        "Next: mcp-gateway import --client claude-code --scope user --launcher path --dry-run "
        "(the uvx entry does not start)\n"
    )
    code, out, err = user.run("--client", "claude-code", "--write-client-config")
    assert code == 1
    assert f"Wrote {user.gateway / 'config.json'}." in out
    assert f"{path}: not rewritten, since the gateway command does not start (" in err
    assert path.read_bytes() == original
    assert not list(path.parent.glob("*backup*"))


def test_project_scope_files_are_found_in_the_project_dir(user: User, install_sample: InstallSample) -> None:
    install_sample("claude_code.mcp.json", user.project / ".mcp.json")
    code, out, _ = user.run("--client", "claude-code", "--scope", "project", "--project", str(user.project))
    assert code == 0
    assert f"Claude Code (project scope): {user.project / '.mcp.json'}" in out
    assert user.servers() == {"playwright", "docs"}


def test_restore_lists_backups_of_several_files_and_restores_a_named_one(
    user: User, install_sample: InstallSample
) -> None:
    install_sample("cursor.mcp.json", user.home / ".cursor" / "mcp.json")
    install_sample("windsurf.mcp_config.json", user.home / ".codeium" / "windsurf" / "mcp_config.json")
    assert user.run("--client", "cursor", "--write-client-config")[0] == 0
    assert user.run("--client", "windsurf", "--write-client-config")[0] == 0
    code, out, err = user.run("--restore")
    assert code == 2
    assert "Backups exist for several files" in out
    assert "choose one" in err
    (backup,) = (user.home / ".cursor").glob("mcp.json.mcp-gateway-backup-*")
    kept = backup.read_bytes()
    code, _, _ = user.run("--restore", str(backup))
    assert code == 0
    assert (user.home / ".cursor" / "mcp.json").read_bytes() == kept


def test_restore_without_backups_exits_1_and_a_foreign_file_exits_2(user: User) -> None:
    assert user.run_main("--restore", "--client", "cursor")[0] == 1
    code, _, err = user.run_main("--restore", str(user.home / "notes.txt"))
    assert code == 2
    assert "not a backup made by mcp-gateway import" in err


def test_the_gateway_config_is_private(user: User, install_sample: InstallSample) -> None:
    install_sample("codex.config.toml", user.home / ".codex" / "config.toml")
    assert user.run("--client", "codex")[0] == 0
    assert os.stat(user.gateway / "config.json").st_mode & 0o777 == 0o600


CLIENT_FILES = [
    ("claude-code", "claude_code.claude.json", ".claude.json"),
    ("claude-desktop", "claude_desktop_config.json", ".config/Claude/claude_desktop_config.json"),
    ("opencode", "opencode.jsonc", ".config/opencode/opencode.jsonc"),
    ("cursor", "cursor.mcp.json", ".cursor/mcp.json"),
    ("vscode", "vscode.mcp.json", ".config/Code/User/mcp.json"),
    ("windsurf", "windsurf.mcp_config.json", ".codeium/windsurf/mcp_config.json"),
    ("codex", "codex.config.toml", ".codex/config.toml"),
    ("gemini", "gemini.settings.json", ".gemini/settings.json"),
    ("zed", "zed.settings.json", ".config/zed/settings.json"),
    ("cline", "cline_mcp_settings.json", ".cline/data/settings/cline_mcp_settings.json"),
    (
        "roo",
        "roo.mcp_settings.json",
        ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
    ),
    ("servers-json", "servers.mcp.json", ".epoch/mcp.json"),
]


@pytest.mark.parametrize(("client", "sample", "location"), CLIENT_FILES)
def test_every_client_round_trips_write_back_rerun_and_restore(
    user: User, install_sample: InstallSample, client: str, sample: str, location: str
) -> None:
    path = install_sample(sample, user.home / location)
    original = path.read_bytes()
    code, out, err = user.run("--client", client, "--write-client-config")
    assert code == 0, out + err
    rewritten = path.read_bytes()
    assert rewritten != original
    config = (user.gateway / "config.json").read_bytes()

    code, out, err = user.run("--client", client, "--write-client-config")
    assert code == 0, out + err
    assert path.read_bytes() == rewritten
    assert (user.gateway / "config.json").read_bytes() == config
    assert len(list(path.parent.glob(f"{path.name}.mcp-gateway-backup-*"))) == 1

    code, out, err = user.run("--restore", "--client", client)
    assert code == 0, out + err
    assert path.read_bytes() == original


def test_the_launcher_choices_are_the_importers_own() -> None:
    parser = build_parser()
    assert parser.parse_args(["import", "--launcher", "path"]).launcher == "path"
    assert parser.parse_args(["import"]).launcher == "auto"
    for launcher in LAUNCHERS:
        assert parser.parse_args(["import", "--launcher", launcher]).launcher == launcher
    with pytest.raises(SystemExit):
        parser.parse_args(["import", "--launcher", "npx"])
