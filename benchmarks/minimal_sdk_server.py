"""The smallest useful MCP server the Python SDK makes: one tool, the low-level `Server`, stdio.

The start-up baseline of `benchmarks.latency` (pair 3): a client that starts the gateway instead of its
servers should wait no longer for `tools/list` than it would for this. It is a real server, not a stub: it
lists its tool and answers calls of it, so that the baseline pays for everything a working SDK server
imports and builds, and nothing more. Run as a script (`python benchmarks/minimal_sdk_server.py`), like a
server a client starts; it imports nothing from this repository.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

ECHO = types.Tool(
    name="echo",
    description="Echo a message.",
    input_schema={"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
)


async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[ECHO])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = params.arguments or {}
    if params.name != ECHO.name or not isinstance(arguments.get("message"), str):
        return types.CallToolResult(
            content=[types.TextContent(text="call echo with a string 'message'")], is_error=True
        )
    return types.CallToolResult(content=[types.TextContent(text=arguments["message"])])


server: Server[Any] = Server("minimal", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
