"""The processes pair 5 measures: `python -X importtime` on a command, and a real gateway session on the
demo workspace traced the same way, its import lines cut where each response was sent.

Both run in worker threads of the benchmark (blocking pipes); every wait is bounded by
SUBPROCESS_TIMEOUT_SECONDS, a hung gateway is killed, and none is left running.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any, cast

from benchmarks.gateway_session import gateway_environment
from benchmarks.latency.failure import BenchError
from benchmarks.latency.importtime_tree import GATEWAY_PACKAGE, Imported, parse_importtime
from benchmarks.repo_paths import ROOT

SUBPROCESS_TIMEOUT_SECONDS = 120.0
PROTOCOL_VERSION = "2025-11-25"
SERVE_PHASES = ("start to tools/list answered", "first search_tools", "first execute_tool", "shutdown")


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


class TracedGateway:
    """`python -X importtime -m mcp_gateway` driven by hand-written JSON-RPC lines, its stderr merged into
    its stdout: the pipe keeps the order of writes, so every import line read before a response was
    imported before that response was sent."""

    def __init__(self, home: Path) -> None:
        command = [sys.executable, "-X", "importtime", "-m", GATEWAY_PACKAGE, "--home", str(home)]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=gateway_environment(),
            cwd=ROOT,
        )
        self._stdin = cast(IO[bytes], self.process.stdin)
        self._stdout = cast(IO[bytes], self.process.stdout)
        self._next_id = 0

    def send(self, message: Mapping[str, Any]) -> None:
        self._stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        self._stdin.flush()

    def request(self, method: str, params: Mapping[str, Any]) -> list[str]:
        """Send a request; the import lines printed until its response arrived."""
        self._next_id += 1
        self.send({"id": self._next_id, "method": method, "params": dict(params)})
        imports: list[str] = []
        for raw in self._stdout:
            line = raw.decode(errors="replace")
            if line.startswith("import time:"):
                imports.append(line)
            elif line.startswith("{") and self._answers(line, self._next_id):
                return imports
        raise BenchError(f"the traced gateway exited before answering {method}")

    def finish(self) -> list[str]:
        """Close stdin (the client leaves); the import lines printed until the process exited."""
        self._stdin.close()
        imports = [line.decode(errors="replace") for line in self._stdout]
        self.process.wait(timeout=SUBPROCESS_TIMEOUT_SECONDS)
        return [line for line in imports if line.startswith("import time:")]

    @staticmethod
    def _answers(line: str, request_id: int) -> bool:
        try:
            message = cast(dict[str, Any], json.loads(line))
        except ValueError:
            return False
        if "error" in message:
            raise BenchError(f"the traced gateway answered with an error: {line[:300]}")
        return message.get("id") == request_id and "result" in message


def trace_serve_path(home: Path) -> list[list[str]]:
    """Import lines of each of SERVE_PHASES, from one real gateway session on the demo workspace."""
    gateway = TracedGateway(home)
    # A hung gateway would block the reads below forever; killing it ends them with EOF.
    watchdog = threading.Timer(SUBPROCESS_TIMEOUT_SECONDS, gateway.process.kill)
    watchdog.start()
    try:
        client = {"name": "latency-bench", "version": "1"}
        initialize = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": client}
        started = gateway.request("initialize", initialize)
        gateway.send({"method": "notifications/initialized"})
        started += gateway.request("tools/list", {})
        search = gateway.request("tools/call", {"name": "search_tools", "arguments": {"query": "add a note"}})
        call = {"tool": "toolbox.convert_temperature", "arguments": {"value": 30, "from_unit": "C", "to_unit": "F"}}
        execute = gateway.request("tools/call", {"name": "execute_tool", "arguments": call})
        return [started, search, execute, gateway.finish()]
    finally:
        watchdog.cancel()
        if gateway.process.poll() is None:
            gateway.process.kill()
            gateway.process.wait()
