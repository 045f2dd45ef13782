"""The catalog seen as a directory of servers and tools, for name resolution."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mcp_gateway.catalog.catalog import Catalog
from mcp_gateway.catalog.records import ToolRecord


class CatalogDirectory:
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
