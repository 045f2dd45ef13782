"""Telling the client that the gateway's prompts or resources changed, in the protocol era it speaks.

A handshake-era client hears `notifications/prompts/list_changed` (or the resources one) on the session itself,
sent outside any request: the session is kept from the client's `notifications/initialized`, the moment from
which the protocol allows the server to send it anything. A 2026-07-28 client hears changes only on a
`subscriptions/listen` stream it opens, which the SDK's `ListenHandler` serves from a bus the changes are
published on. Both are best-effort, as the SDK makes them: a client that has gone away loses nothing it needed.

The service says when (`ChangeFollower.subscribe`: once the server that changed has been listed again); this
only speaks to the client. The bus is the one seam for every change event a modern client can listen for.

Resource updates ride it too: a listen stream naming `resourceSubscriptions` has the gateway hold a downstream
subscription for each URI for as long as the stream lasts (`Offerings.listening`), and the servers'
`resources/updated` are published as `ResourceUpdated` under the client's URI. The acknowledgment names only
the URIs held (the spec's "unsupported types are omitted"). An update a server sends as soon as it is
subscribed, before the SDK's handler joins the bus, is kept and handed to that stream's listener as it joins
(`_ReplayingBus`), so none is lost to the order in which the two are set up.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
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
    ResourceUpdated,
    ServerEvent,
)

from mcp_gateway.eras import speaks_modern
from mcp_gateway.origin import Origin
from mcp_gateway.service.changes import ClientChange
from mcp_gateway.service.offerings import Offerings

_EVENTS: dict[ClientChange, ServerEvent] = {"prompts": PromptsListChanged(), "resources": ResourcesListChanged()}


_EARLY: ContextVar[list[ServerEvent] | None] = ContextVar(
    "updates heard before the stream joined the bus", default=None
)


class _ReplayingBus(InMemorySubscriptionBus):
    """Hands a listener joining from a listen stream's task the updates that task heard before (`_EARLY`)."""

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        unsubscribe = super().subscribe(listener)
        for event in _EARLY.get() or ():
            listener(event)  # the SDK's `deliver`: filtered by the stream's URIs, buffered, never raises
        return unsubscribe


class ClientChanges:
    def __init__(self, offerings: Offerings, origin: Origin | None = None) -> None:
        """`origin`: the session served (None: the gateway's own), which its listen streams' subscriptions carry."""
        self.bus = _ReplayingBus()
        self._listen = ListenHandler(self.bus)
        self._offerings = offerings
        self._origin = origin
        self._session: ServerSession | None = None
        """The handshake-era session, once its client said it is initialized; None before, and on modern ones."""

    def register(self, server: Server[Any]) -> None:
        """Serve `subscriptions/listen` and keep the session's connection when its client is initialized."""
        server.add_request_handler("subscriptions/listen", types.SubscriptionsListenRequestParams, self._listen_stream)
        server.add_notification_handler("notifications/initialized", types.NotificationParams, self._initialized)

    async def _listen_stream(
        self, ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        """One listen stream; with resource URIs in it, their subscriptions are held until it ends."""
        wanted = params.notifications.resource_subscriptions
        if not wanted:
            return await self._listen(ctx, params)
        early: list[ServerEvent] = []
        stop_keeping = self.bus.subscribe(
            lambda event: early.append(event) if isinstance(event, ResourceUpdated) else None
        )
        try:
            async with self._offerings.listening(wanted, self._updated, origin=self._origin) as held:
                stop_keeping()
                honored = params.notifications.model_copy(update={"resource_subscriptions": held or None})
                replaying = _EARLY.set(early)  # read as the handler joins the bus, just below, in this task
                try:
                    return await self._listen(ctx, params.model_copy(update={"notifications": honored}))
                finally:
                    _EARLY.reset(replaying)
        finally:
            stop_keeping()

    async def _updated(self, uri: str) -> None:
        await self.bus.publish(ResourceUpdated(uri=uri))

    async def _initialized(self, ctx: ServerRequestContext[Any], params: types.NotificationParams) -> None:
        if not speaks_modern(ctx.protocol_version):
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
