"""`llm-install.md`, followed literally as an assistant would, on a fresh HOME, with the real `mcp-gateway`.

The commands are read from the guide's fenced shell blocks (`guide_shell.guide_commands`) and run in order
by bash, in one terminal-like environment: HOME and the user config and cache dirs point into a temporary
directory, MCP_GATEWAY_HOME is unset until the guide exports it, and no client's own location variable is
set. Only what the guide tells the assistant to choose is substituted: the client (`NAME`: Claude Code,
whose `~/.claude.json` holds a local server, the repository's fake one, and a remote one that signs in with
OAuth, the repository's OAuth fixture), the server to sign in to, the search query, the tool and its
arguments, and the backup's and client file's paths. The clone the guide installs from is a copy of this
checkout's files, and `uv tool install .` really runs (uv is a test dependency; its download cache is kept in
pytest's cache, and it reaches only the package index): every later `mcp-gateway` is the one it installed.

The sign-in step plays the person at the browser: it follows the URL `mcp-gateway login` prints, as
`oauth_fixture.signing_in` does, and the walk ends with that server signed in and listed. "Restart the client
and ask it to use a tool" needs a real client and is not followed here (`test_e2e_clients.py` drives real
clients through the gateway).

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
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import httpx2
import pytest
from anyio.streams.text import TextReceiveStream
from guide_shell import GuideShell, files_under, guide_commands
from oauth_fixture import BROWSER_SECONDS, OAuthFixture, running_oauth_fixture
from test_e2e_install_from_clone import NOT_INHERITED, UV, clone_of_this_checkout
from workspaces import fake_server

from mcp_gateway.importing.clients.registry import CLIENTS

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "llm-install.md"
STEP_SECONDS = 120.0
"""Bound for one step: an import runs the gateway once to check its command, and refresh and call start the
fake server; each takes a few seconds on a loaded two-core machine."""
DEMO_SECONDS = 300.0
"""Bound for `mcp-gateway demo`: 45 s measured on a two-core machine shared with other test runs."""
INSTALL_SECONDS = 600.0
"""`uv tool install` of the clone: a cold cache downloads the dependencies (about 40 MB), a warm one takes seconds."""
CLIENT_LOCATIONS = ("CODEX_HOME", "GEMINI_CLI_HOME", "APPDATA", "LOCALAPPDATA")
QUERY = "return a message unchanged"
TOOL = "notes.echo"
SIGNS_IN = "web"
"""The remote server of the client's config that signs in with OAuth (the OAuth fixture)."""
MESSAGE = "hello from the guide"


@dataclass
class Walk:
    """The assistant's terminal, and what the walk has seen so far."""

    home: Path
    shell: GuideShell
    client_file: Path
    original: bytes
    clone: Path
    tools: Path
    """Where `uv tool install` puts the gateway's environment (`UV_TOOL_DIR`)."""
    oauth: OAuthFixture
    backup: Path | None = None
    before: dict[str, bytes] = field(default_factory=dict[str, bytes])
    """Every file under HOME before the step being checked."""
    checked: list[str] = field(default_factory=list[str])

    @property
    def workspace(self) -> Path:
        return Path(self.shell.environ["MCP_GATEWAY_HOME"])

    async def run(self, command: str, seconds: float = STEP_SECONDS) -> subprocess.CompletedProcess[str]:
        return await self.shell.run(command, seconds)

    async def run_in(self, directory: Path, command: str, seconds: float) -> subprocess.CompletedProcess[str]:
        """`command` run from `directory`, as the guide's "in the clone" says; the walk then goes on where it was."""
        cwd, self.shell.cwd = self.shell.cwd, directory
        try:
            return await self.shell.run(command, seconds)
        finally:
            self.shell.cwd = cwd

    def chosen(self, command: str) -> str:
        """The guide's command with what it leaves to the assistant chosen (`mcp-gateway` is what the guide
        installed, found on the PATH as the person's shell finds it)."""
        command = re.sub(r"\bNAME\b", "claude-code", command)
        command = command.replace("SERVER.TOOL", TOOL).replace("a task one of the user's servers can do", QUERY)
        command = re.sub(r"\bSERVER\b", SIGNS_IN, command)
        command = command.replace("""'{"...": "..."}'""", shlex.quote(json.dumps({"message": MESSAGE})))
        if self.backup is not None:
            command = command.replace("<backup>", shlex.quote(str(self.backup)))
        return command.replace("<file>", shlex.quote(str(self.client_file)))


