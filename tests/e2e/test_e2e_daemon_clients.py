"""Real clients through one shared daemon: an SDK session, the MCP Inspector CLI and Claude Code on one workspace.

The user's server-everything is moved into the gateway by the real `mcp-gateway import --client claude-code
--write-client-config`; then, with sharing on (as a user has it: no `MCP_GATEWAY_STANDALONE`), an SDK session
holds the workspace's daemon open while the Inspector CLI calls a tool through its own front and Claude Code
plays the scripted tour against the mock model API through another. Every client gets its correct result, all
of them are served by one daemon, and one server-everything process serves them all: its starts are counted
by a wrapper the user's config names, so a client served by any other gateway would show as a second start.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
from pathlib import Path
from typing import Any, cast

import anyio
import psutil
import pytest
from clients.clis import ClaudeCode, OpenCode, UserServer
from clients.mock_api import running_mock_api
from clients.places import Place
from clients.script import SUM_ARGUMENTS, ExecuteOnce, GatewayTour
from clients.sessions import ClientRun, moved_in, run_client
from clients.tour import EVERYTHING, PROMPT
from e2e_gateway import (
    CLI_SECONDS,
    SESSION_SECONDS,
    client_environment,
    execute,
    gateway_command,
    parse_json_output,
    read_lines,
    spawn_logging_wrapper,
    text_of,
)
from gateway_testing import peer
from mcp import Client, StdioServerParameters
from workspaces import DAEMON_GONE_SECONDS, GRACE_SECONDS, edited_config

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

SUM = f"{EVERYTHING}.get-sum"


def shared_environment(place: Place) -> dict[str, str]:
    """The test's environment with sharing on, as the user of `place` (its HOME). Every front meets where the
    user id says (`front/rendezvous.py`), whatever XDG_RUNTIME_DIR and TMPDIR each client passes: Claude Code
    (2.1.332) has been seen to start one session's gateway with and without them."""
    env = client_environment()
    env["HOME"] = str(place.home)
    env.pop("MCP_GATEWAY_STANDALONE", None)
    env.pop("MCP_GATEWAY_RUNTIME_DIR", None)
    env["XDG_RUNTIME_DIR"] = str(place.root)  # none of the fronts' business
    return env


def daemons(workspace: Path) -> list[psutil.Process]:
    """The shared daemons of `workspace`, named by `--home` or by MCP_GATEWAY_HOME, as a client's entry sets it."""
    found: list[psutil.Process] = []
    for process in psutil.process_iter():
        try:
            argv = process.cmdline()
            if "daemon" not in argv or "--socket" not in argv:
                continue
            if str(workspace) in argv or process.environ().get("MCP_GATEWAY_HOME") == str(workspace):
                found.append(process)
        except psutil.Error:
            continue
    return found


def everything_processes(daemon: psutil.Process) -> set[int]:
    """The server-everything processes the daemon started (each its own process group's leader)."""
    found: set[int] = set()
    for child in daemon.children():
        try:
            if any("server-everything" in part for part in child.cmdline()):
                found.add(child.pid)
        except psutil.Error:
            continue
    return found


def inspector_sum(place: Place) -> dict[str, Any]:
    workspace = place.workspace
    env = shared_environment(place)
    env["MCP_CATALOG_PATH"] = str(place.root / "inspector-catalog.json")
    request = ["--method", "tools/call", "--tool-name", "execute_tool", "--tool-arg", f"tool={SUM}"]
    done = subprocess.run(
        [
            str(peer("mcp-inspector")),
            "--cli",
            *gateway_command(workspace),
            *request,
            f"arguments={json.dumps(SUM_ARGUMENTS)}",
        ],
        capture_output=True,
        text=True,
        timeout=CLI_SECONDS,
        env=env,
        cwd=place.project,
        check=False,
    )
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return parse_json_output(done.stdout)


def shared_by_every_client(workspace: Path) -> None:
    """A short grace, and server-everything given only the few variables every client passes alike (HOME,
    PATH, …): each client adds its own to the environment (Claude Code its CLAUDECODE and the like; here the
    mock API's proxies too), and with `inheritEnv` a session whose environment differs gets a process of its
    own (`downstream/definitions.py`). The three sessions run in the same project."""
    with edited_config(workspace) as document:
        document.setdefault("settings", {})["daemonGraceSeconds"] = GRACE_SECONDS
        document["mcpServers"][EVERYTHING]["inheritEnv"] = False


