"""The `mcp-gateway` command line, end to end: one-shot commands over a real workspace and real servers.

`search`, `list`, `describe` and `call` go through the same code path as the meta-tools, so `search --json`
must print exactly what `search_tools` gives the model. Failures print one line on stderr and exit non-zero.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import anyio
import pytest
from e2e_gateway import (
    SESSION_SECONDS,
    cached_everything,
    everything_server,
    gateway_session,
    ranked_tools,
    run_cli_async,
    search,
)
from gateway_testing import fake_server, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

SEARCH_ENTRY_FIELDS = {"tool", "confidence", "why", "description", "inputSchema"}


async def test_search_json_prints_exactly_the_payload_search_tools_returns(tmp_path: Path) -> None:
    # A fresh workspace: the one-shot command lists server-everything first.
    write_workspace(tmp_path, {"everything": everything_server()})
    done = await run_cli_async("search", "add two numbers", "--json", home=tmp_path)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert "everything.get-sum" in ranked_tools(printed)[:3], printed
    for entry in printed["results"]:
        assert set(entry) >= SEARCH_ENTRY_FIELDS, entry

    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            served = await search(client, "add two numbers")
    assert printed == served


async def test_call_prints_the_result_of_get_sum_and_exits_zero(tmp_path: Path, everything_cache: Path) -> None:
    cached_everything(tmp_path, everything_cache)
    done = await run_cli_async("call", "everything.get-sum", "--args", '{"a":2,"b":3}', home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.search(r"\b5\b", done.stdout), done.stdout


async def test_call_with_invalid_arguments_exits_one_and_names_the_problem(
    tmp_path: Path, everything_cache: Path
) -> None:
    cached_everything(tmp_path, everything_cache)
    done = await run_cli_async("call", "everything.get-sum", "--args", '{"a":"x","b":3}', home=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "'x'" in done.stderr
    assert "number" in done.stderr


async def test_call_of_an_unknown_tool_exits_non_zero_with_one_clear_line_on_stderr(
    tmp_path: Path, everything_cache: Path
) -> None:
    cached_everything(tmp_path, everything_cache)
    done = await run_cli_async("call", "everything.no-such-tool", home=tmp_path)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("mcp-gateway: ")
    assert "no-such-tool" in lines[0]


async def test_status_lists_every_configured_server(tmp_path: Path, everything_cache: Path) -> None:
    cached_everything(tmp_path, everything_cache)
    write_workspace(tmp_path, {"everything": everything_server(), "fake": fake_server()})
    done = await run_cli_async("status", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^everything: fresh, \d+ tools", done.stdout, re.MULTILINE), done.stdout
    assert re.search(r"^fake: ", done.stdout, re.MULTILINE), done.stdout


async def test_config_path_prints_the_workspace_config_file(tmp_path: Path) -> None:
    done = await run_cli_async("config", "path", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / "config.json")


async def test_demo_exits_zero_after_converting_30_celsius_to_86_fahrenheit(tmp_path: Path) -> None:
    # The demo writes a throwaway workspace under the temporary directory: keep it inside this test's.
    done = await run_cli_async("demo", extra_env={"TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "toolbox.convert_temperature" in done.stdout
    assert "86" in done.stdout
