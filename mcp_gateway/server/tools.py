"""The four meta-tools, exactly as the client sees them in `tools/list`.

The list is fixed: clients ignore `tools/list_changed`, and a list that never changes keeps the client's
prompt cache warm. Every tool carries `_meta["anthropic/alwaysLoad"]` so clients that defer tool
definitions still load these. Descriptions are short English written for a model; the whole list must
stay within a few hundred tokens (measured in tests and `benchmarks/tokens.py`).
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from mcp_gateway.config.models import MAX_TOOL_SEARCH_LIMIT
from mcp_gateway.server.arguments import MAX_LIST_PAGE_SIZE

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


def meta_tools() -> list[types.Tool]:
    return [types.Tool.model_validate({**definition, "_meta": _ALWAYS_LOAD}) for definition in _DEFINITIONS]
