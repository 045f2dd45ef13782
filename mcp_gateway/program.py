"""The `mcp-gateway` program: the command line, whose default command (`serve`) is a session front.

The gateway's two doors, the command line for a person (`cli/`) and the MCP server for an AI client (a session
front, `front/`, and the daemon behind it, `server/`), never import each other; they meet here. Serving is
decided before anything else is imported (`front.launch.serve_request`, the one rule for what serves), so a
client's `mcp-gateway` runs the front with the standard library only; the command line's own `serve` comes
back to the same front. `daemon` is what a front starts: the shared daemon of a workspace or a session's
private one.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import NoReturn

from mcp_gateway.front.launch import DAEMON_COMMAND, serve_request, serve_session


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    request = serve_request(args)
    if request is not None:
        return serve_session(request)
    if _daemon_asked(args):
        from mcp_gateway.server import run_daemon_command

        return run_daemon_command(args)
    from mcp_gateway.cli import main as command_line

    return command_line(argv)


def run() -> NoReturn:
    """Console-script entry point."""
    sys.exit(main())


def _daemon_asked(args: Sequence[str]) -> bool:
    """`[--home H] daemon …`: what a front starts (never a word elsewhere, such as a search query)."""
    rest = list(args)
    if rest[:1] == ["--home"]:
        rest = rest[2:]
    elif rest[:1] and rest[0].startswith("--home="):
        rest = rest[1:]
    return rest[:1] == [DAEMON_COMMAND]
