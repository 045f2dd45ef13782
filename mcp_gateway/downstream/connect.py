"""From a server's config to a connected SDK `Client`: transport, headers, environment, protocol mode.

Three transports: stdio (our own `StdioTransport`), Streamable HTTP (the SDK's) and SSE (our own, `sse.py`: the
SDK's fixes its event limit at 1 MB). What the SDK's defaults would get wrong for a gateway is set here:
- the HTTP client's read timeout is off: the gateway enforces `requestTimeoutMs` itself, and the SDK's
  300 s read default would otherwise cap a longer one;
- one message may be at most `MAX_MESSAGE_BYTES` on every transport: the SSE event limit is raised to it, and a
  plain JSON response body, which the SDK reads whole with no limit, is cut off at it (`BodyCap`; a 400 MB
  answer once took the gateway to 1.2 GB);
- every transport's streams pass through the connection's `Link` (whose error is whose, unusable tool entries);
- a remote server is reached with the workspace's OAuth sign-in, if it has one and no configured
  Authorization header (`sign_in.SignInAuth`); one that refuses the gateway for want of a sign-in says to run
  `mcp-gateway login`;
- an HTTP error status met while connecting is named in the error (the SDK reports a streamable HTTP 500
  as a bare JSON-RPC internal error), and so is a server that refuses the connection;
- a stdio server that ends before its handshake leaves as `EndedBeforeHandshake` once its stderr has ended, so
  its start failure can quote why;
- the stdio child gets the environment of the session it serves (`definitions.py`) and always the gateway's
  marker (`processes.GROUP_MARKER_ENV`), by which a later gateway can prove the process is ours;
- the protocol mode skips the discovery probe for a server known to be legacy (`protocol_mode`), and a
  server's list changes are heard in either era (`changes.py`).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Protocol

import anyio
import anyio.to_thread
import httpx2
from mcp import Client
from mcp.client import Transport
from mcp.client.session import LoggingFnT, MessageHandlerFnT
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation, LoggingMessageNotificationParams, SamplingCapability, SamplingToolsCapability

from mcp_gateway import __version__
from mcp_gateway.config import HttpServer, ServerConfig, SseServer, StdioServer
from mcp_gateway.downstream import processes
from mcp_gateway.downstream.changes import ChangeHeard, change_handler, listen_if_modern
from mcp_gateway.downstream.connection import ErrorReply, LinkLost, OpenedClient
from mcp_gateway.downstream.definitions import child_environment, remote_definition_headers
from mcp_gateway.downstream.link import Link
from mcp_gateway.downstream.process_records import ProcessRecords
from mcp_gateway.downstream.sse import sse_transport
from mcp_gateway.downstream.stderr_log import ServerNotes, StderrLog
from mcp_gateway.downstream.stdio import StdioLaunch, StdioTransport
from mcp_gateway.downstream.translate import innermost, remote_start_failure, sign_in_required
from mcp_gateway.eras import is_handshake_version, speaks_modern
from mcp_gateway.errors import ServerStartError
from mcp_gateway.questions import Askers
from mcp_gateway.sign_in import SignInAuth, SignInStore

HTTP_CONNECT_TIMEOUT_SECONDS = 30.0
HTTP_ERROR_STATUS = 400
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""One JSON-RPC message from a remote server (an SSE event, or a JSON response body): a large tool result
(images, files as base64) must fit, while the gateway's memory stays bounded (a message costs about three
times its size while it is parsed)."""

CLIENT_INFO = Implementation(name="mcp-gateway", version=__version__)


@dataclass(frozen=True)
class ConnectOptions:
    close_timeout: float
    environ: Mapping[str, str]
    """The environment of the session the server is started for (`origin.py`), never the daemon's by default."""
    remembered_protocol: str | None
    records: ProcessRecords | None
    log: StderrLog
    """Where the server's own stderr goes."""
    notes: ServerNotes
    """What the gateway says about the server."""
    on_message: MessageHandlerFnT | None = None
    """Where the server's notifications go (`resources/updated` is forwarded to the client, see `Pool`)."""
    on_change: ChangeHeard | None = None
    """Told when the server says one of its lists changed (`changes.py`); None: such news is ignored."""
    sign_ins: SignInStore | None = None
    """The workspace's OAuth sign-ins, for remote servers; None uses none (tests that connect in-process)."""


