"""The undo of `import`, and what a dry run sends and shows, driven through the real `mcp-gateway` command.

A person writes the gateway into Claude Code's file twice (adding a server to it in between), then walks
back one `--restore` at a time to the byte-identical original, lists the kept versions, goes to the
original in one step, and undoes a restore. A dry run against the remote fixture server says which url it
contacted, and the fixture's own request log shows that `--no-probe` sends it nothing. A dry run of
entries full of secrets prints none of them, and prints the headers that are not secrets as they are.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_gateway import CLI_SECONDS, gateway_command
from gateway_testing import FAKE_SERVER
from remote_fixture import running_remote

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

CLIENT_VARIABLES = ("MCP_GATEWAY_HOME", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "OPENCODE_CONFIG", "CODEX_HOME")
"""Variables that would send the command to another client file or workspace than this test's."""
ORIGINAL = '{\n  "numStartups": 3,\n  "mcpServers": {\n    "notes": NOTES\n  },\n  "theme": "dark"\n}\n'


def fake(name: str) -> dict[str, Any]:
    return {"type": "stdio", "command": sys.executable, "args": [str(FAKE_SERVER)], "env": {"FAKE_MCP_NAME": name}}


class Person:
    """A scratch HOME with Claude Code's file, and the `mcp-gateway import` command run as this person."""

    def __init__(self, root: Path, servers: dict[str, Any] | None = None) -> None:
        self.home = root / "home"
        self.home.mkdir()
        self.gateway = root / "gateway-home"
        self.claude = self.home / ".claude.json"
        if servers is None:
            self.claude.write_text(ORIGINAL.replace("NOTES", json.dumps(fake("notes"))))
        else:
            self.claude.write_text(json.dumps({"mcpServers": servers}, indent=2))
        self.environment = {k: v for k, v in os.environ.items() if k not in CLIENT_VARIABLES}
        self.environment["HOME"] = str(self.home)

    async def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        with anyio.fail_after(CLI_SECONDS):
            done = await anyio.run_process(
                [*gateway_command(self.gateway), "import", *args], env=self.environment, cwd=self.home, check=False
            )
        return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())

    async def write_back(self) -> None:
        done = await self.run("--client", "claude", "--write-client-config")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Rewrote" in done.stdout

    def add_server_in_the_client(self, name: str) -> None:
        document = json.loads(self.claude.read_text())
        document["mcpServers"][name] = fake(name)
        self.claude.write_text(json.dumps(document, indent=2) + "\n")

    def kept(self) -> list[Path]:
        return sorted(self.home.glob(".claude.json.mcp-gateway-*"))


async def two_write_backs(person: Person) -> tuple[bytes, bytes, bytes]:
    """The original, the file after the first write-back and an added server, and after the second."""
    original = person.claude.read_bytes()
    await person.write_back()
    person.add_server_in_the_client("weather")
    between = person.claude.read_bytes()
    await person.write_back()
    return original, between, person.claude.read_bytes()


async def test_two_write_backs_are_walked_back_one_restore_at_a_time_to_the_byte_identical_original(
    tmp_path: Path,
) -> None:
    person = Person(tmp_path)
    original, between, _ = await two_write_backs(person)

    first = await person.run("--restore", "--client", "claude")
    assert first.returncode == 0, first.stderr
    assert person.claude.read_bytes() == between
    assert "One more step back: mcp-gateway import --restore --client claude" in first.stdout

    second = await person.run("--restore", "--client", "claude")
    assert second.returncode == 0, second.stderr
    assert person.claude.read_bytes() == original
    assert "This is the file as it was before the gateway first changed it." in second.stdout

    third = await person.run("--restore", "--client", "claude")
    assert third.returncode == 0, third.stderr
    assert "Nothing older to restore" in third.stdout
    assert "--restore original --client claude" in third.stdout
    assert person.claude.read_bytes() == original
    assert len(person.kept()) == 4  # two backups and the two versions the restores replaced: nothing deleted


async def test_backups_lists_each_kept_version_with_its_write_size_and_place_in_the_walk(tmp_path: Path) -> None:
    person = Person(tmp_path)
    original, between, after = await two_write_backs(person)

    listed = await person.run("--backups", "--client", "claude")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0] == f"{person.claude} (now {len(after):,} bytes); 2 kept versions, newest first:"
    newest, oldest = sorted(person.home.glob(".claude.json.mcp-gateway-backup-*"), reverse=True)
    assert (lines[1], lines[3]) == (f"  {newest}", f"  {oldest}")
    assert lines[2].endswith(
        f", {len(between):,} bytes, before import --write-client-config rewrote it [next --restore]"
    )
    assert lines[4].endswith(
        f", {len(original):,} bytes, before import --write-client-config rewrote it [the original]"
    )
    assert " UTC, " in lines[2]
    assert "One step back: mcp-gateway import --restore --client claude" in listed.stdout

    await person.run("--restore", "--client", "claude")
    walked = await person.run("--backups", "--client", "claude")
    assert "before import --restore replaced it" in walked.stdout
    assert "[already put back, same as the file now]" in walked.stdout
    assert "[the original, next --restore]" in walked.stdout


