"""The `mcp-gateway` program: the command line, whose default command (`serve`) is the MCP server.

The gateway's two doors, the command line for a person (`cli/`) and the MCP server for an AI client
(`server/`), never import each other; they meet here. The server is imported only when it serves, so
the other commands start without it, and it imports the SDK only once its client's handshake is answered.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from mcp_gateway.cli import main as command_line
from mcp_gateway.config import GatewayConfig


def main(argv: Sequence[str] | None = None) -> int:
    return command_line(argv, serve=_serve)


def run() -> NoReturn:
    """Console-script entry point."""
    sys.exit(main())


def _serve(home: str | None, config: GatewayConfig, leave: Callable[[int], NoReturn]) -> int:
    from mcp_gateway.server.start import serve

    return serve(home, config, leave)
