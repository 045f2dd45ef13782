"""Taking a new set of servers while serving: which supervisors go, and how they go without cutting a call.

The pool keeps one `Supervisor` per enabled server, made from one `ServerConfig`. When the config changes
while the gateway serves (`Pool.reconfigure`), a server removed, disabled or `changed` (see `config.diff`)
leaves the pool's table at once, so a new call to it gets the "no enabled server" error, or, for a changed
one, a new supervisor and a new process. The old supervisor is retired here: it takes no new call, the calls
it already had run to their end, and then it is stopped (its processes closed within their close budget).
The wait is bounded by `drain_seconds`: the longest a call may legitimately take (a start, then the request
within its timeout), so a retirement ends even if something never lets go. Every other server keeps its
supervisor, its process and its connection, and reads its new timeouts and lifecycle from its next call on.

Calls are counted here (`Retirements.lease`), around the supervisor's own accounting, so the supervisor needs
no notion of being retired: it is simply stopped once nobody holds it.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager

import anyio

from mcp_gateway.background import BackgroundTasks
from mcp_gateway.config import ServerConfig
from mcp_gateway.config.models import Settings
from mcp_gateway.downstream.supervisor import MILLISECONDS, Supervisor

DRAIN_MARGIN_SECONDS = 1.0
"""Added to a call's own bound (connect plus request timeout): a call that just timed out has its error to
deliver and its cancellation to send before it lets go of the supervisor."""


def drain_seconds(server: ServerConfig, settings: Settings) -> float:
    """How long a retired server's calls may still run: a start, then a request, each within its timeout."""
    spec = server.spec
    connect = spec.connect_timeout_ms or settings.connect_timeout_ms
    request = spec.request_timeout_ms or settings.request_timeout_ms
    return (connect + request) / MILLISECONDS + DRAIN_MARGIN_SECONDS


class Retirements:
    """The calls each supervisor is serving, and the supervisors retired from the pool while they finish."""

    def __init__(self) -> None:
        self._held: dict[Supervisor, int] = {}
        self._released: dict[Supervisor, anyio.Event] = {}
        self.draining: set[Supervisor] = set()
        """Retired and not yet stopped: the pool still stops, hurries and kills them with the others."""

    @asynccontextmanager
    async def lease(self, supervisor: Supervisor) -> AsyncGenerator[Supervisor]:
        """Hold `supervisor` for one call (from before its start is awaited to after its answer)."""
        self._held[supervisor] = self._held.get(supervisor, 0) + 1
        try:
            yield supervisor
        finally:
            left = self._held[supervisor] - 1
            if left:
                self._held[supervisor] = left
            else:
                del self._held[supervisor]
                released = self._released.pop(supervisor, None)
                if released is not None:
                    released.set()

    def retire(self, supervisor: Supervisor, tasks: BackgroundTasks | None, bound_seconds: float) -> None:
        """Stop `supervisor` once its calls have ended, or after `bound_seconds` at most, in the background."""
        if tasks is None:  # the pool is not serving: nothing can be in flight
            supervisor.stop()
            return
        self.draining.add(supervisor)
        tasks.start_soon(self._drain, supervisor, bound_seconds, name=f"the retirement of '{supervisor.server.name}'")

    async def _drain(self, supervisor: Supervisor, bound_seconds: float) -> None:
        try:
            with anyio.move_on_after(bound_seconds):
                if supervisor in self._held:
                    await self._released.setdefault(supervisor, anyio.Event()).wait()
        finally:
            supervisor.stop()  # its connections close within their close budget, in the pool's group
            self.draining.discard(supervisor)
