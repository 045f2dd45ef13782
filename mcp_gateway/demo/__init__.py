"""The bundled demo: two small, real MCP servers and a driver that shows the gateway working in front of them.

Nothing here needs the network or npm: `mcp-gateway demo` works right after `pip install`.
"""
