"""The MCP request handlers: `tools/list` (the fixed four) and `tools/call` (dispatch to the gateway).

Two error planes (DESIGN §1): whatever the model can fix comes back as an `isError` result with one
actionable sentence; only gateway bugs reach the client as JSON-RPC errors (the SDK maps an unexpected
exception to one). `execute_tool` returns the downstream result dict untouched, so every content item,
`structuredContent`, `isError` and `_meta` reach the client as the server sent them; a tool's questions
(elicitation, sampling, `input_required`) reach the client through `questions/relay.py`. The text of a gateway
bug's JSON-RPC error passes through the gateway's `SecretMask` like every other text the model reads.
"""

from __future__ import annotations

import logging
from typing import Any

import mcp_types as types
from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError

from mcp_gateway.bounds import MAX_ECHOED_NAME_CHARS, clip
from mcp_gateway.eras import completed
from mcp_gateway.errors import InvalidArgumentsError, ToolCallError
from mcp_gateway.origin import Origin
from mcp_gateway.questions import QuestionRelay
from mcp_gateway.server.arguments import (
    DescribeArguments,
    ExecuteArguments,
    ListArguments,
    SearchArguments,
    parse_arguments,
)
from mcp_gateway.server.asking import ClientCaller
from mcp_gateway.server.session_scope import SessionScope
from mcp_gateway.service import views
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.reports import ToolDefinition
from mcp_gateway.service.surface import meta_tools
from mcp_gateway.tokens import compact_json
from mcp_gateway.wording import DESCRIBE_TOOL, EXECUTE_TOOL, LIST_TOOLS, META_TOOL_NAMES, SEARCH_TOOLS

logger = logging.getLogger(__name__)


class MetaToolHandlers:
    def __init__(self, gateway: Gateway, relay: QuestionRelay, scope: SessionScope, origin: Origin | None) -> None:
        """`origin`: the session's (None: the gateway's own), for which every read and call resolves its servers."""
        self._gateway = gateway
        self._relay = relay
        self._scope = scope
        self._origin = origin
        self._tools = types.ListToolsResult(tools=meta_tools())

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return self._tools

    async def call_tool(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> HandlerResult:
        name, raw = params.name, params.arguments
        try:
            async with self._scope.slot():
                if name == SEARCH_TOOLS:
                    return await self._search(ctx, raw)
                if name == LIST_TOOLS:
                    return await self._list(ctx, raw)
                if name == DESCRIBE_TOOL:
                    return await self._describe(ctx, raw)
                if name == EXECUTE_TOOL:
                    return await self._execute(ctx, raw, params)
        except ToolCallError as error:
            return error_result(error)
        except Exception as exc:
            # A gateway bug: still a JSON-RPC error (as the SDK would make it), but with its text masked, and
            # logged here since the SDK logs only the exceptions it turns into errors itself.
            logger.exception("%s failed", name)
            message = self._gateway.mask(f"{type(exc).__name__}: {exc}")
            raise MCPError(code=types.INTERNAL_ERROR, message=message) from exc
        quoted = clip(name, MAX_ECHOED_NAME_CHARS)
        return text_result(
            f"'{quoted}' is not a gateway tool. The gateway's tools are {', '.join(META_TOOL_NAMES)}; "
            f"to run a downstream tool call execute_tool with tool='{quoted}'.",
            is_error=True,
        )

    async def _search(self, ctx: ServerRequestContext[Any], raw: dict[str, Any] | None) -> HandlerResult:
        args = parse_arguments(SearchArguments, SEARCH_TOOLS, raw)
        if isinstance(args, str):
            return text_result(args, is_error=True)
        report = await self._gateway.search(
            args.query,
            alternatives=tuple(args.alternatives),
            server=args.server,
            limit=args.limit,
            on_progress=progress_to(ctx),
            origin=self._origin,
        )
        return text_result(views.search_payload(report))

    async def _list(self, ctx: ServerRequestContext[Any], raw: dict[str, Any] | None) -> HandlerResult:
        args = parse_arguments(ListArguments, LIST_TOOLS, raw)
        if isinstance(args, str):
            return text_result(args, is_error=True)
        page = await self._gateway.list_tools(
            args.server, limit=args.limit, offset=args.offset, on_progress=progress_to(ctx), origin=self._origin
        )
        return text_result(views.list_payload(page))

    async def _describe(self, ctx: ServerRequestContext[Any], raw: dict[str, Any] | None) -> HandlerResult:
        args = parse_arguments(DescribeArguments, DESCRIBE_TOOL, raw)
        if isinstance(args, str):
            return text_result(args, is_error=True)
        description = await self._gateway.describe(
            args.tool, server=args.server, on_progress=progress_to(ctx), origin=self._origin
        )
        return text_result(views.describe_payload(description))

    async def _execute(
        self, ctx: ServerRequestContext[Any], raw: dict[str, Any] | None, params: types.CallToolRequestParams
    ) -> HandlerResult:
        args = parse_arguments(ExecuteArguments, EXECUTE_TOOL, raw)
        if isinstance(args, str):
            return text_result(args, is_error=True)
        try:
            result = await self._relay.execute(
                args.tool,
                args.arguments,
                ClientCaller(ctx, params, self._scope),
                server=args.server,
                on_progress=progress_to(ctx),
            )
        except InvalidArgumentsError as error:
            described = await self._gateway.describe(args.tool, server=args.server, origin=self._origin)
            return error_result(error, described.tool)
        return completed(result)


def progress_to(ctx: ServerRequestContext[Any]) -> ProgressFnT:
    """Progress notifications for the request `ctx` answers; sent only if its client asked (a progress token)."""

    async def forward(progress: float, total: float | None, message: str | None) -> None:
        await ctx.session.report_progress(progress, total, message)

    return forward


def text_result(payload: Any, *, is_error: bool = False) -> types.CallToolResult:
    """One text item: a sentence, or a report's JSON (compact, as `service/views.py` shapes it)."""
    text = payload if isinstance(payload, str) else compact_json(payload)
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=is_error)


def error_result(error: ToolCallError, tool: ToolDefinition | None = None) -> types.CallToolResult:
    return text_result(views.error_text(error, tool), is_error=True)