Check = Callable[[Walk, subprocess.CompletedProcess[str]], Awaitable[None]]


def ok(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"


async def python_version(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert re.fullmatch(r"Python 3\.\d+\.\d+\S*\n", done.stdout + done.stderr), done
    required = re.search(r'requires-python = ">=(\d+\.\d+)"', (ROOT / "pyproject.toml").read_text())
    assert required is not None
    assert f"Python ≥ {required[1]}" in GUIDE.read_text(), "the guide states another Python than pyproject.toml"


async def uv_version(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert re.match(r"uv \d+\.\d+", done.stdout), done.stdout


async def install(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    found = await walk.run("command -v mcp-gateway")
    ok(found)
    resolved = Path(await anyio.Path(found.stdout.strip()).resolve())
    assert resolved.is_relative_to(walk.tools), found.stdout  # the tool's own script, first on the PATH


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
    assert f"  {SIGNS_IN}: imported" in done.stdout
    assert re.search(rf"^  mcp-gateway login {SIGNS_IN}$", done.stdout, re.MULTILINE), done.stdout  # for step 5
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
    servers = json.loads(config.read_text())["mcpServers"]
    assert servers.keys() == {"notes", SIGNS_IN}
    assert servers[SIGNS_IN]["oauth"] == {}  # it answered 401: imported, marked for its own sign-in
    again = await walk.run(walk.chosen("mcp-gateway import --client NAME"))
    ok(again)
    assert files_under(walk.home) == after, "running the import again changed something"


async def config_check(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert done.stdout.endswith(": 2 enabled servers, 0 invalid, 0 diagnostics\n"), done.stdout


async def login(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert f"Signed in to '{SIGNS_IN}'" in done.stdout, done.stdout
    assert walk.oauth.stats()["codes"] == 1


async def refresh(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert "starting notes …" in done.stderr, done.stderr
    assert f"starting {SIGNS_IN} …" in done.stderr, done.stderr
    assert re.search(r"^notes: \d+ tools$", done.stdout, re.MULTILINE), done.stdout
    assert re.search(rf"^{SIGNS_IN}: \d+ tools?$", done.stdout, re.MULTILINE), done.stdout  # signed in: listed
    assert re.search(r"^Refreshed 2 servers: \d+ tools\.$", done.stdout, re.MULTILINE), done.stdout


async def status(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    assert re.search(r"^notes: fresh, \d+ tools", done.stdout, re.MULTILINE), done.stdout
    assert re.search(rf"^{SIGNS_IN}: fresh, \d+ tools?", done.stdout, re.MULTILINE), done.stdout
    assert "    sign-in: signed in" in done.stdout, done.stdout


async def write_client_config(walk: Walk, done: subprocess.CompletedProcess[str]) -> None:
    ok(done)
    backup = re.search(r"^Backup: (?P<path>.+\.mcp-gateway-backup-\d{8}T\d{6}Z)$", done.stdout, re.MULTILINE)
    assert backup is not None, done.stdout
    walk.backup = Path(backup["path"])
    assert walk.backup.read_bytes() == walk.original
    assert "Launcher: path (this gateway is a uv tool" in done.stdout
    assert "Checked: the entry's command starts the gateway." in done.stdout
    client = json.loads(walk.client_file.read_text())
    [(name, entry)] = client["mcpServers"].items()
    assert name == "mcp-gateway"
    assert Path(entry["command"]).is_relative_to(walk.tools), entry
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
    "uv --version": uv_version,
    "uv tool install .": install,
    "mcp-gateway --version": gateway_version,
    "mcp-gateway demo": demo,
    "export MCP_GATEWAY_HOME=~/.mcp-gateway": workspace_chosen,
    "mcp-gateway config path": config_path,
    "mcp-gateway import --dry-run": dry_run,
    "mcp-gateway import --client NAME": import_servers,
    "mcp-gateway config check": config_check,
    "mcp-gateway login SERVER": login,
    "mcp-gateway refresh": refresh,
    "mcp-gateway status": status,
    "mcp-gateway import --client NAME --write-client-config": write_client_config,
    "diff <backup> <file>": diff,
    'mcp-gateway search "a task one of the user\'s servers can do"': search,
    """mcp-gateway call SERVER.TOOL --args '{"...": "..."}'""": call,
    "mcp-gateway import --restore original --client NAME": restore,
    'rm -r "$MCP_GATEWAY_HOME"': remove_workspace,
}
NOT_RUN: dict[str, str] = {}


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
async def test_llm_install_md_followed_literally_on_a_fresh_home_does_what_each_step_says(
    tmp_path: Path, uv_cache: Path
) -> None:
    home, work, tools, tool_bin = (tmp_path / name for name in ("home", "work", "uv-tools", "uv-bin"))
    home.mkdir()
    work.mkdir()  # an empty project: no project-scoped client files
    clone = clone_of_this_checkout(tmp_path / "clone")
    with running_oauth_fixture(token_seconds=3600) as oauth:
        client_file = home / ".claude.json"
        servers = {"notes": fake_server(), SIGNS_IN: {"type": "http", "url": oauth.url}}
        original = json.dumps({"numStartups": 3, "mcpServers": servers}, indent=2).encode() + b"\n"
        client_file.write_bytes(original)
        environ = {
            key: value
            for key, value in os.environ.items()
            if key not in CLIENT_LOCATIONS and not key.startswith(NOT_INHERITED)
        }
        environ |= {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            # uv's tool and its script outside HOME, so that the walk's checks of HOME see only the gateway's
            # files; its download cache kept between runs; no Python downloaded (one is here).
            "UV_TOOL_DIR": str(tools),
            "UV_TOOL_BIN_DIR": str(tool_bin),
            "UV_CACHE_DIR": str(uv_cache),
            "UV_PYTHON": sys.executable,
            "UV_PYTHON_DOWNLOADS": "never",
            "PATH": os.pathsep.join([str(tool_bin), str(UV.parent), os.environ.get("PATH", os.defpath)]),
        }
        shell = GuideShell(work, environ, tmp_path / "shell-state")
        walk = Walk(home, shell, client_file, original, clone, tools, oauth)
        await follow_the_guide(walk)


async def follow_the_guide(walk: Walk) -> None:
    for step in guide_commands(GUIDE.read_text()):
        command = bare(step.command)
        if command in NOT_RUN:
            continue
        check = STEPS.get(command)
        assert check is not None, f"llm-install.md, {step.section}: `{command}` is new: say here what it must do"
        if command.startswith("rm "):
            assert walk.workspace.is_relative_to(walk.home), walk.workspace  # never anything outside the HOME
        walk.before = files_under(walk.home)
        chosen = walk.chosen(step.command)
        if check is install:  # "in the clone"
            done = await walk.run_in(walk.clone, chosen, INSTALL_SECONDS)
        elif check is login:  # the person follows the URL it prints
            done = await signing_in(walk, chosen)
        else:
            done = await walk.run(chosen, DEMO_SECONDS if check is demo else STEP_SECONDS)
        await check(walk, done)
        walk.checked.append(command)
    assert set(walk.checked) == set(STEPS), (
        f"steps this test knows that the guide no longer has: {set(STEPS) - set(walk.checked)}"
    )


async def signing_in(walk: Walk, command: str) -> subprocess.CompletedProcess[str]:
    """`command` (a `mcp-gateway login`) run by bash, with a browser that follows the sign-in URL it prints (the
    fixture's authorization server approves at once and redirects to the command's loopback listener)."""
    printed: list[str] = []
    with anyio.fail_after(STEP_SECONDS):
        async with await anyio.open_process(
            ["bash", "-c", command], cwd=walk.shell.cwd, env=walk.shell.environ
        ) as process:
            assert process.stderr is not None
            assert process.stdout is not None
            async for chunk in TextReceiveStream(process.stderr):
                printed.append(chunk)
                url = next((line for line in "".join(printed).splitlines() if line.startswith("http")), None)
                if url is not None:
                    async with httpx2.AsyncClient(follow_redirects=True, timeout=BROWSER_SECONDS) as browser:
                        await browser.get(url)
                    break
            printed.extend([chunk async for chunk in TextReceiveStream(process.stderr)])
            out = "".join([chunk async for chunk in TextReceiveStream(process.stdout)])
            returncode = await process.wait()
    return subprocess.CompletedProcess(command, returncode, out, "".join(printed))


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
