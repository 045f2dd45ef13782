"""`llm-install.md`, followed literally as an assistant would, on a fresh HOME, with the real `mcp-gateway`.

The commands are read from the guide's fenced shell blocks (`guide_shell.guide_commands`) and run in order
by bash, in one terminal-like environment: HOME and the user config and cache dirs point into a temporary
directory, MCP_GATEWAY_HOME is unset until the guide exports it, and no client's own location variable is
set. Only what the guide tells the assistant to choose is substituted: the client (`NAME`: Claude Code,
whose `~/.claude.json` holds one server, the repository's fake server instead of a real one), the search
query, the tool and its arguments, and the backup's and client file's paths. `mcp-gateway` is the
checkout's `.venv/bin/mcp-gateway`, as the guide allows.

What needs the network is replaced, and said here: `uvx --from mcp-meta-gateway mcp-gateway --version`
(the package index) runs the checkout's `mcp-gateway --version` instead, and the checkout's install
(`python3 -m venv … && pip install -e .`, the index again) is not run: this checkout is installed that way
already. "Restart the client and ask it to use a tool" needs a real client and is not followed here
(`test_e2e_clients.py` drives real clients through the gateway).

Every command of the guide must be one this test knows, and each step is checked for what the guide says
it does; a command added to the guide fails here until the test says what it must do.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import subprocess
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from e2e_gateway import gateway_program
from gateway_testing import fake_server
from guide_shell import GuideShell, files_under, guide_commands

from mcp_gateway.importers.clients import CLIENTS

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "llm-install.md"
STEP_SECONDS = 120.0
"""Bound for one step: an import runs the gateway once to check its command, and refresh and call start the
fake server; each takes a few seconds on a loaded two-core machine."""
DEMO_SECONDS = 300.0
"""Bound for `mcp-gateway demo`: 45 s measured on a two-core machine shared with other test runs."""
CLIENT_LOCATIONS = ("MCP_GATEWAY_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "APPDATA", "LOCALAPPDATA")
QUERY = "return a message unchanged"
TOOL = "notes.echo"
MESSAGE = "hello from the guide"
NETWORK_FREE = {"uvx --from mcp-meta-gateway mcp-gateway": "mcp-gateway"}
"""The package index, replaced by the checkout's command (see the module docstring)."""


@dataclass
class Walk:
    """The assistant's terminal, and what the walk has seen so far."""

    home: Path
    shell: GuideShell
    client_file: Path
    original: bytes
    gateway: str
    backup: Path | None = None
    before: dict[str, bytes] = field(default_factory=dict[str, bytes])
    """Every file under HOME before the step being checked."""
    checked: list[str] = field(default_factory=list[str])

    @property
    def workspace(self) -> Path:
        return Path(self.shell.environ["MCP_GATEWAY_HOME"])

    async def run(self, command: str, seconds: float = STEP_SECONDS) -> subprocess.CompletedProcess[str]:
        return await self.shell.run(command, seconds)

    def chosen(self, command: str) -> str:
        """The guide's command with what it leaves to the assistant chosen, and its `mcp-gateway` made concrete."""
        for needs_index, instead in NETWORK_FREE.items():
            command = command.replace(needs_index, instead)
        command = re.sub(r"\bNAME\b", "claude-code", command)
        command = command.replace("SERVER.TOOL", TOOL).replace("a task one of the user's servers can do", QUERY)
        command = command.replace("""'{"...": "..."}'""", shlex.quote(json.dumps({"message": MESSAGE})))
        if self.backup is not None:
            command = command.replace("<backup>", shlex.quote(str(self.backup)))
        command = command.replace("<file>", shlex.quote(str(self.client_file)))
        return re.sub(r"(?<![\w./$-])mcp-gateway(?![\w.-])", self.gateway, command)


Check = Callable[[Walk, subprocess.CompletedProcess[str]], Awaitable[None]]


