"""From a server's config to a connected SDK `Client`: transport, headers, environment, protocol mode.

Three transports: stdio (our own `StdioTransport`), Streamable HTTP and SSE (the SDK's). What the SDK's
defaults would get wrong for a gateway is set here:
- the HTTP client's read timeout is off: the gateway enforces `requestTimeoutMs` itself, and the SDK's
  300 s read default would otherwise cap a longer one;
- the SSE event size limit is raised so a large tool result passes through;
- the stdio child gets the gateway's whole environment when `inheritEnv` is true (the SDK passes only a
  few safe variables);
- the protocol mode comes from the server's `protocol` setting or what it negotiated last time, so
  `mode="auto"`'s `server/discover` probe (up to 10 s on a server that ignores unknown methods) is paid at
  most once per server.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Protocol

import anyio
import httpx2
from mcp import Client
from mcp.client.session import LoggingFnT
from mcp.client.sse import sse_client
from mcp.client.stdio import get_default_environment
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation, LoggingMessageNotificationParams
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from mcp_gateway import __version__
from mcp_gateway.config import ServerConfig
from mcp_gateway.config.models import HttpServer, SseServer, StdioServer
from mcp_gateway.downstream.process_records import ProcessRecords
from mcp_gateway.downstream.stderr_log import StderrLog
from mcp_gateway.downstream.stdio import StdioLaunch, StdioTransport
from mcp_gateway.errors import ServerStartError

HTTP_CONNECT_TIMEOUT_SECONDS = 30.0
MAX_SSE_EVENT_BYTES = 256 * 1024 * 1024
"""One SSE event carries one whole JSON-RPC message; large tool results must fit."""
SSE_READ_TIMEOUT_SECONDS = 24 * 60 * 60.0
"""An idle SSE stream is normal between calls; the idle reaper, not a read timeout, decides when it ends."""

CLIENT_INFO = Implementation(name="mcp-gateway", version=__version__)


@dataclass(frozen=True)
class ConnectOptions:
    close_timeout: float
    environ: Mapping[str, str]
    remembered_protocol: str | None
    records: ProcessRecords | None
    log: StderrLog


@dataclass
class OpenedClient:
    client: Client
    exited: anyio.Event | None
    """Set when a stdio server's process ends; None for remote servers."""
    pid: int | None


class Connector(Protocol):
    """How the pool turns a server's config into a connected client (a seam: tests connect in-process)."""

    async def __call__(self, server: ServerConfig, options: ConnectOptions, stack: AsyncExitStack) -> OpenedClient: ...


def protocol_mode(configured: str, remembered: str | None) -> str:
    """The SDK `Client(mode=...)` for a server: its explicit setting, else what it negotiated before."""
    choice = configured if configured != "auto" else (remembered or "auto")
    if choice in HANDSHAKE_PROTOCOL_VERSIONS or choice == "legacy":
        return "legacy"
    if choice in MODERN_PROTOCOL_VERSIONS:
        return choice
    return "auto"


async def open_client(server: ServerConfig, options: ConnectOptions, stack: AsyncExitStack) -> OpenedClient:
    """Connect and handshake; everything entered is unwound by `stack` (in the caller's task).

    Raises:
        ServerStartError: a configuration problem found before anything is started.
        Exception: whatever the transport or handshake raised; the caller translates it.
    """
    spec = server.spec
    mode = protocol_mode(spec.protocol, options.remembered_protocol)
    exited: anyio.Event | None = None
    pid_source: StdioTransport | None = None
    if isinstance(spec, StdioServer):
        transport = StdioTransport(server.name, _stdio_launch(spec, options), options.log, options.records)
        exited = transport.exited
        pid_source = transport
    else:
        headers = remote_headers(server.name, spec, options.environ)
        if isinstance(spec, HttpServer):
            http_client = await stack.enter_async_context(
                httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(HTTP_CONNECT_TIMEOUT_SECONDS, read=None))
            )
            transport = streamable_http_client(
                spec.url, http_client=http_client, max_sse_event_size=MAX_SSE_EVENT_BYTES
            )
        else:
            transport = sse_client(
                spec.url,
                headers=headers,
                timeout=HTTP_CONNECT_TIMEOUT_SECONDS,
                sse_read_timeout=SSE_READ_TIMEOUT_SECONDS,
            )
    client = Client(
        transport,
        mode=mode,
        cache=None,
        client_info=CLIENT_INFO,
        logging_callback=_log_to(options.log),
    )
    await stack.enter_async_context(client)
    return OpenedClient(client=client, exited=exited, pid=pid_source.pid if pid_source is not None else None)


def remote_headers(name: str, spec: HttpServer | SseServer, environ: Mapping[str, str]) -> dict[str, str]:
    headers = dict(spec.headers)
    if spec.bearer_token_env:
        token = environ.get(spec.bearer_token_env)
        if not token:
            raise ServerStartError(
                f"Server '{name}' needs the environment variable {spec.bearer_token_env} (bearerTokenEnv), "
                "which is not set for the gateway; set it in the gateway's environment and call again.",
                server=name,
                phase="startup",
                retryable=False,
            )
        headers["Authorization"] = f"Bearer {token}"
    return headers


def secrets_of(server: ServerConfig, environ: Mapping[str, str]) -> list[str]:
    """Values the gateway hands a server that must never be written to its log."""
    spec = server.spec
    if isinstance(spec, StdioServer):
        return list(spec.env.values())
    values = list(spec.headers.values())
    if spec.bearer_token_env and (token := environ.get(spec.bearer_token_env)):
        values.append(token)
    return values


def _stdio_launch(spec: StdioServer, options: ConnectOptions) -> StdioLaunch:
    base = dict(options.environ) if spec.inherit_env else get_default_environment()
    base.update(spec.env)
    cwd = spec.cwd
    if cwd is not None and not os.path.isdir(cwd):
        raise FileNotFoundError(2, "working directory (cwd) does not exist", cwd)
    return StdioLaunch(command=spec.command, args=spec.args, env=base, cwd=cwd, close_timeout=options.close_timeout)


def _log_to(log: StderrLog) -> LoggingFnT:
    async def record(params: LoggingMessageNotificationParams) -> None:
        log.note(f"log {params.level}: {params.data}")

    return record