class Connector(Protocol):
    """How the pool turns a server's config into a connected client (a seam: tests connect in-process)."""

    async def __call__(self, server: ServerConfig, options: ConnectOptions, stack: AsyncExitStack) -> OpenedClient: ...


def protocol_mode(configured: str, remembered: str | None) -> str:
    """The SDK `Client(mode=...)` for a server: its explicit setting, else what it negotiated before.

    A server remembered as legacy skips the `server/discover` probe it would ignore (up to 10 s). One remembered
    as modern is asked again (`auto`): it answers the probe at once, and the answer carries its instructions,
    which adopting the remembered version would leave out of the catalog from its second start on.
    """
    choice = configured if configured != "auto" else (remembered or "auto")
    if is_handshake_version(choice) or choice == "legacy":
        return "legacy"
    if speaks_modern(choice) and configured != "auto":
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
    link = Link()
    askers = Askers(server.name)
    if isinstance(spec, StdioServer):
        # Recording the child reads its start time with psutil: import it off the event loop, once.
        await anyio.to_thread.run_sync(processes.warm_up)
        launch = _stdio_launch(spec, options)
        transport = StdioTransport(server.name, launch, options.log, options.notes, records=options.records, link=link)
        try:
            client = await _handshake(stack, link.around(transport), mode, options, link, askers=askers)
        except Exception as exc:
            if not isinstance(innermost(exc), LinkLost):
                raise
            raise await transport.ended_before_handshake() from exc
        return OpenedClient(
            client=client,
            exited=transport.exited,
            pid=transport.pid,
            link=link,
            hurry=transport.hurry,
            stderr=transport.stderr,
            askers=askers,
        )
    watch = HttpStatusWatch()
    cap = BodyCap(server.name)
    headers = remote_headers(server.name, spec, options.environ)
    # A configured Authorization header (or bearerTokenEnv) is the user's choice: a sign-in is used only without one.
    signed_in = None
    if options.sign_ins is not None and not any(name.lower() == "authorization" for name in headers):
        signed_in = SignInAuth(server.name, spec.url, options.sign_ins)
    http_client = await stack.enter_async_context(
        httpx2.AsyncClient(
            headers={**headers, "Accept-Encoding": "identity"},
            timeout=httpx2.Timeout(HTTP_CONNECT_TIMEOUT_SECONDS, read=None),
            event_hooks={"response": [watch.record, cap.apply]},
            auth=signed_in,
        )
    )
    if isinstance(spec, HttpServer):
        remote = streamable_http_client(spec.url, http_client=http_client, max_sse_event_size=MAX_MESSAGE_BYTES)
    else:
        remote = sse_transport(http_client, spec.url, max_event_bytes=MAX_MESSAGE_BYTES, link=link)
    try:
        client = await _handshake(stack, link.around(remote), mode, options, link, askers=askers)
    except Exception as exc:
        if signed_in is not None and signed_in.needed:
            raise sign_in_required(server.name, renewal_failed=signed_in.renewal_failed) from exc
        raise remote_start_failure(server.name, spec.url, watch.last_error, exc) from exc
    return OpenedClient(client=client, exited=None, pid=None, link=link, askers=askers)


async def _handshake(
    stack: AsyncExitStack,
    transport: Transport,
    mode: str,
    options: ConnectOptions,
    link: Link,
    *,
    askers: Askers,
) -> Client:
    """The connected client; a handshake error leaves as what `link` says it was (the server's, or a lost link)."""
    try:
        client = await stack.enter_async_context(_client(transport, mode, options, askers))
    except Exception as exc:
        cause = innermost(exc)  # the client's task group wraps it
        if not isinstance(cause, MCPError):
            raise
        reply = link.origin(cause)
        raise (LinkLost(str(cause)) if reply is None else ErrorReply(reply)) from exc
    link.protocol_version = lambda: client.protocol_version
    if options.on_change is not None:
        await listen_if_modern(stack, client, options.notes)
    return client


