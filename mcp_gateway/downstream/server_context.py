"""What a server's supervisor is given by its pool: its settings resolved, and the collaborators it shares.

Per-server overrides (`connectTimeoutMs`, `requestTimeoutMs`, `closeTimeoutMs`, `idleTimeout`) are resolved
against the gateway's settings here, once, so the supervisor reads plain seconds.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Protocol

from mcp_gateway.config import ServerConfig
from mcp_gateway.config.models import Settings, StdioServer
from mcp_gateway.downstream.connect import OpenedClient
from mcp_gateway.downstream.error_journal import ErrorRecord
from mcp_gateway.downstream.notes import ServerNotes

MILLISECONDS = 1000.0


class JournalSink(Protocol):
    """Where a supervisor notes its server's last error for `status` (errors.json, see `journal_updates`)."""

    def record(self, server: str, error: ErrorRecord) -> None: ...

    def clear(self, server: str) -> None: ...


PROBE_SECONDS = 5.0
"""How long a connection whose call timed out gets to answer a trivial request before it is retired."""
SECONDS_PER_MINUTE = 60.0


@dataclass(frozen=True)
class ServerContext:
    notes: ServerNotes
    mask: Callable[[str], str]
    journal: JournalSink
    connect: Callable[[AsyncExitStack], Awaitable[OpenedClient]]
    """Spawn or reach the server and handshake; everything entered is unwound by the stack."""
    remember_protocol: Callable[[str], None]
    connect_seconds: float
    request_seconds: float
    close_seconds: float
    idle_seconds: float | None
    """None: never stopped for being idle (`eager`, `keep-alive`, or an `idleTimeout` of 0 or less)."""
    failure_backoff_seconds: float
    stderr_log_path: str | None
    """Where a stdio server's own stderr is kept; None for a remote server, which has none."""
    probe_seconds: float = PROBE_SECONDS


def context_for(
    server: ServerConfig,
    settings: Settings,
    *,
    notes: ServerNotes,
    mask: Callable[[str], str],
    journal: JournalSink,
    connect: Callable[[AsyncExitStack], Awaitable[OpenedClient]],
    remember_protocol: Callable[[str], None],
    stderr_log_path: str,
    probe_seconds: float = PROBE_SECONDS,
) -> ServerContext:
    """The server's context, each timeout its own setting first, else the gateway's."""
    spec = server.spec
    minutes = spec.idle_timeout if spec.idle_timeout is not None else settings.idle_timeout
    return ServerContext(
        notes=notes,
        mask=mask,
        journal=journal,
        connect=connect,
        remember_protocol=remember_protocol,
        connect_seconds=(spec.connect_timeout_ms or settings.connect_timeout_ms) / MILLISECONDS,
        request_seconds=(spec.request_timeout_ms or settings.request_timeout_ms) / MILLISECONDS,
        close_seconds=close_seconds(server, settings),
        idle_seconds=minutes * SECONDS_PER_MINUTE if spec.lifecycle == "lazy" and minutes > 0 else None,
        failure_backoff_seconds=settings.failure_backoff_ms / MILLISECONDS,
        stderr_log_path=stderr_log_path if isinstance(spec, StdioServer) else None,
        probe_seconds=probe_seconds,
    )


def close_seconds(server: ServerConfig, settings: Settings) -> float:
    """The budget for stopping the server's process (`closeTimeoutMs`: its own, else the gateway's)."""
    return (server.spec.close_timeout_ms or settings.close_timeout_ms) / MILLISECONDS
