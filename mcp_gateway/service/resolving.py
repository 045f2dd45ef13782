"""Which tool or server a request means, waiting for listings a first start still has under way.

A call may name its tool before the gateway has listed that tool's server: a first start with an empty
cache lists every server in the background, and a server whose entry is missing is listed on demand when a
call names it (explicitly, or as the prefix of a qualified name). A bare tool name nobody has listed yet
waits, boundedly (`listing_wait`), for the listings under way before it is called unknown. A call that
will run the tool waits for its server's listing as long as the server takes to start (running the tool
needs it started anyway); one that only reads the definition (`patient=False`) waits within the bound.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence

from mcp_gateway.catalog import Catalog, ServerCatalog, ToolRecord
from mcp_gateway.config import GatewayConfig
from mcp_gateway.downstream.connection import ProgressCallback
from mcp_gateway.errors import ToolCallError, UnknownToolError
from mcp_gateway.service.listing_wait import ListingWait
from mcp_gateway.service.names import ResolvedTool, disabled_server, resolve_server_name, resolve_tool
from mcp_gateway.wording import Action


class CatalogDirectory:
    """The catalog seen as a directory of servers and tools (`names.ToolDirectory`), for name resolution."""

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog

    def server_keys(self) -> Sequence[str]:
        return list(self._catalog.config.servers)

    def aliases(self, server: str) -> Sequence[str]:
        return self._catalog.config.servers[server].spec.aliases

    def is_disabled(self, server: str) -> bool:
        return self._catalog.config.servers[server].spec.disabled

    def rejected(self) -> Mapping[str, str]:
        return self._catalog.config.rejected

    def find(self, server: str, tool: str) -> ToolRecord | None:
        return self._catalog.find(server, tool)

    def allowed(self, server: str, tool: str) -> bool:
        return self._catalog.allowed(server, tool)

    def tool_names(self, server: str) -> Sequence[str]:
        return [tool.name for tool in self._catalog.tools(server)]


class ToolResolver:
    def __init__(
        self,
        catalog: Catalog,
        directory: CatalogDirectory,
        ensure_listed: Callable[[str], Awaitable[ServerCatalog]],
        waiting: ListingWait,
    ) -> None:
        self._catalog = catalog
        self._directory = directory
        self._ensure_listed = ensure_listed
        self._waiting = waiting

    @property
    def _config(self) -> GatewayConfig:
        return self._catalog.config  # the one served, also after a live edit

    def server(self, name: str) -> str:
        """The configured server `name` means, by the one rule (`search/servers.py`); else an error to show."""
        return resolve_server_name(self._directory, name)

    def enabled_server(self, name: str) -> str:
        """As `server`, for a request that would start it: a disabled server is an error saying how to enable it."""
        server = self.server(name)
        if self._config.servers[server].spec.disabled:
            raise disabled_server(server)
        return server

    def configured_name(self, name: str) -> str | None:
        try:
            return self.server(name)
        except ToolCallError:
            return None

    async def tool(
        self,
        tool: str,
        server: str | None,
        *,
        patient: bool = True,
        action: Action = "describe",
        on_progress: ProgressCallback | None = None,
    ) -> ResolvedTool:
        """The tool `tool` (qualified or bare, optionally within `server`) means.

        `patient`: wait for the named server's listing as long as it takes (to run the tool); else within the
        listing wait's bound, then raise `StillLoadingError` naming the `action` to take again.

        Raises:
            ToolCallError: unknown, ambiguous, not allowed (filtered, or its server disabled), still loading.
        """
        await self._catalog.sync_from_disk()
        named = self.named_server(tool, server)
        if named is not None and self._catalog.entry(named) is None and not self._config.servers[named].spec.disabled:
            if not patient and await self._waiting.settle([named], on_progress):
                raise self._waiting.still_loading(named, action, tool)
            await self._ensure_listed(named)
        try:
            return resolve_tool(self._directory, tool, server)
        except UnknownToolError:
            if not self._catalog.loading():
                raise
        await self._waiting.settle(None, on_progress)
        return resolve_tool(self._directory, tool, server)

    def named_server(self, tool: str, server: str | None) -> str | None:
        """The configured server a call names explicitly or by prefix, if any."""
        if server:
            return self.configured_name(server)
        for name in sorted(self._config.servers, key=len, reverse=True):
            if tool.startswith(name + "."):
                return name
        return None
