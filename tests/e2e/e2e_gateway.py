"""Helpers for the end-to-end tests: the real `mcp-gateway` process, real downstream servers, real clients.

Every helper bounds its waits. Clients of the gateway get the test process's whole environment, so the
gateway (and the servers it starts) find `node` on PATH, as they would under an AI client. The workspaces these
sessions serve are set up by `workspaces`.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import anyio
import anyio.abc
import mcp_types as types
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp import Client, StdioServerParameters
from mcp.shared.dispatcher import ProgressFnT
from process_leaks import TEST_RUN_ENV
from shared_daemons import stop_daemons

VENV_BIN = Path(sys.executable).parent
GATEWAY_BIN = VENV_BIN / "mcp-gateway"
TIME_SERVER_BIN = VENV_BIN / "mcp-server-time"
META_TOOLS = ["search_tools", "list_tools", "describe_tool", "execute_tool"]
STILL_LOADING = "Still loading"

SESSION_SECONDS = 60.0
"""Upper bound for one whole client session with the gateway (start, calls, shutdown)."""
LOADING_SECONDS = 30.0
"""Upper bound for the gateway's background catalog build on a first start."""
POLL_SECONDS = 0.05
PROCESS_GONE_SECONDS = 15.0
"""Upper bound for a process to disappear after the gateway was told to stop."""
CLI_SECONDS = 60.0
MAX_LINE_BYTES = 16 * 1024 * 1024


def gateway_program() -> list[str]:
    """The installed console script when present, else the module."""
    return [str(GATEWAY_BIN)] if GATEWAY_BIN.exists() else [sys.executable, "-m", "mcp_gateway"]


def gateway_command(home: Path) -> list[str]:
    """The gateway serving (or managing) the workspace at `home`."""
    return [*gateway_program(), "--home", str(home)]


def client_environment() -> dict[str, str]:
    """The whole environment, minus a workspace override that would compete with `--home`."""
    env = dict(os.environ)
    env.pop("MCP_GATEWAY_HOME", None)
    return env


def gateway_params(home: Path) -> StdioServerParameters:
    command, *args = gateway_command(home)
    return StdioServerParameters(command=command, args=args, env=client_environment())


@asynccontextmanager
async def gateway_session(home: Path, *, mode: str = "legacy") -> AsyncGenerator[Client]:
    """An SDK client connected to a fresh gateway process over stdio."""
    async with Client(gateway_params(home), mode=mode, cache=None) as client:
        yield client


# Spawn logs.


def spawn_logging_wrapper(directory: Path, target: Path, log: Path) -> Path:
    """A script that appends its pid to `log`, then becomes `target`: counts the starts of any server."""
    script = directory / f"{target.name}-logged"
    script.write_text(f'#!/bin/sh\necho "$$" >> "{log}"\nexec "{target}" "$@"\n')
    script.chmod(0o755)
    return script


def read_lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


# Results.


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(item.text for item in result.content if isinstance(item, types.TextContent))


def payload_of(result: types.CallToolResult) -> dict[str, Any]:
    """A meta-tool's compact JSON payload (its single text content item)."""
    assert len(result.content) == 1, result
    first = result.content[0]
    assert isinstance(first, types.TextContent), result
    return cast(dict[str, Any], json.loads(first.text))


def ranked_tools(payload: Mapping[str, Any]) -> list[str]:
    return [str(entry["tool"]) for entry in cast(list[dict[str, Any]], payload["results"])]


def notes_of(payload: Mapping[str, Any]) -> list[str]:
    return [str(note) for note in cast(list[Any], payload.get("notes", []))]


async def search(client: Client, query: str, **extra: Any) -> dict[str, Any]:
    result = await client.call_tool("search_tools", {"query": query, **extra})
    assert not result.is_error, text_of(result)
    return payload_of(result)


async def search_when_loaded(client: Client, query: str, **extra: Any) -> dict[str, Any]:
    """Search once the background catalog build (first start) is over: no "Still loading" note, some hits."""
    with anyio.fail_after(LOADING_SECONDS):
        while True:
            payload = await search(client, query, **extra)
            if payload["results"] and not any(STILL_LOADING in note for note in notes_of(payload)):
                return payload
            await anyio.sleep(POLL_SECONDS)


