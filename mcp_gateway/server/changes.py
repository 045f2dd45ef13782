"""Telling the client that the gateway's prompts or resources changed, in the protocol era it speaks.

A handshake-era client hears `notifications/prompts/list_changed` (or the resources one) on the session itself,
sent outside any request: the session is kept from the client's `notifications/initialized`, the moment from
which the protocol allows the server to send it anything. A 2026-07-28 client hears changes only on a
`subscriptions/listen` stream it opens, which the SDK's `ListenHandler` serves from a bus the changes are
published on. Both are best-effort, as the SDK makes them: a client that has gone away loses nothing it needed.

The service says when (`ChangeFollower.subscribe`: once the server that changed has been listed again); this
only speaks to the client. The bus is the one seam for every change event a modern client can listen for, so
resource updates can ride it too.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ServerEvent,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp_gateway.service.changes import ClientChange

_EVENTS: dict[ClientChange, ServerEvent] = {"prompts": PromptsListChanged(), "resources": ResourcesListChanged()}


class ClientChanges:
    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()
        self._listen = ListenHandler(self.bus)
        self._session: ServerSession | None = None
        """The handshake-era session, once its client said it is initialized; None before, and on modern ones."""

    def register(self, server: Server[Any]) -> None:
        """Serve `subscriptions/listen` and keep the session's connection when its client is initialized."""
        server.add_request_handler("subscriptions/listen", types.SubscriptionsListenRequestParams, self._listen)
        server.add_notification_handler("notifications/initialized", types.NotificationParams, self._initialized)

    async def _initialized(self, ctx: ServerRequestContext[Any], params: types.NotificationParams) -> None:
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self._session = ctx.session

    async def tell(self, kind: ClientChange) -> None:
        """Say that the gateway's `kind` list changed, to the session and to every listen stream."""
        session = self._session
        if session is not None:
            try:
                if kind == "prompts":
                    await session.send_prompt_list_changed()
                else:
                    await session.send_resource_list_changed()
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                self._session = None  # the client has gone: the gateway is about to stop
        await self.bus.publish(_EVENTS[kind])
