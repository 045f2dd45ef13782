"""What the gateway offers a model: its four meta-tools, exactly as a client sees them in `tools/list`, the
instructions it gives at the handshake (with a digest of the servers, see `digest`), and the hint for a
gateway with no server configured.

The MCP server serves these; the command line counts what they cost (`doctor`). The list is fixed: clients
ignore `tools/list_changed`, and a list that never changes keeps the client's prompt cache warm. Every tool
carries `_meta["anthropic/alwaysLoad"]` so clients that defer tool definitions still load these, and the
three whose results can be large carry `_meta["anthropic/maxResultSizeChars"]` (see `MAX_RESULT_SIZE_CHARS`).
Descriptions are short English written for a model; the whole list must stay within a few hundred tokens
(measured in tests and `benchmarks/tokens.py`).
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp_gateway.catalog import (
    DIGEST_NAME,
    EMPTY_DIGEST,
    MAX_DIGEST_BYTES,
    Digest,
    ServerSummary,
    fingerprint,
    parse_digest,
    tool_allowed,
)
from mcp_gateway.config import MAX_TOOL_SEARCH_LIMIT, GatewayConfig
from mcp_gateway.errors import UnusableFileError
from mcp_gateway.masking import SecretMask
from mcp_gateway.paths import Workspace
from mcp_gateway.service.digest import SAMPLE_TOOLS_SHOWN, ServerLine, digest
from mcp_gateway.tokens import compact_json
from mcp_gateway.wording import DESCRIBE_TOOL, EXECUTE_TOOL, LIST_TOOLS, SEARCH_TOOLS, counted
from mcp_gateway.workspace_files import read_regular

if TYPE_CHECKING:
    import mcp_types as types

    from mcp_gateway.catalog import Catalog

LIST_PAGE_SIZE = 100
"""Tools per `list_tools` page when the model names no limit (a server may have thousands)."""
MAX_LIST_PAGE_SIZE = 500

MAX_SEARCH_ALTERNATIVES = 4
"""Other phrasings one search_tools call may add to its query: the engine ranks at most as many
(`search.engine.MAX_ALTERNATIVES`), each costing about a query."""

MAX_RESULT_SIZE_CHARS = 100_000
"""The result size, in characters, up to which Claude Code keeps a meta-tool's result in the conversation.

