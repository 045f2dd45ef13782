"""`refresh`, `config check` and `config path` as a person sees them, with the real `mcp-gateway` command.

Progress goes to stderr and the report to stdout; counts read "1 tool", "2 tools"; a misspelt key gets
"did you mean"; `config path` creates the config on a fresh HOME. `llm-install.md` is followed step by step
in `test_e2e_llm_install.py`.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_gateway import CLI_SECONDS, gateway_program, run_cli_async
from workspaces import fake_server, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

PROGRESS_START = re.compile(r"^mcp-gateway: \[(?P<n>\d+)/(?P<total>\d+)\] starting (?P<server>\S+) …$", re.MULTILINE)
PROGRESS_LISTED = re.compile(
    r"^mcp-gateway: (?P<server>\S+): (?P<count>\d+) (?P<noun>tools?) \(\d+\.\d\d s\)$", re.MULTILINE
)
PROGRESS_FAILED = re.compile(r"^mcp-gateway: (?P<server>\S+): failed after \d+\.\d\d s: (?P<why>.+)$", re.MULTILINE)


def status_tools(stdout: str) -> dict[str, int]:
    return {row["server"]: row["tools"] for row in json.loads(stdout)["servers"]}


async def test_refresh_shows_each_server_starting_and_ending_on_stderr_and_the_report_on_stdout(
    tmp_path: Path,
) -> None:
    write_workspace(tmp_path, {"good": fake_server(), "broken": fake_server(exit_at_start="3")})

    done = await run_cli_async("refresh", home=tmp_path)
    status = await run_cli_async("status", "--json", home=tmp_path)

    assert done.returncode == 1, done.stderr
    count = status_tools(status.stdout)["good"]
    assert count > 1
    starts = {match["server"]: match for match in PROGRESS_START.finditer(done.stderr)}
    assert set(starts) == {"good", "broken"}, done.stderr
    assert sorted(int(match["n"]) for match in starts.values()) == [1, 2]
    assert {match["total"] for match in starts.values()} == {"2"}
    [listed] = PROGRESS_LISTED.finditer(done.stderr)
    assert (listed["server"], int(listed["count"]), listed["noun"]) == ("good", count, "tools")
    [failed] = PROGRESS_FAILED.finditer(done.stderr)
    assert failed["server"] == "broken"
    assert "exited with code 3 before the MCP handshake finished" in failed["why"]
    for server, end in (("good", listed), ("broken", failed)):
        assert starts[server].start() < end.start(), f"{server} ended before it started:\n{done.stderr}"

    # stdout is the report alone: no progress, one line per server, then the totals.
    assert "mcp-gateway:" not in done.stdout
    lines = done.stdout.splitlines()
    assert lines[0] == f"good: {count} tools"
    assert lines[1].startswith("broken: failed: ")
    assert lines[2:] == [f"Refreshed 1 of 2 servers: {count} tools; 1 failed."]


async def test_counts_read_one_tool_and_one_enabled_server_in_the_singular(tmp_path: Path) -> None:
    write_workspace(tmp_path, {"single": fake_server() | {"includeTools": ["echo"]}})

    refreshed = await run_cli_async("refresh", home=tmp_path)
    checked = await run_cli_async("config", "check", home=tmp_path)

    assert refreshed.returncode == 0, refreshed.stderr
    assert re.search(r"^mcp-gateway: single: 1 tool \(\d+\.\d\d s\)$", refreshed.stderr, re.MULTILINE)
    assert refreshed.stdout.splitlines() == ["single: 1 tool", "Refreshed 1 server: 1 tool."]
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout == f"{tmp_path / 'config.json'}: 1 enabled server, 0 invalid, 0 diagnostics\n"


async def test_counts_read_in_the_plural_for_none_and_for_several(tmp_path: Path) -> None:
    empty, several = tmp_path / "empty", tmp_path / "several"
    write_workspace(empty, {})
    write_workspace(several, {"one": fake_server(), "two": fake_server(), "bad": {"args": ["x"]}})

    nothing = await run_cli_async("refresh", home=empty)
    none_checked = await run_cli_async("config", "check", home=empty)
    checked = await run_cli_async("config", "check", home=several)

    assert nothing.returncode == 0, nothing.stderr
    assert nothing.stdout.startswith("Nothing to refresh: no enabled servers; run `mcp-gateway import --client NAME`")
    assert none_checked.stdout == f"{empty / 'config.json'}: 0 enabled servers, 0 invalid, 0 diagnostics\n"
    assert checked.returncode == 1, checked.stderr
    assert checked.stdout == f"{several / 'config.json'}: 2 enabled servers, 1 invalid, 1 diagnostic\n"


TYPOS: dict[str, Any] = {
    "mcpServer": {},
    "mcpServers": {
        "a": {"comand": "npx"},
        "b": {"commnad": "npx"},
        "c": {"ulr": "https://mcp.example.com/mcp"},
        "d": {"command": "npx", "arg": ["x"]},
        "e": {"command": "npx", "enviroment": {"A": "b"}},
        "f": {"url": "https://mcp.example.com/mcp", "type": "http", "header": {"X-Client": "c"}},
        "g": {"command": "npx", "disable": True},
        "h": {"command": "npx", "disabled": True, "evn": {}},
    },
    "settings": {"idleTimout": 3},
}


async def test_config_check_suggests_the_key_each_typo_means(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps(TYPOS))

    done = await run_cli_async("config", "check", home=tmp_path)

    assert done.returncode == 1, done.stderr
    said = done.stderr
    for path, written, meant in (
        ("mcpServer", "mcpServer", "mcpServers"),
        ("mcpServers.a.comand", "comand", "command"),
        ("mcpServers.b.commnad", "commnad", "command"),
        ("mcpServers.c.ulr", "ulr", "url"),
        ("settings.idleTimout", "idleTimout", "idleTimeout"),
    ):
        assert f": {path}: unknown field '{written}' is ignored (did you mean '{meant}'?)" in said, (path, said)
    for path, written, meant in (  # the server would start without what the key meant: it stays out
        ("mcpServers.d.arg", "arg", "args"),
        ("mcpServers.e.enviroment", "enviroment", "env"),
        ("mcpServers.f.header", "header", "headers"),
        ("mcpServers.g.disable", "disable", "disabled"),
        ("mcpServers.h.evn", "evn", "env"),
    ):
        assert (
            f"error: {tmp_path / 'config.json'}: {path}: unknown field '{written}' is probably '{meant}', without "
            f"which it would not run as meant; the server is not loaded (rename '{written}' to '{meant}')"
        ) in said, (path, said)
    for server, written, meant in (("a", "comand", "command"), ("b", "commnad", "command"), ("c", "ulr", "url")):
        assert re.search(
            rf"^mcp-gateway: error: .*: mcpServers\.{server}: the server has neither 'command' nor 'url' "
            rf"\(it has '{written}', which is probably '{meant}'\).*\(rename '{written}' to '{meant}'\)$",
            said,
            re.MULTILINE,
        ), said
    said_lines = re.findall(r"^mcp-gateway: (?:error|warning): ", said, re.MULTILINE)
    assert done.stdout.endswith(f": 0 enabled servers, 8 invalid, {len(said_lines)} diagnostics\n")


def fresh_home(tmp_path: Path) -> dict[str, str]:
    """A HOME and user config dir of their own (MCP_GATEWAY_HOME is never passed: see `client_environment`)."""
    return {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config")}


async def test_config_path_creates_the_config_and_its_folder_on_a_fresh_home(tmp_path: Path) -> None:
    env = fresh_home(tmp_path)
    expected = tmp_path / "home" / ".config" / "mcp-gateway" / "config.json"

    first = await run_cli_async("config", "path", extra_env=env)
    second = await run_cli_async("config", "path", extra_env=env)

    assert first.returncode == 0, first.stderr
    assert first.stdout == f"{expected}\n"
    assert first.stderr == f"mcp-gateway: created {expected} from the template (no servers yet)\n"
    assert stat.S_IMODE(expected.stat().st_mode) == 0o600
    assert stat.S_IMODE(expected.parent.stat().st_mode) == 0o700
    template = json.loads(expected.read_text())
    assert template["mcpServers"] == {}
    assert template["settings"]["idleTimeout"] == 10
    assert (second.returncode, second.stdout, second.stderr) == (0, first.stdout, "")


async def test_config_path_leaves_an_existing_file_and_a_link_alone(tmp_path: Path) -> None:
    env = fresh_home(tmp_path)
    folder = tmp_path / "home" / ".config" / "mcp-gateway"
    folder.mkdir(parents=True)
    mine = '{"mcpServers": {}, "x-mine": true}\n'
    (folder / "config.json").write_text(mine)

    kept = await run_cli_async("config", "path", extra_env=env)

    assert (kept.returncode, kept.stderr) == (0, "")
    assert (folder / "config.json").read_text() == mine

    (folder / "config.json").unlink()
    target = tmp_path / "elsewhere.json"
    (folder / "config.json").symlink_to(target)
    linked = await run_cli_async("config", "path", extra_env=env)

    assert linked.returncode == 0, linked.stderr
    assert linked.stdout == f"{folder / 'config.json'}\n"
    assert not target.exists()  # nothing was created through the dangling link


async def test_writing_the_config_through_config_path_works_on_a_fresh_home(tmp_path: Path) -> None:
    # What the issue reported failing: `cat > $(mcp-gateway config path)` before anything created the folder.
    env = os.environ | fresh_home(tmp_path)
    env.pop("MCP_GATEWAY_HOME", None)
    gateway = " ".join(gateway_program())
    server = json.dumps({"mcpServers": {"notes": fake_server()}})
    script = f"set -e\ncat > \"$({gateway} config path)\" <<'EOF'\n{server}\nEOF\n{gateway} config check"
    with anyio.fail_after(2 * CLI_SECONDS):
        done = await anyio.run_process(["bash", "-c", script], env=env, check=False)

    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().endswith(": 1 enabled server, 0 invalid, 0 diagnostics\n")