async def test_restore_original_goes_there_at_once_and_that_restore_is_undone_by_the_version_it_kept(
    tmp_path: Path,
) -> None:
    person = Person(tmp_path)
    original, _, after = await two_write_backs(person)

    restored = await person.run("--restore", "original", "--client", "claude")
    assert restored.returncode == 0, restored.stderr
    assert person.claude.read_bytes() == original
    (undo,) = [line for line in restored.stdout.splitlines() if line.startswith("Undo this restore: ")]
    command = undo.removeprefix("Undo this restore: mcp-gateway import ").split()

    undone = await person.run(*command)
    assert undone.returncode == 0, undone.stderr
    assert person.claude.read_bytes() == after

    again = await person.run("--restore", "original", "--client", "claude")
    assert again.returncode == 0, again.stderr
    assert person.claude.read_bytes() == original


async def test_a_dry_run_says_which_remote_it_contacted_and_no_probe_contacts_none(tmp_path: Path) -> None:
    log = tmp_path / "requests.log"
    log.touch()
    with running_remote("streamable-http", "--log-requests", str(log)) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        person = Person(tmp_path, {"remote": {"type": "http", "url": url}})

        skipped = await person.run("--client", "claude", "--dry-run", "--no-probe")
        assert skipped.returncode == 0, skipped.stderr
        assert log.read_text() == ""
        assert f"Not contacted (--no-probe): {url}; whether each needs a sign-in is unknown" in skipped.stdout
        assert "it was not asked whether it needs a sign-in (--no-probe)" in skipped.stdout

        probed = await person.run("--client", "claude", "--dry-run")
        assert probed.returncode == 0, probed.stderr
        assert log.read_text().splitlines() == ["POST /mcp"]
        contacted = [line for line in probed.stdout.splitlines() if line.startswith("Contacted")]
        assert contacted == [
            "Contacted, to see whether each needs a sign-in (one request without credentials; --no-probe skips "
            f"it): {url}"
        ]
        assert "answered without them: no sign-in needed" in probed.stdout

    helped = await person.run("--help")
    assert "--no-probe" in helped.stdout
    assert "contacted" in " ".join(helped.stdout.split())


async def test_a_dry_run_prints_no_secret_and_shows_the_headers_that_are_none(tmp_path: Path) -> None:
    secrets = {
        "bearer": "sk-live-4f9a1c2e7b",
        "api_key_header": "k-9d8c7b6a5f",
        "url_password": "hunter2-url",
        "url_token": "tok-qs-5a6b7c",
        "script_token": "scripttoken-77",
        "script_flag": "sk-proj-script-55",
        "bare": "ghp_R2d2C3poL1ke5kyWalker0123456789abc",
        "env": "env-secret-31337",
    }
    servers = {
        "remote": {
            "type": "http",
            "url": f"https://me:{secrets['url_password']}@mcp.example.invalid/mcp?token={secrets['url_token']}",
            "headers": {
                "Authorization": f"Bearer {secrets['bearer']}",
                "X-Api-Key": secrets["api_key_header"],
                "X-Client": "e2e-client-7",
                "Accept": "application/json",
            },
        },
        "scripted": {
            "type": "stdio",
            "command": "sh",
            "args": [
                "-c",
                f"SLACK_TOKEN={secrets['script_token']} exec slack-mcp --api-key {secrets['script_flag']} --verbose",
                secrets["bare"],
            ],
            "env": {"DB_PASSWORD": secrets["env"], "REGION": "eu-west-1"},
        },
    }
    person = Person(tmp_path, servers)
    done = await person.run("--client", "claude", "--dry-run", "--no-probe")
    assert done.returncode == 0, done.stdout + done.stderr
    printed = done.stdout + done.stderr
    assert [name for name, secret in secrets.items() if secret in printed] == []
    assert '"X-Client": "e2e-client-7"' in printed
    assert '"Accept": "application/json"' in printed
    assert '"Authorization": "Bearer ***"' in printed
    assert "exec slack-mcp --api-key *** --verbose" in printed
    assert '"REGION": "eu-west-1"' in printed