Claude Code saves a tool result over 50,000 characters to a file and shows the model a 2 KB preview and the
path, unless the tool's definition carries `_meta["anthropic/maxResultSizeChars"]`, which it honours up to
500,000. Behind `execute_tool` stand every server's tools, so its value is every one's: 100,000 characters is
about 25,000 tokens at Claude Code's 4 characters per token, the ceiling Claude Code sets for an MCP result
by default (`MAX_MCP_OUTPUT_TOKENS`), and the value most of its own tools declare. A snapshot of a web page or
a file a little over 50,000 characters then stays whole, while a result of hundreds of thousands still goes
to a file instead of flooding the context. `describe_tool` (a schema up to 60,000 characters) and
`list_tools` (up to 500 tools a page) can pass 50,000 too; `search_tools` is budgeted far below it."""

_ALWAYS_LOAD = {"anthropic/alwaysLoad": True}
_LARGE_RESULTS = {**_ALWAYS_LOAD, "anthropic/maxResultSizeChars": MAX_RESULT_SIZE_CHARS}
_READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}
_SERVER_HINT = {"type": "string", "description": "Server name or alias (optional)"}

_DEFINITIONS: list[dict[str, Any]] = [
    {
        "name": SEARCH_TOOLS,
        "description": (
            "Find tools across all connected MCP servers by describing the task in plain words (any language): "
            "action, object and service. Returns the best matches: qualified name (server.tool), description, "
            "input schema, confidence. Use it first, then call execute_tool. If the task is vague or the "
            "best match is low, add alternatives."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What you want to do"},
                "alternatives": {
                    "type": "array",
                    "items": {"type": "string"},
                    "maxItems": MAX_SEARCH_ALTERNATIVES,
                    "description": "Other phrasings of the same task: synonyms, English keywords, a likely tool name",
                },
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
    return [
        {**definition, "_meta": _ALWAYS_LOAD if definition["name"] == SEARCH_TOOLS else _LARGE_RESULTS}
        for definition in _DEFINITIONS
    ]


def meta_tools() -> list[types.Tool]:
    import mcp_types as types  # the SDK's types cost most of a start: not imported with this module

    return [types.Tool.model_validate(definition) for definition in meta_tool_definitions()]


def instructions(
    config: GatewayConfig,
    summaries: Mapping[str, ServerSummary] | None = None,
    *,
    mask: Callable[[str], str] = str,
) -> str:
    """The gateway's instructions: how to use the four tools, then a digest of the enabled servers (`digest`).

    `summaries` is what the catalog's digest says of each server (see `catalog.summary`); `mask` hides the
    gateway's known secrets in whatever the config or a server wrote.
    """
    enabled = config.enabled_servers
    if not enabled:
        return (
            "This gateway gives access to the tools of no MCP servers yet (search_tools explains how to add them). "
            + _HOW_TO
        )
    preamble = f"This gateway gives access to the tools of {counted(len(enabled), 'MCP server')} (below). " + _HOW_TO
    lines = [_line(config, name, (summaries or {}).get(name)) for name in enabled]
    return digest(preamble, lines, mask=mask)


_HOW_TO = (
    "Find a tool with search_tools (describe the task in plain words; server= searches one server), then run "
    "it with execute_tool using its qualified name server.tool and arguments that match its input schema. "
    "list_tools browses one server and describe_tool shows a tool's full definition, each with the server's "
    "own instructions."
)


def _line(config: GatewayConfig, name: str, summary: ServerSummary | None) -> ServerLine:
    spec = config.servers[name].spec
    about = spec.description or (summary.about if summary is not None else None)
    allowed = (tool for tool in (summary.tools if summary is not None else ()))
    allowed = (tool for tool in allowed if tool_allowed(tool, spec.include_tools, spec.exclude_tools))
    return ServerLine(name, tuple(spec.aliases), about, tuple(itertools.islice(allowed, SAMPLE_TOOLS_SHOWN)))


async def current_instructions(config: GatewayConfig, catalog: Catalog, mask: Callable[[str], str]) -> str:
    """`instructions` as the catalog's digest has them now, read and built in worker threads (a digest of
    hundreds of servers takes milliseconds to build, and the event loop serves meanwhile)."""
    import anyio.to_thread  # not on the path to the early handshake (`server/daemon.py`)

    summaries = await catalog.summaries()
    return await anyio.to_thread.run_sync(functools.partial(instructions, config, summaries, mask=mask))


async def next_session_context(config: GatewayConfig, catalog: Catalog, mask: Callable[[str], str]) -> str:
    """What the next session's model will read before any call, as the listings left the catalog's digest."""
    return initial_context(config, await current_instructions(config, catalog, mask))


def initial_context(config: GatewayConfig, gateway_instructions: str) -> str:
    """What a client puts before the model for the gateway before any call: its tool list and instructions."""
    tools = [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in meta_tools()]
    return compact_json(tools) + gateway_instructions


def no_servers_hint(config: GatewayConfig) -> str | None:
    """What to do when no server is configured at all (None when some are)."""
    if config.servers:
        return None
    return (
        f"No MCP servers are configured. Add them under 'mcpServers' in {config.path}, or import the ones your "
        "AI client already has with `mcp-gateway import --client NAME`; a running gateway sees them once restarted."
    )


# The early handshake: the daemon answers its first hello before the SDK and the service are imported, so its
# instructions come from the config and the digest kept beside cache.json (`catalog.summary`, a few hundred
# bytes per server, read synchronously before the event loop exists), never from cache.json itself.


def handshake_instructions(
    home: str | os.PathLike[str] | None, config: GatewayConfig, environ: Mapping[str, str] | None = None
) -> str:
    """The instructions for `initialize`: how to use the four tools and a line per enabled server."""
    digest = _read_digest(Workspace.from_environment(home))
    summaries = {
        name: summary
        for name, summary in digest.servers.items()
        if name in config.servers and fingerprint(config.servers[name].identity) == summary.fingerprint
    }
    mask = SecretMask.for_servers(config.servers.values(), dict(os.environ if environ is None else environ))
    return instructions(config, summaries, mask=mask.mask)


def handshake_sources(home: str | os.PathLike[str] | None) -> list[Path]:
    """The files `handshake_instructions` reads: what a remembered handshake is valid for while they are unchanged."""
    workspace = Workspace.from_environment(home)
    return [workspace.config_path, workspace.cache_path.with_name(DIGEST_NAME)]


def _read_digest(workspace: Workspace) -> Digest:
    try:
        return parse_digest(read_regular(workspace.cache_path.with_name(DIGEST_NAME), MAX_DIGEST_BYTES))
    except (FileNotFoundError, UnusableFileError, OSError):
        return EMPTY_DIGEST  # the running gateway logs an unusable digest when it reads it
