"""`mcp-gateway serve` (and no command at all): the stdio MCP server an AI client starts."""

from __future__ import annotations

import argparse

import anyio

from mcp_gateway.cli.context import load, secret_mask
from mcp_gateway.gateway_log import log_to_file
from mcp_gateway.masking import SecretMask
from mcp_gateway.paths import Workspace

GATEWAY_LOG = "gateway.log"


def run_serve(args: argparse.Namespace) -> int:
    workspace, config = load(args)
    _configure_logging(workspace, secret_mask(config), debug=config.settings.debug)

    from mcp_gateway.server.app import run_until_stopped

    anyio.run(run_until_stopped, workspace, config)
    return 0


def _configure_logging(workspace: Workspace, secrets: SecretMask, *, debug: bool) -> None:
    """Warnings go to stderr already (`load`); with `debug`, everything to logs/gateway.log too, masked and private."""
    if debug:
        workspace.ensure()
        log_to_file(workspace.logs_dir / GATEWAY_LOG, secrets)
