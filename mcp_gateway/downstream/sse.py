"""The legacy HTTP+SSE transport to a remote server (protocol 2024-11-05's GET /sse plus POST endpoint).

Modelled on the SDK's `mcp.client.sse.sse_client`, which falls short for a gateway in two ways, hence this
module:
- it caps one server-sent event at 1 MB with no way to raise it, and one event carries one whole JSON-RPC
  message, so any tool result over 1 MB (a screenshot, a file) killed the connection; here the cap is the
  caller's;
- the stream and every POST go through the caller's `httpx2.AsyncClient`, so the gateway sees each HTTP
  status (a 500 becomes a clear error naming it, see `HttpStatusWatch` in `connect.py`), and a POST refused
  mid-session for want of a sign-in fails its request with the sign-in sentence (`_sign_in_reply`).
Redirects are followed only within the endpoint's origin, by the SDK's own rule (`redirects.py`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from http import HTTPStatus
from urllib.parse import urljoin, urlparse

import anyio
import httpx2
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from mcp_gateway import relayed, wire
from mcp_gateway.downstream.link import Link
from mcp_gateway.downstream.redirects import request_within_origin, stream_within_origin
from mcp_gateway.sign_in import is_sign_in_reply

SSE_HEADERS = {"Accept": "text/event-stream", "Cache-Control": "no-store"}

Streams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]


class SseProtocolError(Exception):
    """The server's event stream broke the legacy SSE transport's rules."""


@asynccontextmanager
async def sse_transport(
    client: httpx2.AsyncClient, url: str, *, max_event_bytes: int, link: Link | None = None
) -> AsyncGenerator[Streams]:
    """Open the event stream, wait for the `endpoint` event, then relay messages both ways until exit.

    Raises:
        httpx2.HTTPStatusError: the stream was refused with an HTTP error status.
        SseProtocolError: the endpoint event is missing or points to another origin.
    """
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
    merged = httpx2.Headers(SSE_HEADERS)
    async with stream_within_origin(client, "GET", url, headers=merged) as response:
        response.raise_for_status()
        events = httpx2.EventSource(response, max_event_size=max_event_bytes)

        async def read_events(*, task_status: anyio.abc.TaskStatus[str] = anyio.TASK_STATUS_IGNORED) -> None:
            started = False
            async with read_send:
                try:
                    async for event in events:
                        if event.event == "endpoint" and not started:
                            task_status.started(message_endpoint(url, event.data))
                            started = True
                        elif event.event == "message" and event.data:
                            item = await _read(event.data, link)
                            if item is not None:
                                await read_send.send(item)
                except (httpx2.HTTPError, httpx2.SSEError, OSError) as exc:
                    if not started:
                        raise
                    # The session sees the failure (it fails the calls in flight) instead of waiting forever.
                    with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                        await read_send.send(exc)
            if not started:
                raise SseProtocolError(f"the event stream at {url} ended before its 'endpoint' event")

        async def post_messages(endpoint: str) -> None:
            async with write_receive:
                async for message in write_receive:
                    try:
                        body = wire.encode(message.message)
                        posted = await request_within_origin(
                            client, "POST", endpoint, content=body, headers={"Content-Type": "application/json"}
                        )
                        in_stead = _sign_in_reply(posted)
                        if in_stead is not None:
                            await read_send.send(in_stead)
                            continue
                        posted.raise_for_status()
                    except (httpx2.HTTPError, OSError, wire.UnencodableError) as exc:
                        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                            await read_send.send(exc)

        async with anyio.create_task_group() as tg:
            endpoint = await tg.start(read_events)
            tg.start_soon(post_messages, endpoint)
            try:
                yield read_receive, write_send
            finally:
                write_send.close()
                read_receive.close()
                tg.cancel_scope.cancel()


def message_endpoint(url: str, data: str) -> str:
    """Where to POST messages, from the `endpoint` event; refused unless on the stream's own origin."""
    endpoint = urljoin(url, data)
    origin, target = urlparse(url), urlparse(endpoint)
    if (origin.scheme, origin.netloc) != (target.scheme, target.netloc):
        raise SseProtocolError(f"the server's message endpoint {endpoint} is not on the origin of {url}")
    return endpoint


def _sign_in_reply(response: httpx2.Response) -> SessionMessage | None:
    """The error `SignInAuth` answered in the server's stead for a POST refused with HTTP 401, as a reply.

    In this transport the reply to a POST arrives on the event stream, so the request would otherwise wait
    there for an answer the server never sends; delivered here, it fails that one request with the sign-in
    sentence (`translate`), as Streamable HTTP does, instead of an HTTP error ending the call.
    """
    if response.status_code != HTTPStatus.UNAUTHORIZED:
        return None
    message = wire.decode(response.content, max_depth=wire.MAX_RELAYED_DEPTH)
    if isinstance(message, types.JSONRPCError) and is_sign_in_reply(message.error.data):
        return SessionMessage(message)
    return None


async def _read(data: str, link: Link | None) -> SessionMessage | Exception | None:
    """`_message`, off the event loop for a long event (and without models: see `relayed`)."""
    if len(data) >= relayed.MIN_RELAYED_BYTES:
        return await anyio.to_thread.run_sync(_message, data, link)
    return _message(data, link)


def _message(data: str, link: Link | None) -> SessionMessage | Exception | None:
    """The event's message; a reply that is not JSON-RPC fails its request at once (see `Link`)."""
    if len(data) >= relayed.MIN_RELAYED_BYTES and (response := relayed.read_response(data.encode())) is not None:
        return SessionMessage(response)
    message = wire.decode(data, max_depth=wire.MAX_RELAYED_DEPTH)
    if message is None:
        return None
    if not isinstance(message, wire.Unreadable):
        return SessionMessage(message)
    if message.kind != "request" and message.request_id is not None and link is not None:
        return link.malformed_reply(message)
    return SseProtocolError(f"an event is not a JSON-RPC message ({message.reason}): {message.preview!r}")
