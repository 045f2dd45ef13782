"""Process records, end to end: what the real gateway does with the records it finds in its workspace.

A record file is only a claim. Garbage in `run/` must neither stop `mcp-gateway status` nor a serving
gateway, and a recorded group id now used by an unrelated program (or by the gateway's own group) must
never be signalled; a group that proves to be ours (its processes carry the gateway's marker) is reaped
by the next start after a SIGKILL, even when its leader is gone. What starts servers, and so records them and
can be SIGKILLed leaving them behind, is the daemon behind the client's front (here the workspace's shared one).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import anyio
import psutil
import pytest
from e2e_gateway import (
    PROCESS_GONE_SECONDS,
    SESSION_SECONDS,
    is_alive,
    kill_groups_quietly,
    raw_gateway,
    read_pid,
    run_cli_async,
    wait_for,
    wait_groups_empty,
)
from workspaces import fake_server, write_workspace

from mcp_gateway.downstream.processes import GROUP_MARKER_ENV

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.anyio,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process groups from Linux /proc"),
]

PID_APPEARS_SECONDS = 10.0
UNRELATED_TOKEN = "5eed" * 8


def garbage_records(run: Path, dead_gateway: int) -> list[Path]:
    """Record files of valid JSON that no gateway can use, as issue reports found them."""
    record = {"version": 2, "gateway": {"pid": dead_gateway, "start": 1.0}, "token": UNRELATED_TOKEN}
    shapes = [
        record | {"groups": [{"pgid": "x", "start": None, "server": "s"}]},
        record | {"groups": [{"pgid": -5, "start": None, "server": "s"}]},
        record | {"groups": [{"pgid": 10**30, "start": None, "server": "s"}]},
        record | {"groups": [5]},
        {"gateway": {"pid": dead_gateway}},
        record | {"groups": [{"pgid": 1, "start": None, "server": "s"}]},
    ]
    run.mkdir(parents=True, exist_ok=True)
    paths = [run / f"{900_000 + index}.json" for index in range(len(shapes))]
    for path, shape in zip(paths, shapes, strict=True):
        path.write_text(json.dumps(shape))
    return paths


def claim(run: Path, dead_gateway: int, pgids: list[int]) -> Path:
    """A well-formed record of a gateway that is gone, claiming groups that are not its own."""
    groups = [{"pgid": pgid, "start": None, "server": "claimed"} for pgid in pgids]
    path = run / f"{dead_gateway}.json"
    path.write_text(
        json.dumps(
            {"version": 2, "gateway": {"pid": dead_gateway, "start": 1.0}, "token": UNRELATED_TOKEN, "groups": groups}
        )
    )
    return path


@pytest.fixture
def dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait(timeout=PID_APPEARS_SECONDS)
    return process.pid


@pytest.fixture
def unrelated_group() -> Iterator[tuple[int, int]]:
    """A process group that is not the gateway's: its leader has exited, one `sleep` lives on in it.

    Exactly what a reused group id looks like to a gateway reading an old record (leader gone, members alive).
    """
    env = {key: value for key, value in os.environ.items() if key != GROUP_MARKER_ENV}
    leader = subprocess.Popen(
        ["sh", "-c", "sleep 300 >/dev/null 2>&1 & echo $!"], start_new_session=True, stdout=subprocess.PIPE, env=env
    )
    out, _ = leader.communicate(timeout=PID_APPEARS_SECONDS)
    try:
        yield leader.pid, int(out)
    finally:
        kill_groups_quietly([leader.pid])


async def test_garbage_records_and_foreign_groups_stop_neither_status_nor_serving_and_nothing_foreign_is_signalled(
    tmp_path: Path, dead_pid: int, unrelated_group: tuple[int, int]
) -> None:
    home = tmp_path / "home"
    write_workspace(home, {"fake": fake_server()})
    run = home / "run"
    foreign_pgid, foreign_member = unrelated_group
    garbage = garbage_records(run, dead_pid)
    claim(run, dead_pid, [foreign_pgid, os.getpgrp()])  # the gateway runs in the test's own group
    learned: list[int] = []
    try:
        async with raw_gateway(home) as gateway:
            with anyio.fail_after(SESSION_SECONDS):
                result = await gateway.call("tools/call", {"name": "execute_tool", "arguments": {"tool": "fake.pid"}})
                learned.append(served := int(result["structuredContent"]["pid"]))
            assert not any(path.exists() for path in garbage), "the serving gateway set every unusable record aside"
            assert len(list(run.glob("*.unusable-*"))) == 5, "only the newest five are kept"

            garbage = garbage_records(run, dead_pid)
            done = await run_cli_async("status", "--json", home=home)
            assert done.returncode == 0, done.stderr
            (fake,) = json.loads(done.stdout)["servers"]
            daemon = psutil.Process(served).ppid()
            assert fake["running"] == [{"gatewayPid": daemon, "pid": served}], "status reads amid garbage"
            assert not any(path.exists() for path in garbage)
            assert (run / f"{daemon}.json").exists(), "a live gateway's record is never reaped"
            assert is_alive(served)
            await gateway.close_stdin()
            assert await gateway.wait_exit(PROCESS_GONE_SECONDS) == 0
        assert is_alive(foreign_member), "a group that is not provably ours is left alone"
    finally:
        kill_groups_quietly(learned)


async def test_after_a_sigkill_the_next_daemon_reaps_a_grandchild_whose_leader_exited_by_its_marker(
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "grandchild.pid"
    home = tmp_path / "home"
    write_workspace(home, {"tree": fake_server(grandchild="1", grandchild_pid_file=str(pid_file))})
    learned: list[int] = []
    try:
        async with raw_gateway(home) as gateway:
            with anyio.fail_after(SESSION_SECONDS):
                result = await gateway.call("tools/call", {"name": "execute_tool", "arguments": {"tool": "tree.pid"}})
                learned.append(tree := int(result["structuredContent"]["pid"]))
                await wait_for(lambda: read_pid(pid_file) is not None, PID_APPEARS_SECONDS)
            grandchild = read_pid(pid_file)
            assert grandchild is not None
            daemon = psutil.Process(tree).ppid()
            token = json.loads((home / "run" / f"{daemon}.json").read_text())["token"]
            assert psutil.Process(grandchild).environ()[GROUP_MARKER_ENV] == token
            os.kill(daemon, signal.SIGKILL)
            await wait_for(lambda: not is_alive(daemon), PROCESS_GONE_SECONDS)
            # The front reaches a daemon again (it starts one), which reaps what the killed one left: the tree's
            # leader exits on its stdin's end, the grandchild is found by its marker.
            await wait_groups_empty([tree])
            result = await gateway.call("tools/call", {"name": "execute_tool", "arguments": {"tool": "tree.pid"}})
            learned.append(int(result["structuredContent"]["pid"]))
            await gateway.close_stdin()
            assert await gateway.wait_exit(PROCESS_GONE_SECONDS) == 0
    finally:
        kill_groups_quietly(learned)
