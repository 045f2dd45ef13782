"""The `mcp-gateway` program: the command line, whose default command (`serve`) is the MCP server.

The gateway's two doors, the command line for a person (`cli/`) and the MCP server for an AI client
(`server/`), never import each other; they meet here. The server is imported only when it serves, so
the other commands start without it, and it imports the SDK only once its client's handshake is answered.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn

from mcp_gateway.front.launch import DAEMON_COMMAND, front_home, run_as_front

if TYPE_CHECKING:
    from mcp_gateway.config import GatewayConfig


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    chosen = front_home(args)
    if chosen is not None:
        status = run_as_front(*chosen)
        if status is not None:
            return status
    if DAEMON_COMMAND in args:
        return _daemon(args)
    from mcp_gateway.cli import main as command_line

    return command_line(argv, serve=_serve)


def run() -> NoReturn:
    """Console-script entry point."""
    sys.exit(main())


def _serve(home: str | None, config: GatewayConfig, leave: Callable[[int], NoReturn], *, shared: bool) -> int:
    from mcp_gateway.server.start import serve

    return serve(home, config, leave, shared=shared)


def _daemon(argv: list[str]) -> int:
    import argparse
    from pathlib import Path

    import anyio

    from mcp_gateway.cli.context import secret_mask
    from mcp_gateway.config.loader import load_config
    from mcp_gateway.gateway_log import log_to_stderr
    from mcp_gateway.paths import Workspace
    from mcp_gateway.server.daemon import run_daemon

    parser = argparse.ArgumentParser(prog="mcp-gateway daemon")
    parser.add_argument("--home")
    parser.add_argument("command", choices=[DAEMON_COMMAND])
    parser.add_argument("--socket", required=True, type=Path)
    parser.add_argument("--grace", type=float)
    args = parser.parse_args(argv)
    config = load_config(Workspace.from_environment(args.home).config_path)
    log_to_stderr(secret_mask(config))  # to logs/daemon.log (`front/daemon_log.py`), masked as a gateway's is
    grace = args.grace if args.grace is not None else config.settings.daemon_grace_seconds
    return anyio.run(run_daemon, args.home, config, args.socket, grace)
