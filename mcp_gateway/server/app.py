"""The MCP server of one client session: the four meta-tools, and the servers' prompts and resources.

A session takes over a client whose handshake its front may have answered already (`front.early_answers`):
the SDK's `Server` is built from the same `Handshake`, so whatever it answers is what was answered early.
The daemon (`daemon`, `session`) runs one per session over its shared gateway.
"""

from __future__ import annotations

import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.models import InitializationOptions

from mcp_gateway.front.early_answers import SERVER_NAME, SERVER_TITLE, Handshake
from mcp_gateway.origin import Origin
from mcp_gateway.questions import QuestionRelay
from mcp_gateway.server.changes import ClientChanges
from mcp_gateway.server.handlers import MetaToolHandlers
from mcp_gateway.server.offering_handlers import OfferingHandlers
from mcp_gateway.server.session_scope import SessionScope
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.surface import meta_tool_definitions


def build_server(gateway: Gateway, handshake: Handshake | None = None, origin: Origin | None = None) -> Server[object]:
    """The SDK's server over `gateway` for one client session, saying what `handshake` says (by default: what
    its config makes), for the session from `origin` (a daemon's session; None: the gateway's own client), which
    every call it makes carries. Run it once: what the session registers on `gateway` is released as that run ends."""
    said = handshake if handshake is not None else Handshake(gateway.instructions(), meta_tool_definitions())
    relay = QuestionRelay(gateway, origin)
    changes = ClientChanges(gateway.offerings, origin)
    scope = SessionScope(gateway, changes, relay)
    handlers = MetaToolHandlers(gateway, relay, scope, origin)
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
