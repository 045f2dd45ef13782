"""The `mcp-gateway` command: serve over stdio by default, plus commands to inspect and manage the gateway.

`main(argv)` returns the exit code; every command reads the same workspace (`--home`, else
`$MCP_GATEWAY_HOME`, else the platform directories). A failure prints one line to stderr and exits
non-zero: 1 when an operation failed, 2 for a usage or configuration problem.
"""

from __future__ import annotations

import sys

from mcp_gateway.cli.main import main


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


__all__ = ["main", "run"]
