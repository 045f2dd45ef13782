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
    from mcp_gateway.front.client_lines import ClientLines
    from mcp_gateway.front.remembered_handshake import Made

HOLD_DAEMON_ENV = "MCP_GATEWAY_TEST_HOLD_DAEMON"
"""For tests only: a file whose lock a starting daemon waits for once it has loaded its config, so that a test
holds the daemon there, not yet listening, without sleeping (`tests/e2e/test_e2e_front.py`)."""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    chosen = front_home(args)
    lines: ClientLines | None = None
    if chosen is not None:
        outcome = run_as_front(*chosen, _handshake_of)
        if isinstance(outcome, int):
            return outcome
        lines = outcome
    if DAEMON_COMMAND in args:
        return _daemon(args)
    from mcp_gateway.cli import main as command_line

    def serve(home: str | None, config: GatewayConfig, leave: Callable[[int], NoReturn], *, shared: bool) -> int:
        # The front has tried the daemon already: what is left is to serve standalone (from its lines, if any).
        return _serve(home, config, leave, shared=shared and chosen is None, lines=lines)

    return command_line(argv, serve=serve)


def run() -> NoReturn:
    """Console-script entry point."""
    sys.exit(main())


def _handshake_of(home: str | None) -> Made:
    """What a gateway serving `home` says at its handshake: what a session front answers a cold start with
    (made in a child of the front, which itself never loads the config), and what the daemon then says; with
    the files it is made from, as they were before they were read (`front.remembered_handshake`)."""
    from mcp_gateway.catalog.summary import DIGEST_NAME
    from mcp_gateway.config.loader import load_config
    from mcp_gateway.front.early_answers import Handshake
    from mcp_gateway.front.remembered_handshake import Made, taken
    from mcp_gateway.paths import Workspace
    from mcp_gateway.service.handshake_text import handshake_instructions
    from mcp_gateway.service.surface import meta_tool_definitions

    workspace = Workspace.from_environment(home)
    sources = taken([workspace.config_path, workspace.cache_path.with_name(DIGEST_NAME)])
    config = load_config(workspace.config_path)
    return Made(Handshake(handshake_instructions(home, config), meta_tool_definitions()), sources)


def _serve(
    home: str | None,
    config: GatewayConfig,
    leave: Callable[[int], NoReturn],
    *,
    shared: bool,
    lines: ClientLines | None,
) -> int:
    from mcp_gateway.server.start import serve

    return serve(home, config, leave, shared=shared, lines=lines)


def _daemon(argv: list[str]) -> int:
    import argparse
    import os
    from pathlib import Path

    from mcp_gateway.cli.context import secret_mask
    from mcp_gateway.config.loader import load_config
    from mcp_gateway.gateway_log import log_to_stderr
    from mcp_gateway.paths import Workspace

    parser = argparse.ArgumentParser(prog="mcp-gateway daemon")
    parser.add_argument("--home")
    parser.add_argument("command", choices=[DAEMON_COMMAND])
    parser.add_argument("--socket", required=True, type=Path)
    parser.add_argument("--grace", type=float)
    args = parser.parse_args(argv)
    config = load_config(Workspace.from_environment(args.home).config_path)
    log_to_stderr(secret_mask(config))  # to logs/daemon.log (`front/daemon_log.py`), masked as a gateway's is
    if hold := os.environ.get(HOLD_DAEMON_ENV):
        import fcntl

        held = os.open(hold, os.O_RDONLY | os.O_CLOEXEC)
        fcntl.flock(held, fcntl.LOCK_SH)
        os.close(held)

    import anyio

    from mcp_gateway.server.daemon import run_daemon

    grace = args.grace if args.grace is not None else config.settings.daemon_grace_seconds
    return anyio.run(run_daemon, args.home, config, args.socket, grace)
