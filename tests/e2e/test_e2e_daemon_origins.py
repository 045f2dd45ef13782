"""Sharing without leaking, end to end: real fronts started from different environments and working
directories, one real daemon behind them, real fake servers behind it.

Each session resolves a server with its own environment and working directory: sessions share a process only
where it would be started the same way, a server without a `cwd` runs in its session's directory unless it
shares across projects, and what one session's environment brings reaches neither another session's process
nor anything written or printed. The sessions of a test overlap (`Together`), so one daemon serves them all.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_gateway import SESSION_SECONDS, downstream_pid, execute, gateway_command, text_of
from mcp import Client, StdioServerParameters
from test_e2e_daemon import Together
from workspaces import daemon_cleanup, daemon_settings, fake_server, shared_environment, write_workspace

from mcp_gateway.masking import MASK

pytestmark = pytest.mark.anyio

MARK = "ORIGINS_TEST_MARK"
"""A variable each session sets to its own value."""
SECRET = "ORIGINS_TEST_SECRET"
SECRET_VALUE = "sk-origins-Zq8W3x7Lp2Vn5Rt9Ky4Hb6"
"""Shaped like a generated credential, in one session's environment only."""


def workspace(home: Path, servers: Mapping[str, Any], **settings: Any) -> Path:
    write_workspace(home, servers, daemon_settings(debug=True, **settings))
    return home


@asynccontextmanager
async def session(
    home: Path, runtime_dir: Path, variables: Mapping[str, str] | None = None, *, cwd: Path | None = None
) -> AsyncGenerator[Client]:
    """A front started as a client starts it, in `cwd`, with `variables` added to (or, empty, removed from) its
    environment."""
    command, *args = gateway_command(home)
    env = shared_environment(runtime_dir)
    for name, value in (variables or {}).items():
        if value:
            env[name] = value
        else:
            env.pop(name, None)
    params = StdioServerParameters(command=command, args=args, env=env, cwd=cwd)
    async with Client(params, mode="legacy", cache=None) as client:
        yield client


async def in_sessions(count: int, runtime_dir: Path, one: Any) -> list[int]:
    """Run `one(index, together)` for `count` overlapping sessions; the daemons that served them all."""
    together = Together(count)
    with anyio.fail_after(SESSION_SECONDS * 2):
        async with anyio.create_task_group() as tg:
            for index in range(count):
                tg.start_soon(one, index, together)
    return together.daemons


