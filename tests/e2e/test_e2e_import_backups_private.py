"""Kept versions of a client file are private, counted, and can be pruned: the real `mcp-gateway import`.

A Cursor `mcp.json` readable by everyone (0644, as editors write it) holding a plaintext token is moved in, then
imported again after a change, and restored: every version kept beside it is 0600, the output says how many are
kept, and `--backups --prune` removes all but the original and the newest two, which still restore byte for
byte. A restore gives the file back its own mode.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest
from e2e_gateway import run_cli_async
from workspaces import fake_server

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

TOKEN = "ghp_" + "0123456789abcdefghijklmnopqrstuvwxyz"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_every_kept_version_is_private_counted_and_pruned_to_the_original_and_the_newest_two(
    tmp_path: Path,
) -> None:
    home, workspace = tmp_path / "home", tmp_path / "workspace"
    client_file = home / ".cursor" / "mcp.json"
    client_file.parent.mkdir(parents=True)
    person = {"HOME": str(home)}

    def write(servers: dict[str, object]) -> bytes:
        data = json.dumps({"mcpServers": servers}, indent=2).encode()
        client_file.write_bytes(data)
        os.chmod(client_file, 0o644)
        return data

    async def move_in() -> str:
        done = await run_cli_async(
            "import", "--client", "cursor", "--write-client-config", home=workspace, extra_env=person
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    original = write({"github": {**fake_server(name="github"), "env": {"GITHUB_TOKEN": TOKEN}}})
    first = await move_in()
    assert "1 version of it is kept beside it, readable by you only" in first
    said: list[str] = []
    for round_ in range(3):  # the person adds a server in Cursor and moves in again, three times
        current = json.loads(client_file.read_text())["mcpServers"]
        write({**current, f"extra{round_}": fake_server(name=f"extra{round_}")})
        said.append(await move_in())
    assert "4 versions of it are kept beside it" in said[-1]

    kept = sorted(client_file.parent.glob("mcp.json.mcp-gateway-*"))
    assert len(kept) == 4
    assert {path.name: mode(path) for path in kept} == {path.name: 0o600 for path in kept}
    assert mode(client_file) == 0o644  # the client's own file keeps its mode

    listed = await run_cli_async("import", "--backups", "--client", "cursor", home=workspace, extra_env=person)
    assert listed.returncode == 0, listed.stderr
    assert "4 kept versions, newest first" in listed.stdout
    assert "readable by others" not in listed.stdout

    pruned = await run_cli_async(
        "import", "--backups", "--prune", "--client", "cursor", home=workspace, extra_env=person
    )
    assert pruned.returncode == 0, pruned.stderr
    assert len(re.findall(r"^Removed ", pruned.stdout, re.MULTILINE)) == 1
    assert "1 removed; 3 versions kept (the original and the newest two)" in pruned.stdout
    assert len(list(client_file.parent.glob("mcp.json.mcp-gateway-*"))) == 3

    restored = await run_cli_async(
        "import", "--restore", "original", "--client", "cursor", home=workspace, extra_env=person
    )
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert client_file.read_bytes() == original
    assert mode(client_file) == 0o644
    assert all(mode(path) == 0o600 for path in client_file.parent.glob("mcp.json.mcp-gateway-*"))


async def test_prune_goes_with_backups(tmp_path: Path) -> None:
    done = await run_cli_async(
        "import", "--prune", "--client", "cursor", home=tmp_path, extra_env={"HOME": str(tmp_path)}
    )
    assert done.returncode == 2
    assert "--prune goes with --backups" in done.stderr
