"""A client's resource subscription kept on its downstream server for as long as the client wants it.

A subscription lives on one connection: a server stopped for being idle, or one that crashed, forgets it,
and the client would never hear of a change again without knowing why. So a subscription is held like a
call in flight (`Supervisor.borrowed`): the idle timer never stops a server someone is subscribed to. When
its connection ends anyway (a crash, a wedged connection retired), the subscription is made again on a
fresh one, until the client unsubscribes, the server is backing off after failed starts, or the pool stops.

A handshake-era server is sent `resources/subscribe` (and `resources/unsubscribe` when the client lets go). A
2026-07-28 server has no such method: the subscription is a `subscriptions/listen` stream naming the URI, open
for as long as it is held and closed (cancelled) when it is released; its updates reach the connection's
`message_handler` as the handshake era's do (the SDK tees them), so the pool forwards both alike.

The first subscription is the client's request: its failure is the client's error. Later ones are the
gateway's own, and a failure there ends the holding, noted in the server's log, as does a stream the server
ends while its connection lives on (making it again at once could only loop).
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import dataclass, field

import anyio
import mcp_types as types
from mcp.client.subscriptions import ListenNotSupportedError, Subscription, SubscriptionLost
from mcp.shared.exceptions import MCPError

from mcp_gateway.downstream.connection import Connection
from mcp_gateway.downstream.stderr_log import ServerNotes
from mcp_gateway.downstream.supervisor import Supervisor
from mcp_gateway.eras import speaks_modern
from mcp_gateway.errors import INTERNAL_ERROR, DownstreamError, DownstreamRpcError

SUBSCRIBE_OPERATION = "resources/subscribe"


@dataclass
class Held:
    """One subscription being held: `released` ends it; `first` is set once the first subscribe is answered."""

    uri: str
    released: anyio.Event = field(default_factory=anyio.Event)
    first: anyio.Event = field(default_factory=anyio.Event)
    error: DownstreamError | None = None


async def hold(supervisor: Supervisor, held: Held, notes: ServerNotes) -> None:
    """Subscribe to `held.uri` and keep it subscribed until `held.released` is set (see the module docstring)."""
    while not held.released.is_set():
        try:
            async with supervisor.borrowed(SUBSCRIBE_OPERATION, retry_safe=True) as (connection, timeout):
                if speaks_modern(connection.protocol_version):
                    ended_by_server = await _listened(supervisor.server.name, connection, held, timeout)
                else:
                    await _subscribed(connection, held, timeout)
                    ended_by_server = False
            if ended_by_server:
                notes.info(f"stopped keeping the subscription to {held.uri}: the server ended its stream")
                return
        except DownstreamError as error:
            if not held.first.is_set():
                held.error = error
                held.first.set()
            else:
                notes.info(f"stopped keeping the subscription to {held.uri}: {error.message}")
            return


async def _subscribed(connection: Connection, held: Held, request_seconds: float) -> None:
    """`resources/subscribe` on a handshake-era connection, until released or the connection ends."""
    subscribe = types.SubscribeRequest(params=types.SubscribeRequestParams(uri=held.uri))
    await connection.request(subscribe, timeout_seconds=request_seconds)
    held.first.set()
    await _until_either(held.released, connection.stop)
    if held.released.is_set() and connection.usable:
        unsubscribe = types.UnsubscribeRequest(params=types.UnsubscribeRequestParams(uri=held.uri))
        await connection.request(unsubscribe, timeout_seconds=request_seconds)


async def _listened(server: str, connection: Connection, held: Held, request_seconds: float) -> bool:
    """A listen stream for `held.uri` on a 2026-07-28 connection, until released or the connection ends; whether
    the server ended the stream itself while its connection lives on."""
    ended = anyio.Event()

    async def drain(stream: Subscription) -> None:
        # Each update was already teed to the connection's `message_handler`: this only empties the backlog.
        try:
            async for _ in stream:
                pass
        except SubscriptionLost:
            pass  # dropped rather than closed: ended all the same
        ended.set()

    try:
        async with AsyncExitStack() as stack:  # its exit cancels the request: the server closes its stream
            with anyio.fail_after(request_seconds):  # the acknowledgment; the stream itself lasts as long as it is held
                stream = await stack.enter_async_context(connection.listen_to(held.uri))
            held.first.set()
            async with anyio.create_task_group() as draining:
                draining.start_soon(drain, stream)
                await _until_either(held.released, connection.stop, ended)
                draining.cancel_scope.cancel()
    except (ListenNotSupportedError, MCPError, SubscriptionLost, TimeoutError) as error:
        raise DownstreamRpcError(
            f"The server '{server}' did not open a listen stream for {held.uri} ({error}); "
            "read the resource again to see whether it changed.",
            server=server,
            code=error.error.code if isinstance(error, MCPError) else INTERNAL_ERROR,
        ) from error
    return ended.is_set() and not held.released.is_set() and connection.usable


async def _until_either(*events: anyio.Event) -> None:
    async with anyio.create_task_group() as waiting:

        async def until(event: anyio.Event) -> None:
            await event.wait()
            waiting.cancel_scope.cancel()

        for event in events:
            waiting.start_soon(until, event)
