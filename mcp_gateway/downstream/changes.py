"""Hearing a downstream server say its lists changed, in both protocol eras, and passing it on as one callback.

A handshake-era server sends `notifications/tools/list_changed` (and the prompts and resources ones) whenever it
likes; the SDK hands every server notification to the `Client`'s `message_handler`. A 2026-07-28 server sends
them only on a `subscriptions/listen` stream its client opened, so on such a connection one stream is opened
right after the handshake for the kinds the server says it announces (`listChanged` in its capabilities); its
events reach the same `message_handler` too (the SDK tees them), so both eras take one path.

This module only hears: the callback (`ChangeHeard`, given by whoever owns the catalog) decides what to do,
must return at once, and runs on the connection's own reader, so it never awaits anything. `downstream/` never
imports `service/`: the callback is how a change leaves the pool, as progress does.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Literal

import anyio
import anyio.lowlevel
import mcp_types as types
from mcp import Client
from mcp.client.session import IncomingMessage, MessageHandlerFnT
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp.shared.exceptions import MCPError

from mcp_gateway.downstream.stderr_log import ServerNotes
from mcp_gateway.eras import speaks_modern

ListKind = Literal["tools", "prompts", "resources"]
"""Which of a server's lists it said changed."""
ChangeHeard = Callable[[ListKind], None]
"""Told that the server's list of this kind changed; must return at once (it runs on the connection's reader)."""
ServerChange = Literal["tools", "prompts", "resources", "started"]
"""What the pool tells its owner about a server: a list it said changed, or that it was started afresh (what it
offers may have changed since it was last listed, by another session or an upgrade)."""
PoolChangeHeard = Callable[[str, ServerChange, str], None]
"""The pool's owner told of a server's change: the server's name, the change, and the key of the process it
happened on (`Pool.process_key`); must return at once."""

_KINDS: dict[type[types.ServerNotification], ListKind] = {
    types.ToolListChangedNotification: "tools",
    types.PromptListChangedNotification: "prompts",
    types.ResourceListChangedNotification: "resources",
}


def change_handler(heard: ChangeHeard | None, others: MessageHandlerFnT | None = None) -> MessageHandlerFnT:
    """The `Client`'s `message_handler`: list_changed notifications go to `heard`, and every message to `others`
    (the pool's forwarding of `resources/updated`), if given."""

    async def handle(message: IncomingMessage) -> None:
        kind = _KINDS.get(type(message)) if isinstance(message, types.ServerNotification) else None
        if kind is not None and heard is not None:
            heard(kind)
        if others is not None:
            await others(message)
        else:
            await anyio.lowlevel.checkpoint()

    return handle


async def listen_if_modern(stack: AsyncExitStack, client: Client, notes: ServerNotes) -> None:
    """On a 2026-07-28 connection whose server announces list changes, open the one stream that carries them.

    The stream lives in a task group entered on `stack` (the connection owner's stack, so it is entered and exited
    in that one task, as the SDK requires) and is cancelled before the client is closed. A server that refuses or
    drops the stream still serves its calls; only its changes go unheard until it next starts, which is noted.
    """
    if not speaks_modern(client.protocol_version):
        return
    capabilities = client.server_capabilities
    tools = bool(capabilities.tools and capabilities.tools.list_changed)
    prompts = bool(capabilities.prompts and capabilities.prompts.list_changed)
    resources = bool(capabilities.resources and capabilities.resources.list_changed)
    if not (tools or prompts or resources):
        return
    group = await stack.enter_async_context(anyio.create_task_group())
    stack.callback(group.cancel_scope.cancel)  # unwound first: the stream ends before the client does

    async def drain() -> None:
        # Each event was already teed to `change_handler`; consuming it here only keeps the backlog empty.
        try:
            async with client.listen(
                tools_list_changed=tools, prompts_list_changed=prompts, resources_list_changed=resources
            ) as subscription:
                async for _ in subscription:
                    pass
        except (ListenNotSupportedError, MCPError, SubscriptionLost, TimeoutError) as error:
            notes.info(f"its list changes will not be heard until it starts again: {error}")

    group.start_soon(drain)
