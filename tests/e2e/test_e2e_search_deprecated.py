"""A deprecated tool at the shell: `mcp-gateway search` in front of the real filesystem server.

@modelcontextprotocol/server-filesystem still lists `read_file`, titled "Read File (Deprecated)" and described
"… DEPRECATED: Use read_text_file instead."; a person (or model) asking to "read a file" is offered
`read_text_file` first, and `read_file` says what to use instead and is not `high`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from e2e_gateway import ranked_tools, run_cli_async
from gateway_testing import peer
from workspaces import write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


def filesystem_workspace(home: Path) -> None:
    shared = home / "shared-files"
    shared.mkdir()
    write_workspace(home, {"filesystem": {"command": str(peer("mcp-server-filesystem")), "args": [str(shared)]}})


async def test_search_at_the_shell_ranks_read_text_file_above_the_deprecated_read_file(tmp_path: Path) -> None:
    filesystem_workspace(tmp_path)
    done = await run_cli_async("search", "read a file", home=tmp_path)
    assert done.returncode == 0, done.stderr
    ranked = re.findall(r"^\s*\d+\. (\S+)  \[(\w+)\]$", done.stdout, re.M)
    names = [name for name, _ in ranked]
    assert names.index("filesystem.read_text_file") < names.index("filesystem.read_file"), done.stdout
    assert dict(ranked)["filesystem.read_file"] != "high", done.stdout
    assert "why: deprecated: use read_text_file" in done.stdout

    as_json = await run_cli_async("search", "read a file", "--json", home=tmp_path)
    assert as_json.returncode == 0, as_json.stderr
    printed = json.loads(as_json.stdout)
    tools = ranked_tools(printed)
    assert tools.index("filesystem.read_text_file") < tools.index("filesystem.read_file"), printed
    entry = next(entry for entry in printed["results"] if entry["tool"] == "filesystem.read_file")
    assert entry["confidence"] != "high"
    assert "read_text_file" in entry["why"]
