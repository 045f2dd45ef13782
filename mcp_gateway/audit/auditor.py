"""What the service audits its calls with: one `AuditedCall` per call, written to the trail when it ends.

`call(kind, name, arguments, origin)` starts one for the session of `origin` (its client's name and version,
asked of `clients` by the session's label; its working directory as the project) and writes it however the
block ends: with its result (set `result` on it), the error it raised, or its cancellation. The service fills
in the server (and the tool's own name) once it has resolved them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator
from contextlib import contextmanager

from mcp_gateway import __version__
from mcp_gateway.audit.record import AuditedCall, AuditSession, Kind
from mcp_gateway.audit.trail import AuditTrail
from mcp_gateway.json_object import JsonObject
from mcp_gateway.origin import OWN_SESSION, Origin

ClientInfo = tuple[str | None, str | None]
"""A session's client, as its handshake's `clientInfo` said: name and version (None until it said)."""


class Auditor:
    def __init__(
        self, trail: AuditTrail, values: Callable[[], bool], clients: Callable[[str], ClientInfo] | None = None
    ) -> None:
        """`values`: whether argument values are kept (`auditValues`, read at each call's start); `clients`: a
        session's client by its label (a daemon's sessions; None: the gateway serves one client, or a person)."""
        self.trail = trail
        self._values = values
        self._clients = clients

    @contextmanager
    def call(
        self, kind: Kind, name: str, arguments: JsonObject | None, origin: Origin | None
    ) -> Generator[AuditedCall]:
        audited = AuditedCall(kind, name, self._session(origin), arguments, self._values())
        try:
            yield audited
        except BaseException as error:  # a cancellation too: it is written, and goes on
            audited.ended(error=error)
            self.trail.write(audited)
            raise
        audited.ended(audited.result)
        self.trail.write(audited)

    def _session(self, origin: Origin | None) -> AuditSession:
        if origin is None:
            return AuditSession(OWN_SESSION, "mcp-gateway", __version__, os.getcwd())
        client, version = self._clients(origin.session) if self._clients is not None else (None, None)
        return AuditSession(origin.session, client, version, origin.cwd)