def ok(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"


async def python_version(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert re.fullmatch(r"Python 3\.\d+\.\d+\S*\n", done.stdout + done.stderr), done
    required = re.search(r'requires-python = ">=(\d+\.\d+)"', (ROOT / "pyproject.toml").read_text())
    assert required is not None
    assert f"Python ≥ {required[1]}" in GUIDE.read_text(), "the guide states another Python than pyproject.toml"


async def gateway_version(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert re.fullmatch(r"mcp-gateway \S+\n", done.stdout), done.stdout


async def demo(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    ending = "\n".join(done.stdout.strip().splitlines()[-6:])
    assert "through the gateway" in ending, ending
    assert "tokens" in ending, ending


async def workspace_chosen(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert walk.workspace == walk.home / ".mcp-gateway"


async def config_path(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    config = walk.workspace / "config.json"
    assert done.stdout == f"{config}\n"  # only the path: "$(mcp-gateway config path)" works
    assert "created" in done.stderr, done.stderr
    assert json.loads(config.read_text())["mcpServers"] == {}
    assert stat.S_IMODE(config.stat().st_mode) == 0o600


async def dry_run(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert "Detected client configs:" in done.stdout
    assert re.search(rf"^  claude-code +{re.escape(str(walk.client_file))}", done.stdout, re.MULTILINE), done.stdout
    assert "  notes: imported" in done.stdout
    assert "Dry run: nothing was written." in done.stdout
    assert files_under(walk.home) == walk.before, "the dry run wrote something"
    named = re.search(r"`--client NAME`, one of: (?P<names>[^.]+)\.", " ".join(GUIDE.read_text().split()))
    assert named is not None
    assert named["names"].split(", ") == [client.name for client in CLIENTS]  # the clients the CLI takes


async def import_servers(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    config = walk.workspace / "config.json"
    after = files_under(walk.home)
    changed = {name for name in after.keys() | walk.before.keys() if after.get(name) != walk.before.get(name)}
    assert changed == {str(config.relative_to(walk.home))}, changed  # "this writes only config.json"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert json.loads(config.read_text())["mcpServers"].keys() == {"notes"}
    again = await walk.run(walk.chosen("mcp-gateway import --client NAME"))
    ok(again)
    assert files_under(walk.home) == after, "running the import again changed something"


async def config_check(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert done.stdout.endswith(": 1 enabled server, 0 invalid, 0 diagnostics\n"), done.stdout


async def refresh(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert "[1/1] starting notes …" in done.stderr, done.stderr
    assert re.search(r"^notes: \d+ tools$", done.stdout, re.MULTILINE), done.stdout
    assert re.search(r"^Refreshed 1 server: \d+ tools\.$", done.stdout, re.MULTILINE), done.stdout


async def status(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert re.search(r"^notes: fresh, \d+ tools", done.stdout, re.MULTILINE), done.stdout


async def write_client_config(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    backup = re.search(r"^Backup: (?P<path>.+\.mcp-gateway-backup-\d{8}T\d{6}Z)$", done.stdout, re.MULTILINE)
    assert backup is not None, done.stdout
    walk.backup = Path(backup["path"])
    assert walk.backup.read_bytes() == walk.original
    assert "Launcher: path" in done.stdout
    assert "Checked: the entry's command starts the gateway." in done.stdout
    client = json.loads(walk.client_file.read_text())
    [(name, entry)] = client["mcpServers"].items()
    assert name == "mcp-gateway"
    assert entry["env"] == {"MCP_GATEWAY_HOME": str(walk.workspace)}
    assert entry["alwaysLoad"] is True
    assert client["numStartups"] == json.loads(walk.original)["numStartups"]


async def diff(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 1, done  # the files differ ...
    before, after = walk.original.decode(), walk.client_file.read_text()
    assert without_servers(before) == without_servers(after)  # ... in the server block only
    assert "numStartups" not in done.stdout


async def search(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert re.search(rf"^ *1\. {re.escape(TOOL)}\b", done.stdout, re.MULTILINE), done.stdout
    assert "Return the message unchanged." in done.stdout


async def call(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert MESSAGE in done.stdout


async def restore(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert walk.client_file.read_bytes() == walk.original
    kept = list(walk.home.glob(".claude.json.mcp-gateway-before-restore-*"))
    assert len(kept) == 1, kept
    assert json.loads(kept[0].read_text())["mcpServers"].keys() == {"mcp-gateway"}


async def remove_workspace(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert not (walk.home / ".mcp-gateway").exists()
    left = set(files_under(walk.home))
    assert walk.backup is not None
    assert left == {".claude.json", *backups(walk.home)}, left
    assert any(name.startswith(".claude.json.mcp-gateway-restored-") for name in left), left


STEPS: dict[str, Check] = {
    "python3 --version": python_version,
    "uvx --from mcp-meta-gateway mcp-gateway --version": gateway_version,
    "mcp-gateway demo": demo,
    "export MCP_GATEWAY_HOME=~/.mcp-gateway": workspace_chosen,
    "mcp-gateway config path": config_path,
    "mcp-gateway import --dry-run": dry_run,
    "mcp-gateway import --client NAME": import_servers,
    "mcp-gateway config check": config_check,
    "mcp-gateway refresh": refresh,
    "mcp-gateway status": status,
    "mcp-gateway import --client NAME --write-client-config": write_client_config,
    "diff <backup> <file>": diff,
    'mcp-gateway search "a task one of the user\'s servers can do"': search,
    """mcp-gateway call SERVER.TOOL --args '{"...": "..."}'""": call,
    "mcp-gateway import --restore original --client NAME": restore,
    'rm -r "$MCP_GATEWAY_HOME"': remove_workspace,
}
NOT_RUN = {"python3 -m venv .venv && .venv/bin/pip install -e .": "this checkout is installed so already"}


def without_servers(text: str) -> str:
    """The JSON text with its `mcpServers` object cut out (its braces matched; the fixture has none in strings)."""
    start = text.index('"mcpServers"')
    depth = 0
    for end in range(text.index("{", start), len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            return text[:start] + text[end + 1 :]
    raise AssertionError(f"the 'mcpServers' object is not closed in {text!r}")


def backups(home: Path) -> set[str]:
    return {path.name for path in home.glob(".claude.json.mcp-gateway-*")}


@pytest.mark.anyio
async def test_llm_install_md_followed_literally_on_a_fresh_home_does_what_each_step_says(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()  # an empty project: no project-scoped client files
    client_file = home / ".claude.json"
    original = json.dumps({"numStartups": 3, "mcpServers": {"notes": fake_server()}}, indent=2).encode() + b"\n"
    client_file.write_bytes(original)
    environ = {key: value for key, value in os.environ.items() if key not in CLIENT_LOCATIONS}
    environ |= {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
    }
    shell = GuideShell(work, environ, tmp_path / "shell-state")
    walk = Walk(home, shell, client_file, original, gateway=shlex.join(gateway_program()))

    for step in guide_commands(GUIDE.read_text()):
        command = bare(step.command)
        if command in NOT_RUN:
            continue
        check = STEPS.get(command)
        assert check is not None, f"llm-install.md, {step.section}: `{command}` is new: say here what it must do"
        if command.startswith("rm "):
            assert walk.workspace.is_relative_to(home), walk.workspace  # never anything outside the scratch HOME
        walk.before = files_under(home)
        done = await walk.run(walk.chosen(step.command), DEMO_SECONDS if check is demo else STEP_SECONDS)
        await check(walk, done)
        walk.checked.append(command)
    assert set(walk.checked) == set(STEPS), (
        f"steps this test knows that the guide no longer has: {set(STEPS) - set(walk.checked)}"
    )


def bare(command: str) -> str:
    """The command without its trailing comment (the guide puts none inside quotes)."""
    return re.sub(r"\s+#.*$", "", command).strip()


def test_the_guide_is_read_from_its_fenced_shell_blocks_and_an_indented_block_is_refused() -> None:
    guide = "# Guide\n\n## 1. First\n\n```bash\nexport A=1\nmcp-gateway a \\\n  --b  # c\n```\n\n```json\n{}\n```\n"

    found = guide_commands(guide)

    assert [(step.section, step.command) for step in found] == [
        ("1. First", "export A=1"),
        ("1. First", "mcp-gateway a    --b  # c"),
    ]
    with pytest.raises(AssertionError, match="indented code block"):
        guide_commands(guide + "\n## 2. Second\n\n    mcp-gateway hidden\n")