async def test_an_sdk_session_the_inspector_and_claude_code_share_one_daemon_and_one_server(tmp_path: Path) -> None:
    client = ClaudeCode()
    place = Place(tmp_path / "claude")
    command, *args = gateway_command(place.workspace)
    served_by: list[set[int]] = []
    starts = tmp_path / "everything.starts"
    tmp_path.joinpath("bin").mkdir()
    wrapper = spawn_logging_wrapper(tmp_path / "bin", peer("mcp-server-everything"), starts)
    try:
        async with running_mock_api(GatewayTour()) as mock:
            await moved_in(
                client, place, [UserServer(EVERYTHING, str(wrapper))], mock.base_url, mock.proxy_url, refresh=True
            )
            shared_by_every_client(place.workspace)
            params = StdioServerParameters(command=command, args=args, env=shared_environment(place), cwd=place.project)
            started_by_refresh = len(read_lines(starts))
            with anyio.fail_after(SESSION_SECONDS * 3):
                async with Client(params, mode="legacy", cache=None) as sdk:
                    summed = await execute(sdk, SUM, SUM_ARGUMENTS)
                    [daemon] = daemons(place.workspace)
                    served_by.append(everything_processes(daemon))

                    result = await anyio.to_thread.run_sync(inspector_sum, place)
                    served_by.append(everything_processes(daemon))

                    run = await run_client(client, place, client.command(place, PROMPT), mock)
                    served_by.append(everything_processes(daemon))
                    assert daemons(place.workspace) == [daemon], "one daemon served all three"
            with anyio.fail_after(DAEMON_GONE_SECONDS):
                while daemon.is_running() and daemon.status() != psutil.STATUS_ZOMBIE:  # noqa: ASYNC110
                    await anyio.sleep(0.1)
    finally:
        for process in daemons(place.workspace):
            process.send_signal(signal.SIGKILL)

    assert re.search(r"\b5\b", text_of(summed)), text_of(summed)
    assert not result.get("isError"), result
    texts = [str(item["text"]) for item in cast(list[dict[str, Any]], result["content"]) if item["type"] == "text"]
    assert any(re.search(r"\b5\b", text) for text in texts), result
    assert run.returncode == 0, run.output()
    calls = mock.calls_made()
    assert [call.arguments.get("tool") for call in calls[1:2]] == [SUM], mock.summary()
    answering = mock.requests_after(calls[1].call_id)
    assert answering, mock.summary()
    answer = answering[0].result_of(calls[1])
    assert answer is not None
    assert re.search(r"\b5\b", answer.text), answer.text
    assert run.leftovers == [], "the client's front left nothing behind"
    assert len(read_lines(starts)) == started_by_refresh + 1, "one server-everything start served every client"
    assert len(served_by[0]) == 1, served_by
    assert served_by == [served_by[0]] * 3, "the daemon's one server-everything process served every client"


SESSIONS = (ClaudeCode(), OpenCode(), ClaudeCode(), ClaudeCode(), OpenCode(), ClaudeCode(), OpenCode(), ClaudeCode())
"""Eight sessions, one after another, of the two clients that matter most, on one workspace."""
STAYING_GRACE_SECONDS = 120.0
"""Long enough for the next session to find the daemon, as a user's 30 s is for sessions a few seconds apart."""


async def test_sessions_of_claude_code_and_opencode_one_after_another_share_one_process_per_server(
    tmp_path: Path,
) -> None:
    """Both clients import the same server-everything into one workspace; eight real sessions then run one after
    another, each calling it through the gateway, with its default `inheritEnv`. Each client puts variables of
    its own in every session's environment (Claude Code its session id and a messaging token among them): none
    may keep a session from sharing what another started, so one server-everything process serves all eight."""
    place = Place(tmp_path / "user")
    starts = tmp_path / "everything.starts"
    tmp_path.joinpath("bin").mkdir()
    wrapper = spawn_logging_wrapper(tmp_path / "bin", peer("mcp-server-everything"), starts)
    servers = [UserServer(EVERYTHING, str(wrapper))]
    runs: list[ClientRun] = []
    try:
        async with running_mock_api(ExecuteOnce(SUM, SUM_ARGUMENTS)) as mock:
            for client in {type(session): session for session in SESSIONS}.values():
                await moved_in(client, place, servers, mock.base_url, mock.proxy_url, refresh=False)
                client.wait_for_every_server(place)
            stay(place.workspace)
            # What the user's shell has: the API settings of both, in every client's environment alike.
            shell = ClaudeCode().environment(place, mock.base_url) | OpenCode().environment(place, mock.base_url)
            for number, client in enumerate(SESSIONS):
                command = client.command(place, PROMPT)
                runs.append(
                    await run_client(
                        client, place, command, mock, label=f"{number}", extra_env=shell, daemon_stays=True
                    )
                )
            answered = [call for call in mock.calls_made() if call.arguments.get("tool") == SUM]
            sharing = daemons(place.workspace)
    finally:
        for process in daemons(place.workspace):
            process.send_signal(signal.SIGTERM)

    assert [run.returncode for run in runs] == [0] * len(SESSIONS), "\n".join(run.output() for run in runs)
    assert len(answered) == len(SESSIONS), mock.summary()
    assert all(run.leftovers == [] for run in runs), [run.leftovers for run in runs]
    assert len(sharing) == 1, "one daemon served every session"
    assert len(read_lines(starts)) == 1, "one server-everything process served all eight sessions"


def stay(workspace: Path) -> None:
    with edited_config(workspace) as document:
        document.setdefault("settings", {})["daemonGraceSeconds"] = STAYING_GRACE_SECONDS
