"""In-process downstream servers and the connector that hands them to the gateway's pool.

The protocol tests run everything in one process: the downstream is an SDK `Server`, the pool reaches it
through `Client(server)` instead of a subprocess, and the gateway itself is driven through `Client` too.
Every result shape the gateway must pass through is produced here on purpose.
"""

from __future__ import annotations

import base64
import json
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError

from mcp_gateway.config import ServerConfig
from mcp_gateway.downstream.connect import ConnectOptions
from mcp_gateway.downstream.connection import OpenedClient

PNG_1X1 = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415408d763f8cfc0"
        "000003010100c9fe92ef0000000049454e44ae426082"
    )
).decode()

TOOLS = [
    types.Tool(
        name="echo",
        title="Echo",
        description="Echo a message back",
        input_schema={"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
        annotations=types.ToolAnnotations(read_only_hint=True),
        _meta={"fake/origin": "in-process"},
    ),
    types.Tool(name="image", description="Return an image and some text", input_schema={"type": "object"}),
    types.Tool(
        name="structured",
        description="Return structured weather content",
        input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        output_schema={"type": "object", "properties": {"city": {"type": "string"}, "temperature": {"type": "number"}}},
    ),
    types.Tool(name="fail", description="Return a tool error result", input_schema={"type": "object"}),
    types.Tool(name="boom", description="Answer with a JSON-RPC error", input_schema={"type": "object"}),
    types.Tool(
        name="progress",
        description="Report progress steps",
        input_schema={"type": "object", "properties": {"steps": {"type": "integer"}}, "required": ["steps"]},
    ),
    types.Tool(name="slow", description="Wait until cancelled", input_schema={"type": "object"}),
    types.Tool(
        name="resources", description="Return resource links and embedded resources", input_schema={"type": "object"}
    ),
]


@dataclass
class FakeDownstream:
    """One in-process server plus what the tests observe about it."""

    name: str = "fake"
    calls: list[str] = field(default_factory=list[str])
    slow_started: anyio.Event = field(default_factory=anyio.Event)
    slow_cancelled: anyio.Event = field(default_factory=anyio.Event)
    connections: int = 0
    listings: int = 0
    list_gate: anyio.Event | None = None
    """When set, `tools/list` waits for it: a server that is slow to list its tools."""
    extra_tools: list[types.Tool] = field(default_factory=list[types.Tool])
    """Listed after TOOLS; calling one echoes its arguments as JSON text (sorted keys)."""
    title: str | None = None
    description: str | None = None
    instructions: str | None = None
    """What its handshake says about it (`serverInfo.title`, `serverInfo.description`, `instructions`)."""

    def server(self) -> Server[Any]:
        async def list_tools(
            ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
        ) -> types.ListToolsResult:
            self.listings += 1
            if self.list_gate is not None:
                await self.list_gate.wait()
            return types.ListToolsResult(tools=[*TOOLS, *self.extra_tools])

        async def call_tool(
            ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
        ) -> types.CallToolResult:
            self.calls.append(params.name)
            if any(tool.name == params.name for tool in self.extra_tools):
                echoed = json.dumps(params.arguments or {}, sort_keys=True)
                return types.CallToolResult(content=[types.TextContent(text=echoed)])
            return await call_builtin(ctx, params)

        async def call_builtin(
            ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
        ) -> types.CallToolResult:
            arguments = params.arguments or {}
            match params.name:
                case "echo":
                    return types.CallToolResult(
                        content=[types.TextContent(text=str(arguments["message"]))], _meta={"fake/trace": "abc"}
                    )
                case "image":
                    return types.CallToolResult(
                        content=[
                            types.ImageContent(data=PNG_1X1, mime_type="image/png"),
                            types.TextContent(text="a dot"),
                        ]
                    )
                case "structured":
                    data = {"city": arguments["city"], "temperature": 21.5}
                    return types.CallToolResult(content=[types.TextContent(text="21.5")], structured_content=data)
                case "fail":
                    return types.CallToolResult(content=[types.TextContent(text="it went wrong")], is_error=True)
                case "boom":
                    raise MCPError(code=-32050, message="the fake server refuses")
                case "progress":
                    steps = int(arguments["steps"])
                    for step in range(1, steps + 1):
                        await ctx.session.report_progress(step, steps, f"step {step}")
                    return types.CallToolResult(content=[types.TextContent(text=f"done {steps}")])
                case "slow":
                    self.slow_started.set()
                    try:
                        await anyio.sleep_forever()
                    finally:
                        self.slow_cancelled.set()
                case "resources":
                    return types.CallToolResult(
                        content=[
                            types.ResourceLink(uri="file:///tmp/report.txt", name="report", mime_type="text/plain"),
                            types.EmbeddedResource(
                                resource=types.TextResourceContents(
                                    uri="memo://1", text="remember", mime_type="text/plain"
                                )
                            ),
                        ]
                    )
                case _:
                    raise MCPError(code=-32602, message=f"Unknown tool: {params.name}")
            raise AssertionError("unreachable")

        return Server(
            self.name,
            version="1.0.0",
            title=self.title,
            description=self.description,
            instructions=self.instructions,
            on_list_tools=list_tools,
            on_call_tool=call_tool,
        )


class InProcessConnector:
    """A pool connector that reaches `FakeDownstream` servers in-process, by server name."""

    def __init__(self, *downstreams: FakeDownstream, mode: str = "legacy") -> None:
        self._servers = {downstream.name: downstream for downstream in downstreams}
        self._mode = mode

    async def __call__(self, server: ServerConfig, options: ConnectOptions, stack: AsyncExitStack) -> OpenedClient:
        downstream = self._servers[server.name]
        downstream.connections += 1
        client = Client(downstream.server(), mode=self._mode, cache=None)
        await stack.enter_async_context(client)
        return OpenedClient(client=client, exited=None, pid=None)
