"""The stdio MCP server: the four meta-tools, and the servers' prompts and resources, until the client leaves.

The session takes over a client whose handshake may have been answered already (`start`, `early_answers`):
the SDK's `Server` is built from the same `Handshake`, so whatever it answers is what was answered early.
Serving starts at once from cache.json; the startup metadata check and `eager` servers begin in the
background only after that, so the client's `initialize` is never held up by a downstream server.
The client closing stdin, SIGINT, SIGTERM and SIGHUP all end the session the same way: in-flight calls
are cancelled (their downstream requests with them), then every downstream server is stopped in
parallel under one deadline (`stopping` says how repeated signals and the overall bound are handled).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.models import InitializationOptions

from mcp_gateway.config import GatewayConfig
from mcp_gateway.front.client_lines import ClientLines
from mcp_gateway.front.early_answers import SERVER_NAME, SERVER_TITLE, Handshake
from mcp_gateway.origin import Origin
from mcp_gateway.server.changes import ClientChanges
from mcp_gateway.server.handlers import MetaToolHandlers
from mcp_gateway.server.offering_handlers import OfferingHandlers
from mcp_gateway.server.session_scope import SessionScope
from mcp_gateway.server.start import STOP_SIGNALS
from mcp_gateway.server.stdio import stdio_streams
from mcp_gateway.server.stopping import Stopper
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.questions import QuestionRelay
from mcp_gateway.service.session_calls import SessionCalls
from mcp_gateway.service.surface import meta_tool_definitions


def build_server(gateway: Gateway, handshake: Handshake | None = None, origin: Origin | None = None) -> Server[object]:
    """The SDK's server over `gateway` for one client session, saying what `handshake` says (by default: what
    its config makes), for the session from `origin` (a daemon's session; None: the gateway's own client), which
    every call it makes carries. Run it once: what the session registers on `gateway` is released as that run ends."""
    said = handshake if handshake is not None else Handshake(gateway.instructions(), meta_tool_definitions())
    relay = QuestionRelay(SessionCalls(gateway, origin))
    changes = ClientChanges(gateway.offerings, origin)
    scope = SessionScope(gateway, changes, relay)
    handlers = MetaToolHandlers(gateway, relay, scope)
    server: Server[object] = Server(
        SERVER_NAME,
        lifespan=lambda _: scope.running(),
        version=said.version,
        title=SERVER_TITLE,
        instructions=said.instructions,
        on_list_tools=handlers.list_tools,
    )
    # Registered directly (not `on_call_tool=`) because `execute_tool` returns the downstream result dict
    # untouched rather than a re-built `CallToolResult` model.
    server.add_request_handler("tools/call", types.CallToolRequestParams, handlers.call_tool)
    OfferingHandlers(gateway, scope, origin).register(server)
    changes.register(server)
    return server


def initialization_options(server: Server[object]) -> InitializationOptions:
    """What `server` says at its handshake: as `early_answers.CAPABILITIES` says it. The prompts and resources
    behind the gateway change as its servers change theirs, and it forwards those changes, so it says so."""
    return server.create_initialization_options(NotificationOptions(prompts_changed=True, resources_changed=True))


async def serve(gateway: Gateway, lines: ClientLines, handshake: Handshake) -> None:
    """Serve one client over stdio until it disconnects (closes our stdin), from the first line `lines` read."""
    server = build_server(gateway, handshake)
    async with stdio_streams(lines) as (read_stream, write_stream):
        gateway.start_background()
        await server.run(read_stream, write_stream, initialization_options(server))


async def run_until_stopped(
    home: str | None, config: GatewayConfig, leave: Callable[[int], NoReturn], lines: ClientLines, handshake: Handshake
) -> int:
    """The whole life of a serving gateway, with stop signals handled from start to the last child stopped.

    Returns the exit status once the orderly shutdown is over; `leave(status)` ends the process instead
    when the shutdown was forced and the orderly path did not finish in time (see `stopping`).
    """
    stopper = Stopper(leave)
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        async with anyio.create_task_group() as watchers:
            watchers.start_soon(stopper.watch, signals)
            watchers.start_soon(stopper.enforce_bound)
            async with Gateway.for_home(home, config, load_in_background=True) as gateway:
                stopper.kill_everything = gateway.stop_now
                stopper.hurry_everything = gateway.hurry_stop
                with anyio.CancelScope() as serving:
                    stopper.serve_in(serving)
                    await serve(gateway, lines, handshake)
                stopper.serving_ended()
            watchers.cancel_scope.cancel()
    return stopper.exit_status
