"""`mcp-gateway serve` (and no command at all): the stdio MCP server an AI client starts."""

from __future__ import annotations

import argparse
import logging
import sys

import anyio

from mcp_gateway.cli.context import load
from mcp_gateway.paths import Workspace, directory_problem

GATEWAY_LOG = "gateway.log"


def run_serve(args: argparse.Namespace) -> int:
    workspace, config = load(args)
    _configure_logging(workspace, debug=config.settings.debug)

    from mcp_gateway.server.app import run_until_stopped

    anyio.run(run_until_stopped, workspace, config)
    return 0


def _configure_logging(workspace: Workspace, *, debug: bool) -> None:
    """Warnings to stderr (clients show it in their MCP logs); everything to logs/gateway.log with `debug`."""
    root = logging.getLogger()
    root.setLevel(logging.DEBUG if debug else logging.WARNING)
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.WARNING)
    console.setFormatter(logging.Formatter("mcp-gateway: %(levelname)s %(name)s: %(message)s"))
    root.addHandler(console)
    # A `logs` that cannot be a directory is said once by the gateway, which serves without the file.
    if debug and directory_problem(workspace.logs_dir, allow_link=False) is None:
        handler = logging.FileHandler(workspace.logs_dir / GATEWAY_LOG)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
