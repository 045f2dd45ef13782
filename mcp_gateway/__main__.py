"""`python -m mcp_gateway` runs the `mcp-gateway` command."""

from mcp_gateway.cli import run

run()
