"""The `mcp-gateway` command line: commands to inspect and manage the gateway, for a person.

`main(argv)` returns the exit code; every command reads the same workspace (`--home`, else
`$MCP_GATEWAY_HOME`, else the platform directories). A failure prints one line to stderr and exits with
the code its error class carries: 1 when an operation failed, 2 for a usage or configuration problem.
The program a client starts (`mcp_gateway.program`) is this command line with the MCP server as its
default command.
"""

from __future__ import annotations

from mcp_gateway.cli.main import main

__all__ = ["main"]