async def build_cache(home: Path, query: str, servers: Iterable[str]) -> None:
    """Run the gateway once until cache.json holds every one of `servers`, then stop it: its daemon too, as its
    grace would (a session after this one starts every server afresh)."""
    expected = set(servers)
    async with gateway_session(home) as client:
        await search_when_loaded(client, query)
    stubborn = await anyio.to_thread.run_sync(stop_daemons, os.environ[TEST_RUN_ENV])
    assert not stubborn, f"a daemon did not stop: {stubborn}"
    cached = set(cast(dict[str, Any], json.loads((home / "cache.json").read_text())["servers"]))
    assert expected <= cached, f"cache.json holds {sorted(cached)}, expected {sorted(expected)}"


async def execute(
    client: Client,
    tool: str,
    arguments: Mapping[str, Any] | None = None,
    progress_callback: ProgressFnT | None = None,
) -> types.CallToolResult:
    """`execute_tool` through the gateway."""
    return await client.call_tool(
        "execute_tool", {"tool": tool, "arguments": dict(arguments or {})}, progress_callback=progress_callback
    )


async def downstream_pid(client: Client, server: str) -> int:
    """The process id of `server`, from the fake server's `pid` tool (starting it if need be)."""
    result = await execute(client, f"{server}.pid")
    assert result.structured_content is not None, text_of(result)
    pid = result.structured_content["pid"]
    assert isinstance(pid, int)
    return pid


def parse_json_output(text: str) -> dict[str, Any]:
    """The first JSON object that starts a line of `text` (tools print banners around their JSON)."""
    decoder = json.JSONDecoder()
    starts = [0] + [index + 1 for index, char in enumerate(text) if char == "\n"]
    for start in starts:
        offset = start + len(text[start:]) - len(text[start:].lstrip(" \t"))
        if not text.startswith("{", offset):
            continue
        try:
            value, _ = decoder.raw_decode(text, offset)
        except ValueError:
            continue
        if isinstance(value, dict):
            return cast(dict[str, Any], value)
    raise AssertionError(f"no JSON object in the output:\n{text}")


# Processes.


def is_alive(pid: int) -> bool:
    """Whether `pid` still runs; an exited process waiting to be reaped (zombie) counts as gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    with contextlib.suppress(OSError):
        return _stat_fields(stat.read_text())[0] != "Z"
    return True


def parent_pid(pid: int) -> int:
    """The parent of a running process (Linux /proc)."""
    return int(_stat_fields(Path(f"/proc/{pid}/stat").read_text())[1])


def group_members(pgid: int) -> list[int]:
    """The live processes of process group `pgid` (zombies count as gone), from Linux /proc."""
    members: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = _stat_fields((entry / "stat").read_text())
            if fields[0] != "Z" and int(fields[2]) == pgid:
                members.append(int(entry.name))
    return members


async def wait_groups_empty(pgids: Iterable[int], seconds: float = PROCESS_GONE_SECONDS) -> None:
    watched = list(pgids)
    await wait_for(lambda: not any(group_members(pgid) for pgid in watched), seconds)


def kill_groups_quietly(pgids: Iterable[int]) -> None:
    """Clean-up after a failed test: SIGKILL whole process groups it learned of, if still there."""
    for pgid in pgids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def _stat_fields(stat: str) -> list[str]:
    # The command name (field 2) is in parentheses and may hold spaces; the state follows its closing one.
    return stat[stat.rindex(")") + 2 :].split()


async def wait_for(condition: Callable[[], bool], seconds: float) -> None:
    """Poll `condition` until it holds; TimeoutError after `seconds`."""
    with anyio.fail_after(seconds):
        while True:
            if condition():
                return
            await anyio.sleep(POLL_SECONDS)


async def wait_gone(pids: Iterable[int], seconds: float = PROCESS_GONE_SECONDS) -> None:
    watched = list(pids)
    await wait_for(lambda: not any(is_alive(pid) for pid in watched), seconds)


def read_pid(path: Path) -> int | None:
    """The first pid in a pid file or spawn log, None while there is none."""
    lines = read_lines(path)
    return int(lines[0]) if lines else None


def kill_quietly(pids: Iterable[int]) -> None:
    """Clean-up after a failed test: SIGKILL what it learned it had started, if still there."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def run_cli(*args: str, home: Path | None = None, timeout: float = CLI_SECONDS) -> subprocess.CompletedProcess[str]:
    command = gateway_command(home) if home is not None else gateway_program()
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=timeout, env=client_environment(), check=False
    )


