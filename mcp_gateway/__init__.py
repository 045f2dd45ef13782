"""mcp-gateway: one local MCP server in front of all of yours.

The client sees four meta-tools (`search_tools`, `list_tools`, `describe_tool`, `execute_tool`); behind
them a cached catalog, a lexical search index and a lazy pool of downstream connections.
"""

__version__ = "0.1.0"
