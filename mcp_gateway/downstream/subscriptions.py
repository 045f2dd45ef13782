"""A client's resource subscription kept on its downstream server for as long as the client wants it.

A subscription lives on one connection: a server stopped for being idle, or one that crashed, forgets it,
and the client would never hear of a change again without knowing why. So a subscription is held like a
call in flight (`Supervisor.borrowed`): the idle timer never stops a server someone is subscribed to. When
its connection ends anyway (a crash, a wedged connection retired), the subscription is made again on a
fresh one, until the client unsubscribes, the server is backing off after failed starts, or the pool stops.

The first `resources/subscribe` is the client's request: its failure is the client's error. Later ones are
the gateway's own, and a failure there ends the holding, noted in the server's log.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio
import mcp_types as types

from mcp_gateway.downstream.notes import ServerNotes
from mcp_gateway.downstream.supervisor import Supervisor
from mcp_gateway.errors import DownstreamError

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
    subscribe = types.SubscribeRequest(params=types.SubscribeRequestParams(uri=held.uri))
    while not held.released.is_set():
        try:
            async with supervisor.borrowed(SUBSCRIBE_OPERATION, retry_safe=True) as (connection, timeout):
                await connection.request(subscribe, timeout_seconds=timeout)
                held.first.set()
                async with anyio.create_task_group() as waiting:  # the client lets go, or the connection ends

                    async def until(event: anyio.Event) -> None:
                        await event.wait()
                        waiting.cancel_scope.cancel()

                    waiting.start_soon(until, held.released)
                    waiting.start_soon(until, connection.stop)
                if held.released.is_set() and connection.usable:
                    unsubscribe = types.UnsubscribeRequest(params=types.UnsubscribeRequestParams(uri=held.uri))
                    await connection.request(unsubscribe, timeout_seconds=timeout)
        except DownstreamError as error:
            if not held.first.is_set():
                held.error = error
                held.first.set()
            else:
                notes.info(f"stopped keeping the subscription to {held.uri}: {error.message}")
            return
