"""The MCP request handlers for prompts, resources, templates, completions and subscriptions.

Each hands its request to the gateway's `offerings` (`service/offerings/`) and returns what comes back as a
plain dict, so a downstream result (a prompt's messages, a resource's `text` or `blob`) reaches the client as
the server sent it. These are not tool calls: there is no `isError` plane, so whatever cannot be served is a
JSON-RPC error whose message is one sentence, masked: the code a `RequestError` carries (-32602 for an unknown
prompt or URI), a downstream server's own code when it answered with an error, else -32603 (it could not be
started, it timed out, the gateway is stopping). A 2026-07-28 client gets `resultType`, `ttlMs` and
`cacheScope` where it needs them.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError

from mcp_gateway.eras import completed
from mcp_gateway.errors import INTERNAL_ERROR, DownstreamRpcError, GatewayError, RequestError
from mcp_gateway.json_object import JsonObject
from mcp_gateway.origin import Origin
from mcp_gateway.server.session_scope import SessionScope
from mcp_gateway.service.gateway import Gateway

logger = logging.getLogger(__name__)

JSON_RPC_CODES = range(-32768, -31999)
"""The codes JSON-RPC reserves for errors: a downstream's own code outside them is not passed on as one."""

Ctx = ServerRequestContext[Any]
CACHEABLE_METHODS = ("prompts/list", "resources/list", "resources/templates/list", "resources/read")


class OfferingHandlers:
    def __init__(self, gateway: Gateway, scope: SessionScope, origin: Origin | None = None) -> None:
        """`scope`: the session these serve; it holds their subscriptions and bounds their requests in flight.
        `origin`: where that session comes from (None: the gateway's own), which its requests carry."""
        self._gateway = gateway
        self._offerings = gateway.offerings
        self._scope = scope
        self._origin = origin

    def register(self, server: Server[object]) -> None:
        """Serve every method here on `server` (its capabilities follow from them, see `server/app.py`)."""
        server.add_request_handler("prompts/list", types.PaginatedRequestParams, self.list_prompts)
        server.add_request_handler("prompts/get", types.GetPromptRequestParams, self.get_prompt)
        server.add_request_handler("resources/list", types.PaginatedRequestParams, self.list_resources)
        server.add_request_handler("resources/templates/list", types.PaginatedRequestParams, self.list_templates)
        server.add_request_handler("resources/read", types.ReadResourceRequestParams, self.read_resource)
        server.add_request_handler("resources/subscribe", types.SubscribeRequestParams, self.subscribe)
        server.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, self.unsubscribe)
        server.add_request_handler("completion/complete", types.CompleteRequestParams, self.complete)
        # A 2026-07-28 client needs `ttlMs` and `cacheScope` on these; a handshake-era server sends none, and what the
        # gateway lists may change with any server's next listing: stale at once, for this client only.
        server.cache_hints.update({method: CacheHint(ttl_ms=0, scope="private") for method in CACHEABLE_METHODS})

    async def list_prompts(self, ctx: Ctx, params: types.PaginatedRequestParams) -> HandlerResult:
        return await self._served("prompts/list", lambda: self._offerings.list_prompts(params.cursor))

    async def get_prompt(self, ctx: Ctx, params: types.GetPromptRequestParams) -> HandlerResult:
        async def get() -> JsonObject:
            async with self._scope.slot():
                return await self._offerings.get_prompt(params.name, params.arguments, origin=self._origin)

        return await self._served("prompts/get", get)

    async def list_resources(self, ctx: Ctx, params: types.PaginatedRequestParams) -> HandlerResult:
        return await self._served("resources/list", lambda: self._offerings.list_resources(params.cursor))

    async def list_templates(self, ctx: Ctx, params: types.PaginatedRequestParams) -> HandlerResult:
        return await self._served("resources/templates/list", lambda: self._offerings.list_templates(params.cursor))

    async def read_resource(self, ctx: Ctx, params: types.ReadResourceRequestParams) -> HandlerResult:
        async def read() -> JsonObject:
            async with self._scope.slot():
                return await self._offerings.read_resource(params.uri, origin=self._origin)

        return await self._served("resources/read", read)

    async def complete(self, ctx: Ctx, params: types.CompleteRequestParams) -> HandlerResult:
        asked = params.model_dump(by_alias=True, exclude_none=True, mode="json")
        asked.pop("_meta", None)  # the client's progress token and the like are not the server's

        async def complete() -> JsonObject:
            async with self._scope.slot():
                return await self._offerings.complete(asked, origin=self._origin)

        return await self._served("completion/complete", complete)

    async def subscribe(self, ctx: Ctx, params: types.SubscribeRequestParams) -> HandlerResult:
        session = ctx.session

        async def updated(uri: str) -> None:
            await session.send_resource_updated(uri)

        async def forward() -> JsonObject:
            await self._offerings.subscribe(params.uri, updated, self._scope, origin=self._origin)
            return {}

        return await self._served("resources/subscribe", forward)

    async def unsubscribe(self, ctx: Ctx, params: types.UnsubscribeRequestParams) -> HandlerResult:
        async def forward() -> JsonObject:
            await self._offerings.unsubscribe(params.uri, self._scope)
            return {}

        return await self._served("resources/unsubscribe", forward)

    async def _served(self, method: str, serve: Callable[[], Awaitable[JsonObject]]) -> JsonObject:
        try:
            result = await serve()
        except RequestError as error:
            raise MCPError(code=error.code, message=self._gateway.mask(error.message)) from error
        except DownstreamRpcError as error:
            code = error.code if error.code in JSON_RPC_CODES else INTERNAL_ERROR
            raise MCPError(code=code, message=self._gateway.mask(error.message)) from error
        except GatewayError as error:  # the server could not be started, timed out, the gateway is stopping
            raise MCPError(code=INTERNAL_ERROR, message=self._gateway.mask(error.message)) from error
        except Exception as exc:
            logger.exception("%s failed", method)
            message = self._gateway.mask(f"{type(exc).__name__}: {exc}")
            raise MCPError(code=INTERNAL_ERROR, message=message) from exc
        return completed(result)