class BodyCap:
    """Cuts off a plain (non-SSE) response body at `MAX_MESSAGE_BYTES` with an `httpx2.StreamError`, which the
    SDK turns into an error for the request the body answers. Compression is refused (`Accept-Encoding:
    identity`), so the bytes counted are the bytes parsed."""

    def __init__(self, server: str, limit: int = MAX_MESSAGE_BYTES) -> None:
        self._server = server
        self._limit = limit

    async def apply(self, response: httpx2.Response) -> None:
        if response.headers.get("content-type", "").lower().startswith("text/event-stream"):
            return  # each event is capped by the SSE reader, and the stream itself may run for hours
        if isinstance(response.stream, httpx2.AsyncByteStream):
            response.stream = _CappedStream(response.stream, self._limit, self._server)


class ResponseTooLargeError(httpx2.StreamError):
    pass


class _CappedStream(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, limit: int, server: str) -> None:
        self._inner = inner
        self._limit = limit
        self._server = server

    async def __aiter__(self) -> AsyncIterator[bytes]:
        received = 0
        async for chunk in self._inner:
            received += len(chunk)
            if received > self._limit:
                raise ResponseTooLargeError(
                    f"server '{self._server}' sent a response of more than {self._limit // (1024 * 1024)} MiB, "
                    "the gateway's limit for one message; ask for less at a time (a smaller page or range)"
                )
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class HttpStatusWatch:
    """Remembers the last HTTP error status a remote server answered, so a failed connect can name it."""

    def __init__(self) -> None:
        self.last_error: httpx2.Response | None = None

    async def record(self, response: httpx2.Response) -> None:
        if response.status_code >= HTTP_ERROR_STATUS:
            self.last_error = response


def remote_headers(name: str, spec: HttpServer | SseServer, environ: Mapping[str, str]) -> dict[str, str]:
    if spec.bearer_token_env and not environ.get(spec.bearer_token_env):
        raise ServerStartError(
            f"Server '{name}' needs the environment variable {spec.bearer_token_env} (bearerTokenEnv), "
            "which is not set for the gateway; set it in the gateway's environment and try again.",
            server=name,
            phase="startup",
            retryable=False,
        )
    return remote_definition_headers(spec, environ)


def _stdio_launch(spec: StdioServer, options: ConnectOptions) -> StdioLaunch:
    base = child_environment(spec, options.environ)  # the session's (`definitions`): never the daemon's own
    # Last, so that neither the gateway's own environment (a gateway behind a gateway) nor a config overrides it.
    base[processes.GROUP_MARKER_ENV] = options.records.token if options.records else processes.gateway_token()
    cwd = spec.cwd
    if cwd is not None and not os.path.isdir(cwd):
        raise FileNotFoundError(2, "working directory (cwd) does not exist", cwd)
    return StdioLaunch(command=spec.command, args=spec.args, env=base, cwd=cwd, close_timeout=options.close_timeout)


def _client(transport: Transport, mode: str, options: ConnectOptions, askers: Askers) -> Client:
    # Declared whoever connects (the catalog must list what a server offers a client that can answer, as some
    # servers list their asking tools only then), and relayed per call: refused where nobody can answer.
    # Sampling with tools too: a client's answer passes through unchanged, whatever it holds.
    return Client(
        transport,
        mode=mode,
        cache=None,
        client_info=CLIENT_INFO,
        logging_callback=_log_to(options.notes),
        elicitation_callback=askers.on_elicitation,
        sampling_callback=askers.on_sampling,
        sampling_capabilities=SamplingCapability(tools=SamplingToolsCapability()),
        message_handler=change_handler(options.on_change, options.on_message),
    )


def _log_to(notes: ServerNotes) -> LoggingFnT:
    async def record(params: LoggingMessageNotificationParams) -> None:
        notes.info(f"log {params.level}: {params.data}")

    return record
