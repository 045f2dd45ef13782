"""`python -m mcp_gateway` runs the `mcp-gateway` program."""

from mcp_gateway.program import run

run()
