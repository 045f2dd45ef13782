"""The client session behind one `tools/call`, as the question relay sees it (`questions/relay.py`).

What the client declared (`elicitation`, `sampling`) is read from the SDK's session: from `initialize` for a
handshake-era client, from the request's envelope for a 2026-07-28 one. A handshake-era client is asked with
requests of the gateway's own, sent on the channel of the `tools/call` they belong to, and its answer (or its
error) is handed back unchanged; a modern client cannot be sent requests and is asked through
`input_required` results instead, so `ask` refuses for it.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata

from mcp_gateway.eras import speaks_modern
from mcp_gateway.questions import Answer, Asking


class ClientCaller:
    """One `tools/call` request's client: its era, what it declared, and how to ask it."""

    def __init__(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams, session: object) -> None:
        """`session`: the one object that stands for the client session (its `SessionScope`): the SDK builds a
        session proxy per request, and offers no public handle on the connection behind them."""
        self._ctx = ctx
        self._retry = Asking(None, params.input_responses, params.request_state)
        self._session = session

    @property
    def session(self) -> object:
        return self._session

    @property
    def modern(self) -> bool:
        return speaks_modern(self._ctx.protocol_version)

    @property
    def capabilities(self) -> types.ClientCapabilities | None:
        return self._ctx.session.client_capabilities

    @property
    def retry(self) -> Asking:
        return self._retry

    async def ask(self, request: types.InputRequest) -> Answer:
        if self.modern:
            return types.ErrorData(
                code=types.INVALID_REQUEST,
                message="A 2026-07-28 client takes questions only as input_required results, not as requests.",
            )
        related = ServerMessageMetadata(related_request_id=self._ctx.request_id)
        try:
            if isinstance(request, types.ElicitRequest):
                return await self._ctx.session.send_request(request, types.ElicitResult, metadata=related)
            if isinstance(request, types.CreateMessageRequest):
                wants_tools = request.params.tools is not None or request.params.tool_choice is not None
                answer_type = types.CreateMessageResultWithTools if wants_tools else types.CreateMessageResult
                return await self._ctx.session.send_request(request, answer_type, metadata=related)
        except MCPError as error:
            return error.error
        return types.ErrorData(code=types.INVALID_REQUEST, message="mcp-gateway does not relay roots requests.")
