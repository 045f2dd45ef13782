"""One live connection to a downstream server, shared by every concurrent call to it.

Calls go through the SDK session's `send_request` with a raw-dict result type rather than
`Client.call_tool`: the gateway must pass a result through exactly as the server sent it, and
`call_tool` would re-validate structured content against the output schema (raising on a server's
mismatch instead of letting the client see it) and re-list tools to do so. The protocol-level shape is
still validated by the session for the negotiated version.
"""

from __future__ import annotations

from typing import Any, cast

import anyio
import mcp_types as types
from mcp import Client
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import RootModel

from mcp_gateway.catalog.records import JsonObject

ProgressCallback = ProgressFnT

MAX_LIST_PAGES = 1000
"""A server whose `tools/list` cursor never ends must not hang a refresh."""


class _RawResult(RootModel[dict[str, Any]]):
    """A result kept exactly as the server sent it (after the session's protocol-shape check)."""


class Connection:
    """A connected client plus the bookkeeping the pool needs to share, reap and retire it."""

    def __init__(self, server: str, client: Client, exited: anyio.Event | None, pid: int | None) -> None:
        self.server = server
        self.pid = pid
        self._client = client
        self.exited = exited
        self.in_flight = 0
        self.last_used = anyio.current_time()
        self.usable = True
        """False once the pool decided to stop it; no new call may start on it."""
        self.stop = anyio.Event()
        self.crashed = False
        """The server's process ended before the pool asked it to stop."""
        self.idle = anyio.Event()
        self.idle.set()
        self.probing = False
        """A liveness probe is under way; one at a time is enough."""

    @property
    def protocol_version(self) -> str:
        return self._client.protocol_version

    @property
    def server_name(self) -> str | None:
        info = self._client.server_info
        return info.name if info is not None else None

    @property
    def server_version(self) -> str | None:
        info = self._client.server_info
        return info.version if info is not None else None

    @property
    def instructions(self) -> str | None:
        return self._client.instructions

    def begin_call(self) -> None:
        self.in_flight += 1
        self.idle = anyio.Event() if self.idle.is_set() else self.idle

    def end_call(self) -> None:
        self.in_flight -= 1
        self.last_used = anyio.current_time()
        if self.in_flight == 0:
            self.idle.set()

    async def call_tool(
        self,
        tool: str,
        arguments: JsonObject,
        *,
        timeout_seconds: float,
        on_progress: ProgressCallback | None,
    ) -> JsonObject:
        """Send `tools/call` and return the result as the server sent it.

        On timeout the SDK sends the server `notifications/cancelled` before raising; on caller
        cancellation it does the same, so a cancelled `execute_tool` stops the downstream work too.
        """
        request = types.CallToolRequest(params=types.CallToolRequestParams(name=tool, arguments=arguments))
        result = await self._client.session.send_request(
            request,
            _RawResult,
            request_read_timeout_seconds=timeout_seconds,
            progress_callback=on_progress,
        )
        return result.root

    async def list_tools(self, *, timeout_seconds: float) -> list[JsonObject]:
        """Every page of `tools/list`, each tool as the server listed it."""
        tools: list[JsonObject] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_LIST_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
            page = await self._client.session.send_request(
                types.ListToolsRequest(params=params), _RawResult, request_read_timeout_seconds=timeout_seconds
            )
            listed: Any = page.root.get("tools")
            if isinstance(listed, list):
                tools.extend(cast(JsonObject, tool) for tool in cast(list[Any], listed) if isinstance(tool, dict))
            next_cursor = page.root.get("nextCursor")
            if not isinstance(next_cursor, str) or not next_cursor or next_cursor in seen:
                break
            seen.add(next_cursor)
            cursor = next_cursor
        return tools

    async def responds(self, *, timeout_seconds: float) -> bool:
        """Whether the server still answers a trivial request: a timed-out call alone does not say.

        `ping` under the handshake protocols; from 2026-07-28 `ping` is gone, so the first page of
        `tools/list` stands in. Any answer counts, an error answer too: only silence means wedged.
        """
        if self.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
            probe: types.PingRequest | types.ListToolsRequest = types.PingRequest(params=None)
        else:
            probe = types.ListToolsRequest(params=None)
        try:
            await self._client.session.send_request(probe, _RawResult, request_read_timeout_seconds=timeout_seconds)
        except MCPError as exc:
            return exc.code not in (REQUEST_TIMEOUT, CONNECTION_CLOSED)
        return True
