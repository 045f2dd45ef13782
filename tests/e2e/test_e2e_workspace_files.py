"""A hostile or broken workspace, end to end: the real `mcp-gateway` (status, and serving a real client) in
front of the real fake server, with FIFOs, devices, links to files outside the workspace, `logs` and `run`
as files, a newer gateway's cache.json and a temp file a killed writer left.

Nothing hangs (every wait is bounded, so a regression fails instead), nothing crashes, no file outside the
workspace changes, and what cannot work is said once.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_gateway import (
    PROCESS_GONE_SECONDS,
    SESSION_SECONDS,
    RawGateway,
    client_environment,
    execute,
    gateway_command,
    gateway_session,
    kill_quietly,
    notes_of,
    run_cli_async,
    search,
    search_when_loaded,
    text_of,
)
from workspace_hazards import Outside, dead_pid, plant_fifo, plant_link, release_fifo
from workspaces import fake_server, refreshed_workspace, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

NEWER_CACHE = json.dumps({"version": 2, "servers": {"fake": {"written": "by a newer gateway"}}}).encode()
LOGS_PROBLEM = "is a regular file, so the stderr of servers is not logged"


def set_aside(home: Path, why: str) -> list[Path]:
    """The cache files set aside in `home` for the reason `why` (a glob)."""
    return sorted(home.glob(f"cache.json.{why}-*"))


def fake_workspace(home: Path) -> None:
    write_workspace(home, {"fake": fake_server()})


@asynccontextmanager
async def serving(home: Path, stderr: Path) -> AsyncGenerator[RawGateway]:
    """The gateway serving `home` over hand-written JSON-RPC, its stderr kept in a file."""
    with stderr.open("wb") as errlog:
        process = await anyio.open_process(
            gateway_command(home),
            env=client_environment(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errlog,
        )
        try:
            gateway = RawGateway(process)
            with anyio.fail_after(SESSION_SECONDS):
                await gateway.initialize()
            yield gateway
        finally:
            if process.returncode is None:
                kill_quietly([process.pid])
            with anyio.CancelScope(shield=True), anyio.move_on_after(PROCESS_GONE_SECONDS):
                await process.aclose()


async def call_tool(gateway: RawGateway, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await gateway.call("tools/call", {"name": name, "arguments": arguments})
    assert not result.get("isError"), result
    return result


async def search_payload(gateway: RawGateway, query: str) -> dict[str, Any]:
    result = await call_tool(gateway, "search_tools", {"query": query})
    return json.loads(result["content"][0]["text"])


async def test_status_with_a_fifo_as_cache_json_answers_at_once_and_sets_the_fifo_aside(tmp_path: Path) -> None:
    fake_workspace(tmp_path)
    fifo = plant_fifo(tmp_path / "cache.json")
    try:
        done = await run_cli_async("status", home=tmp_path)
    finally:
        release_fifo(fifo)
    assert done.returncode == 0, done.stderr
    assert "fake: missing" in done.stdout
    assert "is a FIFO, not a regular file" in done.stderr
    (aside,) = set_aside(tmp_path, "not-a-file")
    assert stat.S_ISFIFO(aside.lstat().st_mode)


async def test_a_fifo_as_config_json_is_one_clear_line_from_status_and_said_by_a_serving_session_never_a_hang(
    tmp_path: Path,
) -> None:
    fifo = plant_fifo(tmp_path / "config.json")
    try:
        status = await run_cli_async("status", home=tmp_path)
        with anyio.fail_after(SESSION_SECONDS):
            async with gateway_session(tmp_path) as client:  # serves, with no servers, and says why
                notes = notes_of(await search(client, "echo"))
    finally:
        release_fifo(fifo)
    assert status.returncode == 2, status.stderr
    assert "the config file is a FIFO, not a regular file" in status.stderr
    assert "Traceback" not in status.stderr
    assert len(status.stderr.strip().splitlines()) == 1
    assert any("the config file is a FIFO, not a regular file" in note for note in notes), notes


async def test_links_planted_for_every_workspace_file_never_reach_their_targets(tmp_path: Path) -> None:
    home, outside_dir = tmp_path / "home", tmp_path / "outside"
    fake_workspace(home)
    cache_content = json.dumps({"version": 1, "servers": {}}).encode()
    planted: list[Outside] = [
        plant_link(home / "cache.json", outside_dir, cache_content),
        plant_link(home / "cache.json.lock", outside_dir),
        plant_link(home / "errors.json", outside_dir),
        plant_link(home / "logs" / "fake.stderr.log", outside_dir),
    ]
    (home / "logs").chmod(0o700)

    status = await run_cli_async("status", home=home)
    async with serving(home, tmp_path / "stderr.log") as gateway:
        with anyio.fail_after(SESSION_SECONDS):
            echoed = await call_tool(gateway, "execute_tool", {"tool": "fake.echo", "arguments": {"message": "hi"}})
            await gateway.call("ping", {})

    assert status.returncode == 0, status.stderr
    assert echoed["content"][0]["text"] == "hi"
    for outside in planted:
        outside.assert_untouched()
    assert (home / "logs" / "fake.stderr.log").is_symlink()
    # Message by what serves: the workspace's shared daemon, whose stderr is its log (never the session's pipe).
    assert (
        "fake.stderr.log is a symbolic link: this server's stderr is not logged"
        in (home / "logs" / "daemon.log").read_text()
    )


async def test_a_newer_gateways_cache_is_reported_by_status_and_never_rewritten_by_serving(tmp_path: Path) -> None:
    fake_workspace(tmp_path)
    cache = tmp_path / "cache.json"
    cache.write_bytes(NEWER_CACHE)

    status = await run_cli_async("status", home=tmp_path)
    with anyio.fail_after(SESSION_SECONDS):
        async with gateway_session(tmp_path) as client:
            await search_when_loaded(client, "echo a message")  # listed from the server, kept in memory
            result = await execute(client, "fake.echo", {"message": "still works"})

    assert status.returncode == 0, status.stderr
    assert "written by a newer mcp-gateway" in status.stdout
    assert text_of(result) == "still works"
    assert cache.read_bytes() == NEWER_CACHE
    assert set_aside(tmp_path, "*") == []


async def test_logs_and_run_as_files_cost_only_their_features_said_once(tmp_path: Path) -> None:
    fake_workspace(tmp_path)
    (tmp_path / "logs").write_text("a file, not a directory")
    (tmp_path / "run").write_text("a file, not a directory")

    status = await run_cli_async("status", home=tmp_path)
    async with serving(tmp_path, tmp_path / "stderr.txt") as gateway:
        with anyio.fail_after(SESSION_SECONDS):
            echoed = await call_tool(gateway, "execute_tool", {"tool": "fake.echo", "arguments": {"message": "hi"}})
            await call_tool(gateway, "execute_tool", {"tool": "fake.write_stderr", "arguments": {"text": "noise\n"}})
            await gateway.call("ping", {})

    assert status.returncode == 0, status.stderr
    assert f"workspace problem: {tmp_path / 'logs'} {LOGS_PROBLEM}" in status.stdout
    assert f"workspace problem: {tmp_path / 'run'} is a regular file" in status.stdout
    assert echoed["content"][0]["text"] == "hi"
    gateway_stderr = (tmp_path / "stderr.txt").read_text()
    # Message once on the session's stderr, by the front that could not give the daemon it started a log there.
    assert gateway_stderr.count(f"the daemon's stderr is not logged in {tmp_path / 'logs'}") == 1, gateway_stderr
    assert "Not a directory" in gateway_stderr
    assert "Traceback" not in gateway_stderr
    assert (tmp_path / "logs").read_text() == "a file, not a directory"


async def test_a_serving_gateway_whose_cache_json_becomes_a_fifo_keeps_answering(tmp_path: Path) -> None:
    await refreshed_workspace(tmp_path, {"fake": fake_server()})
    cache = tmp_path / "cache.json"
    async with serving(tmp_path, tmp_path / "stderr.txt") as gateway:
        with anyio.fail_after(SESSION_SECONDS):
            before = await search_payload(gateway, "echo a message")
            swap = plant_fifo(tmp_path / "swap.fifo")
            os.replace(swap, cache)  # atomically, as a writer renames its temp file
            try:
                after = await search_payload(gateway, "echo a message")  # notices the change, must not block
                await gateway.call("ping", {})
                echoed = await call_tool(gateway, "execute_tool", {"tool": "fake.echo", "arguments": {"message": "x"}})
            finally:
                release_fifo(cache)
    assert before["results"][0]["tool"] == "fake.echo"
    assert after["results"][0]["tool"] == "fake.echo"  # served from memory
    assert echoed["content"][0]["text"] == "x"
    assert len(set_aside(tmp_path, "not-a-file")) == 1


async def test_status_removes_a_temp_file_a_killed_writer_left(tmp_path: Path) -> None:
    await refreshed_workspace(tmp_path, {"fake": fake_server()})
    stale = tmp_path / f".cache.json.{dead_pid()}.tmp"
    stale.write_bytes(b'{"version":1,"serv')
    done = await run_cli_async("status", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "fake: fresh" in done.stdout
    assert not stale.exists()
