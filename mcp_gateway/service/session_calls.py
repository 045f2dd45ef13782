"""`SessionCalls`: the gateway's `execute` for one session, each call carrying that session's origin.

A daemon serves every session over one `Gateway`, and a server is started per resolved definition
(`downstream/definitions.py`): the origin a call carries decides which process serves it. Each session's
`QuestionRelay` calls through one of these, made with the session (`server/app.build_server`), so the origin is
passed explicitly on every call and never read from anything shared.
"""

from __future__ import annotations

from mcp_gateway.downstream.asking import Asking
from mcp_gateway.downstream.connection import ProgressCallback
from mcp_gateway.json_object import JsonObject
from mcp_gateway.origin import Origin
from mcp_gateway.service.gateway import Gateway


class SessionCalls:
    """An `Executor` (`service/questions.py`) that runs each call for `origin` (None: the gateway's own)."""

    def __init__(self, gateway: Gateway, origin: Origin | None) -> None:
        self._gateway = gateway
        self.origin = origin

    async def execute(
        self,
        tool: str,
        arguments: JsonObject,
        *,
        server: str | None = None,
        on_progress: ProgressCallback | None = None,
        asking: Asking | None = None,
    ) -> JsonObject:
        return await self._gateway.execute(
            tool, arguments, server=server, on_progress=on_progress, asking=asking, origin=self.origin
        )
