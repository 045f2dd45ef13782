"""`mcp-gateway serve` (and no command at all): the session front an AI client starts.

The program runs the front before the command line is parsed (`front.launch.serve_request`); this is the same
front for a `serve` the command line parsed itself, so there is one way to serve whichever way it was asked.
"""

from __future__ import annotations

import argparse

from mcp_gateway.front.launch import ServeRequest, serve_session


def run_serve(args: argparse.Namespace) -> int:
    return serve_session(ServeRequest(args.home, bool(getattr(args, "standalone", False))))