class RawGateway:
    """The gateway process driven by hand-written JSON-RPC lines, so a test controls stdin and signals."""

    def __init__(self, process: anyio.abc.Process) -> None:
        self.process = process
        assert process.stdin is not None
        assert process.stdout is not None
        self._stdin = process.stdin
        self._stdout = BufferedByteReceiveStream(process.stdout)
        self._next_id = 0

    @property
    def pid(self) -> int:
        return self.process.pid

    async def send(self, message: Mapping[str, Any]) -> None:
        await self._stdin.send((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())

    async def send_line(self, line: bytes) -> None:
        """`line` exactly as given, then a newline: for lines that are malformed on purpose."""
        await self._stdin.send(line + b"\n")

    async def next_message(self) -> dict[str, Any]:
        """Whatever the gateway writes next (so a test can tell that nothing came before it)."""
        line = await self._stdout.receive_until(b"\n", MAX_LINE_BYTES)
        return cast(dict[str, Any], json.loads(line))

    async def request(self, method: str, params: Mapping[str, Any]) -> int:
        self._next_id += 1
        await self.send({"id": self._next_id, "method": method, "params": dict(params)})
        return self._next_id

    async def response(self, request_id: types.RequestId | None) -> dict[str, Any]:
        """The response to `request_id`, skipping notifications and other responses."""
        while True:
            line = await self._stdout.receive_until(b"\n", MAX_LINE_BYTES)
            message = cast(dict[str, Any], json.loads(line))
            if message.get("id") == request_id and "method" not in message:
                return message

    async def call(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        response = await self.response(await self.request(method, params))
        assert "result" in response, response
        return cast(dict[str, Any], response["result"])

    async def initialize(self) -> None:
        await self.call(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e2e-raw", "version": "1"}},
        )
        await self.send({"method": "notifications/initialized"})

    async def close_stdin(self) -> None:
        await self._stdin.aclose()

    async def wait_exit(self, seconds: float) -> int:
        with anyio.fail_after(seconds):
            return await self.process.wait()


@asynccontextmanager
async def raw_gateway(home: Path, *, own_group: bool = False) -> AsyncGenerator[RawGateway]:
    """A started and initialized gateway process; stopped on the way out if it is still running.

    Stopped as a client stops it (stdin closed), so that it stops its servers; SIGKILLed only when it does
    not exit within PROCESS_GONE_SECONDS. A SIGKILLed gateway leaves behind every server that ignores EOF.
    `own_group`: in a session (and process group) of its own, as a terminal's foreground job is.
    """
    process = await anyio.open_process(
        gateway_command(home),
        env=client_environment(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=None,
        start_new_session=own_group,
    )
    gateway = RawGateway(process)
    try:
        with anyio.fail_after(SESSION_SECONDS):
            await gateway.initialize()
        yield gateway
    finally:
        await stop_as_a_client_does(process)


async def stop_as_a_client_does(process: anyio.abc.Process) -> None:
    """Close the gateway's stdin and wait for it to exit, SIGKILLing it only when it has not within
    PROCESS_GONE_SECONDS; shielded, so a cancelled test still stops its gateway."""
    with anyio.CancelScope(shield=True):
        if process.returncode is None:
            with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                if process.stdin is not None:
                    await process.stdin.aclose()
            with anyio.move_on_after(PROCESS_GONE_SECONDS):
                await process.wait()
        if process.returncode is None:
            kill_quietly([process.pid])
        with anyio.move_on_after(PROCESS_GONE_SECONDS):
            await process.aclose()


def started_after(before: Sequence[str], after: Sequence[str]) -> list[str]:
    """Lines a spawn log gained (logs are only ever appended to)."""
    assert list(after[: len(before)]) == list(before), (before, after)
    return list(after[len(before) :])


async def run_cli_async(
    *args: str, home: Path | None = None, extra_env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`mcp-gateway [--home H] ARGS...` to completion, within CLI_SECONDS; output decoded."""
    command = gateway_command(home) if home is not None else gateway_program()
    with anyio.fail_after(CLI_SECONDS):
        done = await anyio.run_process([*command, *args], env=client_environment() | dict(extra_env or {}), check=False)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())
