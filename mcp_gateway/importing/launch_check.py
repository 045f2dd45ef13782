"""Whether the command an import writes into a client really starts the gateway: run it as the client would.

An entry that cannot start fails only later, inside the client, often silently (a server shown as failed,
or tools that never appear). So before a client file is rewritten, its gateway command is run with
`--version`, in the environment the client will give it (the import's environment plus the entry's own
`env`), and must answer like this gateway does. The command runs in a session of its own, so a launcher
that hangs is stopped with everything it started (uvx runs the gateway as its child).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping

from mcp_gateway.importing.clients.client import Launch
from mcp_gateway.importing.clients.model import GATEWAY_NAME

LAUNCH_CHECK_SECONDS = 120.0
"""A first `uvx --from mcp-meta-gateway` run downloads the gateway and its dependencies (about 40 MB)."""
DETAIL_CHARS = 300
"""How much of what a failing command printed is quoted: its last line is what says why."""

LaunchChecker = Callable[[Launch, Mapping[str, str]], str | None]
"""Runs a launch; returns None when it starts the gateway, else the problem in one sentence."""


def check_launch(launch: Launch, environ: Mapping[str, str], timeout: float = LAUNCH_CHECK_SECONDS) -> str | None:
    """Start `launch` with `--version` as a client would; None when it answers as the gateway."""
    command = [launch.command, *launch.args, "--version"]
    env = {**environ, **launch.env}
    shown = " ".join(command[:-1])
    try:
        process = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=sys.platform != "win32",
        )
    except OSError as error:
        return f"'{launch.command}' cannot be run ({error.strerror or error})"
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(process)
        return f"'{shown}' did not answer --version within {timeout:g} s"
    if process.returncode != 0:
        return f"'{shown}' exited with status {process.returncode}: {_last_line(err or out)}"
    if not out.startswith(f"{GATEWAY_NAME} "):
        return f"'{shown}' is not this gateway: it answered --version with {_last_line(out)!r}"
    return None


def _stop(process: subprocess.Popen[str]) -> None:
    """Stop the command and all it started: its own session, whose leader it still is (not yet reaped)."""
    if sys.platform == "win32":
        process.kill()
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    process.communicate()


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    last = lines[-1] if lines else "(it printed nothing)"
    return last if len(last) <= DETAIL_CHARS else last[: DETAIL_CHARS - 1] + "…"
