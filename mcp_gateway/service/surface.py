"""What the gateway offers a model: its four meta-tools, exactly as a client sees them in `tools/list`, the
instructions it gives at the handshake, and the hint for a gateway with no server configured.

The MCP server serves these; the command line counts what they cost (`doctor`). The list is fixed: clients
ignore `tools/list_changed`, and a list that never changes keeps the client's prompt cache warm. Every tool
carries `_meta["anthropic/alwaysLoad"]` so clients that defer tool definitions still load these.
Descriptions are short English written for a model; the whole list must stay within a few hundred tokens
(measured in tests and `benchmarks/tokens.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp_gateway.config import GatewayConfig
from mcp_gateway.config.models import MAX_TOOL_SEARCH_LIMIT
from mcp_gateway.tokens import compact_json

if TYPE_CHECKING:
    import mcp_types as types

LIST_PAGE_SIZE = 100
"""Tools per `list_tools` page when the model names no limit (a server may have thousands)."""
MAX_LIST_PAGE_SIZE = 500
MAX_SERVERS_NAMED = 24
"""Past this many, the instructions name the first ones and count the rest (they cost tokens every session)."""

SEARCH_TOOLS = "search_tools"
LIST_TOOLS = "list_tools"
DESCRIBE_TOOL = "describe_tool"
EXECUTE_TOOL = "execute_tool"
META_TOOL_NAMES = (SEARCH_TOOLS, LIST_TOOLS, DESCRIBE_TOOL, EXECUTE_TOOL)

_ALWAYS_LOAD = {"anthropic/alwaysLoad": True}
_READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}
_SERVER_HINT = {"type": "string", "description": "Server name or alias (optional)"}

_DEFINITIONS: list[dict[str, Any]] = [
    {
        "name": SEARCH_TOOLS,
        "description": (
            "Find tools across all connected MCP servers by describing the task in plain words (any language). "
            "Returns the best matches: qualified name (server.tool), description, input schema, confidence. "
            "Use it first, then call execute_tool."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What you want to do"},
                "server": {"type": "string", "description": "Only search this server (name or alias)"},
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_TOOL_SEARCH_LIMIT,
                    "description": "Max results",
                },
            },
            "required": ["query"],
        },
        "annotations": _READ_ONLY,
    },
    {
        "name": LIST_TOOLS,
        "description": "List the tools of one server, by name, when search does not find what you need.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "server": {"type": "string", "description": "Server name or alias"},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIST_PAGE_SIZE},
                "offset": {"type": "integer", "minimum": 0},
            },
            "required": ["server"],
        },
        "annotations": _READ_ONLY,
    },
    {
        "name": DESCRIBE_TOOL,
        "description": "Show one tool's full definition: description, input schema, output schema, annotations.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "tool": {"type": "string", "description": "Qualified name server.tool, or a unique tool name"},
                "server": _SERVER_HINT,
            },
            "required": ["tool"],
        },
        "annotations": _READ_ONLY,
    },
    {
        "name": EXECUTE_TOOL,
        "description": (
            "Call a tool on its MCP server and return its result unchanged. "
            "Arguments must match the tool's input schema (see search_tools or describe_tool)."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "tool": {"type": "string", "description": "Qualified name server.tool, or a unique tool name"},
                "server": _SERVER_HINT,
                "arguments": {"type": "object", "description": "The tool's arguments"},
            },
            "required": ["tool"],
        },
    },
]


def meta_tool_definitions() -> list[dict[str, Any]]:
    """The four tools as plain JSON: what `meta_tools()` validates, and what the server's early answer to
    `tools/list` sends before the SDK (and its `mcp_types`) is imported."""
    return [{**definition, "_meta": _ALWAYS_LOAD} for definition in _DEFINITIONS]


def meta_tools() -> list[types.Tool]:
    import mcp_types as types  # the SDK's types cost most of a start: not imported with this module

    return [types.Tool.model_validate(definition) for definition in meta_tool_definitions()]


def instructions(config: GatewayConfig) -> str:
    enabled = [name for name, server in config.servers.items() if not server.spec.disabled]
    if not enabled:
        servers = "no MCP servers yet (search_tools explains how to add them)"
    else:
        named = ", ".join(enabled[:MAX_SERVERS_NAMED])
        more = f" and {len(enabled) - MAX_SERVERS_NAMED} more" if len(enabled) > MAX_SERVERS_NAMED else ""
        servers = f"{len(enabled)} MCP servers ({named}{more})"
    return (
        f"This gateway gives access to the tools of {servers}. Find a tool with search_tools (describe the task "
        "in plain words), then run it with execute_tool using its qualified name server.tool and arguments that "
        "match its input schema. list_tools browses one server; describe_tool shows a tool's full definition."
    )


def initial_context(config: GatewayConfig) -> str:
    """What a client puts before the model for the gateway before any call: its tool list and instructions."""
    tools = [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in meta_tools()]
    return compact_json(tools) + instructions(config)


def no_servers_hint(config: GatewayConfig) -> str | None:
    """What to do when no server is configured at all (None when some are)."""
    if config.servers:
        return None
    return (
        f"No MCP servers are configured. Add them under 'mcpServers' in {config.path}, or import the ones your "
        "AI client already has with `mcp-gateway import --client NAME`; a running gateway sees them once restarted."
    )
