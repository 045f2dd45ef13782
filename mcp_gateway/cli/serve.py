"""`mcp-gateway serve` (and no command at all): the stdio MCP server an AI client starts.

Once its shutdown is over the process leaves at once (`leave_now`) instead of returning to the
interpreter's own exit, so that it is gone well within the 100 ms Claude Code allows before escalating.
Nothing here imports more than loading the config needs: the server answers its client's handshake
before it imports the rest (see `mcp_gateway.server.start`).

A person who runs `mcp-gateway` in a terminal gets one line on stderr saying what it is and what to run
instead, and then the server as a client gets it. A client always gives the gateway a pipe for stdin, never
a terminal, so it sees no difference, and the check is one `isatty` call before the config is read.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import sys
from collections.abc import Callable
from typing import NoReturn, Protocol

from mcp_gateway.cli.context import load, secret_mask
from mcp_gateway.config import GatewayConfig
from mcp_gateway.errors import UsageError
from mcp_gateway.front.launch import sharing_allowed
from mcp_gateway.gateway_log import log_to_file
from mcp_gateway.service.home import gateway_log_path


class Serve(Protocol):
    """Serves MCP over stdio until the client leaves, running its own event loop; returns the exit status
    (the MCP server, injected by `mcp_gateway.program`: the command line and the server never import each
    other). `leave(status)` ends the process at once, for a stop that cannot wait for the orderly path."""

    def __call__(
        self, home: str | None, config: GatewayConfig, leave: Callable[[int], NoReturn], *, shared: bool
    ) -> int: ...


STDIN = 0
IN_A_TERMINAL = (
    "mcp-gateway: this is an MCP server, waiting for an AI client to talk JSON-RPC on stdin (Ctrl-D ends it); "
    "to try it, run `mcp-gateway demo`, and see `mcp-gateway --help` for the commands"
)


def run_serve(args: argparse.Namespace, serve: Serve | None) -> int:
    if serve is None:
        raise UsageError("this entry point does not serve; run the `mcp-gateway` program to serve over stdio")
    if os.isatty(STDIN):  # False for a closed descriptor too
        print(IN_A_TERMINAL, file=sys.stderr, flush=True)
    config = load(args)
    if config.settings.debug and (log_path := gateway_log_path(args.home)) is not None:
        # Warnings go to stderr already (`load`); `debug` adds everything to gateway.log, masked and private.
        log_to_file(log_path, secret_mask(config))
    shared = not getattr(args, "standalone", False) and config.settings.shared and sharing_allowed()
    leave_now(serve(args.home, config, leave_now, shared=shared))


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
