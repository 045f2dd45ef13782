"""The remote MCP fixture server (`fixtures/http_mcp_server.py`) on a free local port, for the end-to-end tests."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Generator

from gateway_testing import ROOT

HTTP_FIXTURE = ROOT / "fixtures" / "http_mcp_server.py"
SERVER_READY_SECONDS = 20.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + SERVER_READY_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the fixture server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


@contextlib.contextmanager
def running_remote(transport: str, *flags: str) -> Generator[int]:
    """The HTTP fixture server on a free port, for as long as the block runs."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(HTTP_FIXTURE), "--transport", transport, "--port", str(port), *flags],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_listening(port, process)
        yield port
    finally:
        process.kill()
        process.wait()
