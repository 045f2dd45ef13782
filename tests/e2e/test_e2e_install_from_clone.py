"""Moving in from a clone, as the README says: `uv tool install <clone>`, then one `mcp-gateway import`.

A copy of this checkout's files (what a clone holds) is installed with the real `uv` (a test dependency, from
the package index like the gateway's own dependencies; nothing else is fetched) into a scratch tool directory,
on a scratch HOME whose Claude Code config has one server. The installed `mcp-gateway` then imports it and
rewrites `~/.claude.json`: `--launcher auto` chooses the uv tool's own script (stable until `uv tool uninstall`,
never a path in uv's cache, no download at each start), its launch check passes, and the real `claude mcp list`
shows the gateway connected. uv's download cache is kept between runs in pytest's cache.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from clients.clis import CLIENTS, ClaudeCode
from clients.mock_api import running_mock_api
from clients.places import Place
from clients.script import AnswerAtOnce
from clients.sessions import run_client, shorten_the_daemons_grace
from gateway_testing import FAKE_SERVER, ROOT

pytestmark = [pytest.mark.e2e]

UV = Path(sys.executable).parent / "uv"
INSTALL_SECONDS = 600.0
"""A cold install resolves and downloads about 40 MB of dependencies; a warm one takes a few seconds."""
IMPORT_SECONDS = 120.0
NOT_INHERITED = ("MCP_GATEWAY_", "UV_", "XDG_", "CLAUDE_", "VIRTUAL_ENV")


def clone_of_this_checkout(target: Path) -> Path:
    """The files a clone would hold (tracked, and new ones not ignored), copied to `target`."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def test_uv_tool_install_of_a_clone_then_one_import_gives_claude_code_a_connected_gateway(
    tmp_path: Path, uv_cache: Path
) -> None:
    assert UV.exists(), f"uv is a test dependency: pip install -e '.[test]' ({UV})"
    claude = CLIENTS["claude-code"]
    assert isinstance(claude, ClaudeCode)
    place = Place(tmp_path / "person").make()
    bin_dir = place.home / ".local" / "bin"
    clone = clone_of_this_checkout(tmp_path / "clone")
    claude.config_file(place).write_text(
        json.dumps({"mcpServers": {"notes": {"type": "stdio", "command": sys.executable, "args": [str(FAKE_SERVER)]}}})
    )
    # A person's terminal (its network settings, certificates included), less what would point anywhere but here.
    terminal = {key: value for key, value in os.environ.items() if not key.startswith(NOT_INHERITED)}
    shell = terminal | {
        "PATH": f"{bin_dir}{os.pathsep}{terminal.get('PATH', os.defpath)}",
        "HOME": str(place.home),
        "MCP_GATEWAY_HOME": str(place.workspace),
        "UV_TOOL_DIR": str(tmp_path / "uv-tools"),
        "UV_TOOL_BIN_DIR": str(bin_dir),
        "UV_CACHE_DIR": str(uv_cache),
        "UV_PYTHON": sys.executable,
        "UV_PYTHON_DOWNLOADS": "never",
    }

    installed = subprocess.run(
        [str(UV), "tool", "install", str(clone)],
        env=shell,
        capture_output=True,
        text=True,
        timeout=INSTALL_SECONDS,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    imported = subprocess.run(
        ["bash", "-c", "mcp-gateway import --client claude --write-client-config"],
        env=shell,
        cwd=place.project,
        capture_output=True,
        text=True,
        timeout=IMPORT_SECONDS,
        check=False,
    )

    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert re.search(r"^Launcher: path \(this gateway is a uv tool \(from .*clone\)", imported.stdout, re.M), (
        imported.stdout
    )
    assert "Checked: the entry's command starts the gateway." in imported.stdout
    entry = claude.gateway_entry(place)
    assert Path(entry["command"]).is_relative_to(tmp_path / "uv-tools"), entry
    assert "archive-v0" not in entry["command"]
    assert entry["args"] == []
    assert entry["env"] == {"MCP_GATEWAY_HOME": str(place.workspace)}
    shorten_the_daemons_grace(place)

    async def listed() -> tuple[int, str, list[str]]:
        async with running_mock_api(AnswerAtOnce()) as mock:
            run = await run_client(claude, place, claude.list_servers_command(), mock, label="mcp-list")
        return run.returncode, run.stdout + run.stderr, run.leftovers

    returncode, said, leftovers = anyio.run(listed, backend="asyncio")
    assert returncode == 0, said
    (line,) = [line for line in said.splitlines() if line.startswith("mcp-gateway:")]
    assert "Connected" in line, said
    assert leftovers == []
