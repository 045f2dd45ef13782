"""The processes pair 5 measures: `python -X importtime` on a command, and a real session on the demo workspace
(a front and the workspace's shared daemon, started cold by it) traced the same way, the import lines of each
process cut where each response reached the client.

Both processes inherit `PYTHONPROFILEIMPORTTIME`. The front's stderr is merged into its stdout: the pipe keeps
the order of writes, so every import line read before a response was imported before the front sent it. The
daemon's stderr is the workspace's `logs/daemon.log` (removed before the session): it writes an import line
before it sends the answer that needed the import, so the lines in the file once a response has arrived are
those imported before it. The daemon imports the SDK in a worker thread while the front answers `initialize`
and `tools/list` from the handshake, so its lines at that first cut are whatever it had imported by then.

Everything runs in a worker thread of the benchmark (blocking pipes); every wait is bounded by
SUBPROCESS_TIMEOUT_SECONDS, a hung front is killed, and the daemon is stopped (SIGTERM, its orderly stop, which
is the shutdown phase), or killed when it does not go.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

from benchmarks.gateway_runtime import SHARED, Runtime
from benchmarks.gateway_session import gateway_environment
from benchmarks.latency.failure import BenchError
from benchmarks.latency.importtime_tree import GATEWAY_PACKAGE, Imported, parse_importtime
from benchmarks.procfs import is_alive
from benchmarks.repo_paths import ROOT
from mcp_gateway.front.daemon_log import DAEMON_LOG
from mcp_gateway.paths import Workspace

SUBPROCESS_TIMEOUT_SECONDS = 120.0
PROTOCOL_VERSION = "2025-11-25"
SERVE_PHASES = ("start to tools/list answered", "first search_tools", "first execute_tool", "shutdown")
START_PHASES = 2
"""The start, as pair 5 analyses it: up to the first search answered, the first answer the daemon must give."""
IMPORT_LINE_PREFIX = "import time:"
POLL_SECONDS = 0.02


def importtime(argv: Sequence[str]) -> list[Imported]:
    """What `python -X importtime ARGV` imported; the self times add up to the total."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *argv],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_SECONDS,
        env=gateway_environment(),
        check=False,
        cwd=ROOT,
    )
    nodes = parse_importtime(done.stderr.splitlines())
    if done.returncode != 0 or not nodes:
        raise BenchError(f"python -X importtime {' '.join(argv)} failed ({done.returncode}): {done.stderr[-500:]}")
    return nodes


@dataclass(frozen=True)
class PhaseImports:
    """The import lines each process printed during one phase."""

    front: list[str]
    daemon: list[str]


class DaemonLog:
    """The daemon's stderr file, read on from where the last reading stopped, whole lines only."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset = 0

    def new_lines(self) -> list[str]:
        try:
            with self.path.open("rb") as log:
                log.seek(self._offset)
                data = log.read()
        except FileNotFoundError:
            return []
        complete = data[: data.rfind(b"\n") + 1]
        self._offset += len(complete)
        lines = complete.decode(errors="replace").splitlines()
        return [line for line in lines if line.startswith(IMPORT_LINE_PREFIX)]


class TracedGateway:
    """`python -m mcp_gateway --home HOME` (a session front) under `PYTHONPROFILEIMPORTTIME`, driven by
    hand-written JSON-RPC lines, its stderr merged into its stdout; its daemon's import lines read from its log."""

    def __init__(self, home: Path, runtime: Runtime) -> None:
        self.home, self.runtime = home, runtime
        log = Workspace.from_environment(home).logs_dir / DAEMON_LOG
        log.unlink(missing_ok=True)  # this session's daemon's lines only
        self.daemon_log = DaemonLog(log)
        env = runtime.environment(gateway_environment(), SHARED) | {"PYTHONPROFILEIMPORTTIME": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", GATEWAY_PACKAGE, "--home", str(home)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=ROOT,
        )
        self._stdin = cast(IO[bytes], self.process.stdin)
        self._stdout = cast(IO[bytes], self.process.stdout)
        self._next_id = 0

    def send(self, message: Mapping[str, Any]) -> None:
        self._stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        self._stdin.flush()

    def request(self, method: str, params: Mapping[str, Any]) -> PhaseImports:
        """Send a request; the import lines each process printed until its response arrived."""
        self._next_id += 1
        self.send({"id": self._next_id, "method": method, "params": dict(params)})
        imports: list[str] = []
        for raw in self._stdout:
            line = raw.decode(errors="replace")
            if line.startswith(IMPORT_LINE_PREFIX):
                imports.append(line)
            elif line.startswith("{") and self._answers(line, self._next_id):
                return PhaseImports(imports, self.daemon_log.new_lines())
        raise BenchError(f"the traced gateway exited before answering {method}")

    def finish(self) -> PhaseImports:
        """Close stdin (the client leaves), then stop the daemon; the import lines printed until both exited."""
        self._stdin.close()
        imports = [line.decode(errors="replace") for line in self._stdout]
        self.process.wait(timeout=SUBPROCESS_TIMEOUT_SECONDS)
        self.stop_daemon()
        front = [line for line in imports if line.startswith(IMPORT_LINE_PREFIX)]
        return PhaseImports(front, self.daemon_log.new_lines())

    def stop_daemon(self) -> None:
        """SIGTERM the workspace's daemon and wait for it; SIGKILL it when it does not go in time."""
        daemon = self.runtime.shared_daemon(self.home)
        if daemon is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(daemon, signal.SIGTERM)
        deadline = time.monotonic() + SUBPROCESS_TIMEOUT_SECONDS
        while is_alive(daemon) and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)
        if is_alive(daemon):
            with contextlib.suppress(ProcessLookupError):
                os.kill(daemon, signal.SIGKILL)
            raise BenchError("the traced gateway's daemon did not stop on SIGTERM")

    @staticmethod
    def _answers(line: str, request_id: int) -> bool:
        try:
            message = cast(dict[str, Any], json.loads(line))
        except ValueError:
            return False
        if "error" in message:
            raise BenchError(f"the traced gateway answered with an error: {line[:300]}")
        return message.get("id") == request_id and "result" in message


def trace_serve_path(home: Path, runtime: Runtime) -> list[PhaseImports]:
    """Import lines of each of SERVE_PHASES, from one real session on the demo workspace (no daemon running)."""
    gateway = TracedGateway(home, runtime)
    # A hung front would block the reads below forever; killing it ends them with EOF.
    watchdog = threading.Timer(SUBPROCESS_TIMEOUT_SECONDS, gateway.process.kill)
    watchdog.start()
    try:
        client = {"name": "latency-bench", "version": "1"}
        initialize = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": client}
        initialized = gateway.request("initialize", initialize)
        gateway.send({"method": "notifications/initialized"})
        listed = gateway.request("tools/list", {})
        started = PhaseImports(initialized.front + listed.front, initialized.daemon + listed.daemon)
        search = gateway.request("tools/call", {"name": "search_tools", "arguments": {"query": "add a note"}})
        call = {"tool": "toolbox.convert_temperature", "arguments": {"value": 30, "from_unit": "C", "to_unit": "F"}}
        execute = gateway.request("tools/call", {"name": "execute_tool", "arguments": call})
        return [started, search, execute, gateway.finish()]
    finally:
        watchdog.cancel()
        if gateway.process.poll() is None:
            gateway.process.kill()
            gateway.process.wait()
        gateway.stop_daemon()
