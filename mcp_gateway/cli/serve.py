"""`mcp-gateway serve` (and no command at all): the stdio MCP server an AI client starts.

Once its shutdown is over the process leaves at once (`leave_now`) instead of returning to the
interpreter's own exit, so that it is gone well within the 100 ms Claude Code allows before escalating.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import functools
import os
import sys
from typing import NoReturn

import anyio

from mcp_gateway.cli.context import load, secret_mask
from mcp_gateway.gateway_log import log_to_file
from mcp_gateway.masking import SecretMask
from mcp_gateway.paths import Workspace, directory_problem

GATEWAY_LOG = "gateway.log"


def run_serve(args: argparse.Namespace) -> int:
    workspace, config = load(args)
    _configure_logging(workspace, secret_mask(config), debug=config.settings.debug)

    from mcp_gateway.server.app import run_until_stopped

    status = anyio.run(functools.partial(run_until_stopped, leave=leave_now), workspace, config)
    leave_now(status)


def leave_now(status: int) -> NoReturn:
    """End the process now that its shutdown is over (or was forced), skipping only the interpreter's teardown.

    After the last useful thing is done, the interpreter would still spend 0.15 to 0.5 s tearing down some
    700 imported modules and the objects they hold, memory the kernel frees anyway. Claude Code sends
    SIGTERM 100 ms after SIGINT, so that teardown alone made every session end in escalation. What must
    happen at exit still happens: the orderly shutdown has stopped every server and closed the workspace
    files, the exit handlers run here (logging flushes and closes its handlers), and stdio is flushed.
    """
    atexit._run_exitfuncs()  # pyright: ignore[reportPrivateUsage]  # os._exit would skip them
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


def _configure_logging(workspace: Workspace, secrets: SecretMask, *, debug: bool) -> None:
    """Warnings go to stderr already (`load`); with `debug`, everything to logs/gateway.log too, masked and private.

    A `logs` that cannot be a directory is said once by the gateway, which serves without the file.
    """
    if debug and directory_problem(workspace.logs_dir, allow_link=False) is None:
        log_to_file(workspace.logs_dir / GATEWAY_LOG, secrets)
