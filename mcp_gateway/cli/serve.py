"""`mcp-gateway serve` (and no command at all): the stdio MCP server an AI client starts."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import functools
import logging
import os
import sys
from typing import NoReturn

import anyio

from mcp_gateway.cli.context import load
from mcp_gateway.paths import Workspace

GATEWAY_LOG = "gateway.log"


def run_serve(args: argparse.Namespace) -> int:
    workspace, config = load(args)
    _configure_logging(workspace, debug=config.settings.debug)

    from mcp_gateway.server.app import run_until_stopped

    return anyio.run(functools.partial(run_until_stopped, leave=leave_now), workspace, config)


def leave_now(status: int) -> NoReturn:
    """End the process at once, without waiting for what still runs (a forced shutdown), exit handlers run."""
    atexit._run_exitfuncs()  # pyright: ignore[reportPrivateUsage]  # os._exit would skip them
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


def _configure_logging(workspace: Workspace, *, debug: bool) -> None:
    """Warnings to stderr (clients show it in their MCP logs); everything to logs/gateway.log with `debug`."""
    root = logging.getLogger()
    root.setLevel(logging.DEBUG if debug else logging.WARNING)
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.WARNING)
    console.setFormatter(logging.Formatter("mcp-gateway: %(levelname)s %(name)s: %(message)s"))
    root.addHandler(console)
    if debug:
        workspace.ensure()
        handler = logging.FileHandler(workspace.logs_dir / GATEWAY_LOG)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
