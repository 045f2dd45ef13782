"""Which tool or server a request means, waiting for listings a first start still has under way.

A call may name its tool before the gateway has listed that tool's server: a first start with an empty
cache lists every server in the background, and a server whose entry is missing is listed on demand when a
call names it (explicitly, or as the prefix of a qualified name). A bare tool name nobody has listed yet
waits, boundedly, for the listings under way before it is called unknown.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio

from mcp_gateway.catalog.catalog import Catalog
from mcp_gateway.catalog.records import ServerCatalog
from mcp_gateway.config import GatewayConfig
from mcp_gateway.errors import ToolCallError, UnknownToolError
from mcp_gateway.service.directory import CatalogDirectory
from mcp_gateway.service.names import ResolvedTool, resolve_server_name, resolve_tool

LOADING_WAIT_SECONDS = 15.0
"""How long a call for a tool nobody has listed yet waits for servers still loading."""


class ToolResolver:
    def __init__(
        self,
        config: GatewayConfig,
        catalog: Catalog,
        directory: CatalogDirectory,
        ensure_listed: Callable[[str], Awaitable[ServerCatalog]],
    ) -> None:
        self._config = config
        self._catalog = catalog
        self._directory = directory
        self._ensure_listed = ensure_listed

    def server(self, name: str) -> str:
        """The configured server `name` means, by the one rule (`search/servers.py`); else an error to show."""
        return resolve_server_name(self._directory, name)

    def configured_name(self, name: str) -> str | None:
        try:
            return self.server(name)
        except ToolCallError:
            return None

    async def tool(self, tool: str, server: str | None) -> ResolvedTool:
        """The tool `tool` (qualified or bare, optionally within `server`) means.

        Raises:
            ToolCallError: unknown, ambiguous, or not allowed (filtered, or its server disabled).
        """
        await self._catalog.sync_from_disk()
        named = self._named_server(tool, server)
        if named is not None and self._catalog.entry(named) is None and not self._config.servers[named].spec.disabled:
            await self._ensure_listed(named)
        try:
            return resolve_tool(self._directory, tool, server)
        except UnknownToolError:
            if not self._catalog.loading():
                raise
        with anyio.move_on_after(LOADING_WAIT_SECONDS):
            while self._catalog.loading():
                await self._catalog.wait_loaded()
        return resolve_tool(self._directory, tool, server)

    def _named_server(self, tool: str, server: str | None) -> str | None:
        """The configured server a call names explicitly or by prefix, if any."""
        if server:
            return self.configured_name(server)
        for name in sorted(self._config.servers, key=len, reverse=True):
            if tool.startswith(name + "."):
                return name
        return None