async def test_sessions_with_different_values_of_a_variable_get_their_own_processes(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home = workspace(tmp_path / "home", {"marked": {**fake_server(), "env": {"THE_MARK": f"${{{MARK}}}"}}})
    marks = ("first", "second", "first")
    pids: list[int] = [0] * len(marks)
    seen: list[str] = [""] * len(marks)

    async def one(index: int, together: Together) -> None:
        async with session(home, runtime_dir, {MARK: marks[index]}) as client:
            pids[index] = await downstream_pid(client, "marked")
            seen[index] = text_of(await execute(client, "marked.env", {"name": "THE_MARK"}))
            await together.arrive(runtime_dir)

    async with daemon_cleanup(runtime_dir):
        daemons = await in_sessions(len(marks), runtime_dir, one)
    assert len(daemons) == 1
    assert seen == list(marks)  # each session's process has its own value, and only it
    assert pids[0] == pids[2]  # the same value: one process
    assert pids[0] != pids[1]


async def test_a_server_without_a_cwd_runs_in_each_sessions_directory_unless_shared_across_projects(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home = workspace(
        tmp_path / "home",
        {"here": fake_server(), "anywhere": {**fake_server(), "shareAcrossProjects": True}},
    )
    projects = [tmp_path / "project-a", tmp_path / "project-b"]
    for project in projects:
        project.mkdir()
    found: dict[str, list[tuple[int, str]]] = {"here": [], "anywhere": []}

    async def one(index: int, together: Together) -> None:
        async with session(home, runtime_dir, cwd=projects[index]) as client:
            for server, seen in found.items():
                pid = await downstream_pid(client, server)
                seen.append((pid, text_of(await execute(client, f"{server}.cwd"))))
            await together.arrive(runtime_dir)

    async with daemon_cleanup(runtime_dir):
        daemons = await in_sessions(len(projects), runtime_dir, one)
    assert len(daemons) == 1
    assert len({pid for pid, _ in found["here"]}) == 2
    assert sorted(real(cwd) for _, cwd in found["here"]) == sorted(real(project) for project in projects)
    assert len({pid for pid, _ in found["anywhere"]}) == 1
    assert {real(cwd) for _, cwd in found["anywhere"]} == {real(os.environ["HOME"])}


async def test_an_inherit_env_server_gets_its_sessions_environment_not_the_daemons(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home = workspace(tmp_path / "home", {"inheriting": fake_server(), "plain": {**fake_server(), "inheritEnv": False}})
    async with daemon_cleanup(runtime_dir), session(home, runtime_dir, {MARK: "the-daemons"}) as starter:
        await downstream_pid(starter, "inheriting")  # this session's front started the daemon, with its environment
        async with session(home, runtime_dir, {MARK: "the-second-sessions", "PATH": "/usr/bin:/bin"}) as second:
            inherited = text_of(await execute(second, "inheriting.env", {"name": MARK}))
            plain_path = text_of(await execute(second, "plain.env", {"name": "PATH"}))
            plain_mark = await execute(second, "plain.env", {"name": MARK})
        assert text_of(await execute(starter, "inheriting.env", {"name": MARK})) == "the-daemons"
    assert inherited == "the-second-sessions"
    assert plain_path == "/usr/bin:/bin"  # the SDK's few inherited variables: the session's, not the daemon's
    assert plain_mark.is_error  # and nothing else of either environment


async def test_a_secret_from_one_sessions_environment_is_never_written_or_shown(
    tmp_path: Path, runtime_dir: Path
) -> None:
    keyed = {**fake_server(), "env": {"API_TOKEN": f"${{{SECRET}:-none}}"}}
    home = workspace(tmp_path / "home", {"keyed": keyed})
    async with daemon_cleanup(runtime_dir), session(home, runtime_dir, {SECRET: ""}) as starter:
        starter_pid = await downstream_pid(starter, "keyed")  # the daemon starts without the secret
        async with session(home, runtime_dir, {SECRET: SECRET_VALUE}) as holder:
            shown = [
                await execute(holder, "keyed.fail", {"message": "token: ", "env": "API_TOKEN"}),
                await execute(holder, "keyed.rpc_error", {"code": -32001, "message": "token: ", "env": "API_TOKEN"}),
                await execute(holder, "keyed.write_stderr", {"text": f"my token is {SECRET_VALUE}"}),
            ]
            holder_pid = await downstream_pid(holder, "keyed")
        other = await execute(starter, "keyed.env", {"name": "API_TOKEN"})
    assert holder_pid != starter_pid
    assert text_of(other) == "none"  # the other session's process never had it
    texts = [text_of(result) for result in shown]
    assert all(SECRET_VALUE not in text for text in texts), texts
    assert f"token: {MASK}" in texts[0]
    assert f"token: {MASK}" in texts[1]
    assert files_holding(home, SECRET_VALUE) == []
    said = (home / "logs" / "keyed.stderr.log").read_text()
    assert f"my token is {MASK}" in said  # what the server said was written, masked


def real(path: str | Path) -> Path:
    return Path(path).resolve()


def files_holding(directory: Path, text: str) -> list[Path]:
    """Every file under `directory` (the workspace: errors.json, the logs, cache.json, …) with `text` in it."""
    return [path for path in directory.rglob("*") if path.is_file() and text.encode() in path.read_bytes()]


def only_tool(name: str) -> str:
    return json.dumps(
        [{"name": name, "description": f"Does what only {name} does.", "inputSchema": {"type": "object"}}]
    )


async def test_a_server_that_lists_otherwise_per_project_never_shows_one_projects_listing_to_another(
    tmp_path: Path, runtime_dir: Path
) -> None:
    """A server whose tools and instructions come from its session's environment: project A's session lists it
    first; project B's session still calls its own tools, and from then on neither sees the other's tool names
    or instructions (search, list, describe, and the instructions a later session starts with)."""
    server = {**fake_server(), "env": {"FAKE_MCP_TOOLS_JSON": "${EXTRA_TOOLS}", "FAKE_MCP_INSTRUCTIONS": "${NOTE}"}}
    home = workspace(tmp_path / "home", {"fake": server})
    project_a = {"EXTRA_TOOLS": only_tool("alpha_only"), "NOTE": "Project Alpha's private notes live in /srv/alpha."}
    project_b = {"EXTRA_TOOLS": only_tool("beta_only"), "NOTE": "Project Beta works on the beta build."}
    async with daemon_cleanup(runtime_dir), session(home, runtime_dir, project_a) as alpha:
        with anyio.fail_after(SESSION_SECONDS):
            alpha_listed = await alpha.call_tool("list_tools", {"server": "fake"})
            assert "alpha_only" in text_of(alpha_listed)
            async with session(home, runtime_dir, project_b) as beta:
                called = await execute(beta, "fake.beta_only", {})  # not in the catalog yet: its own process
                assert not called.is_error, text_of(called)
                beta_listed = text_of(await beta.call_tool("list_tools", {"server": "fake"}))
                beta_search = text_of(await beta.call_tool("search_tools", {"query": "does what only alpha_only does"}))
                beta_describe = await beta.call_tool("describe_tool", {"tool": "fake.alpha_only"})
                alpha_again = text_of(await alpha.call_tool("list_tools", {"server": "fake"}))
            async with session(home, runtime_dir, project_b) as later:
                later_instructions = later.instructions or ""
    assert "beta_only" in beta_listed
    assert "alpha_only" not in beta_listed
    assert "Project Beta" in beta_listed
    assert "Alpha" not in beta_listed
    assert "alpha_only" not in json.dumps(json.loads(beta_search)["results"])
    assert "lists other tools for other projects or environments" in beta_search
    assert beta_describe.is_error
    assert "Alpha" not in text_of(beta_describe)
    assert "alpha_only" in alpha_again
    assert "beta_only" not in alpha_again
    assert "Project Alpha" in alpha_again
    assert "alpha_only" not in later_instructions
    assert "Alpha" not in later_instructions
