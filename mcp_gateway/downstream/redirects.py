"""Following a remote server's HTTP redirects, but only within the origin it was configured with.

Everything a request carries (headers, a bearer token, the message body) was configured for one endpoint, so
a redirect is followed only when it keeps the method and stays on that endpoint's origin (same scheme, host
and port, or the plain https upgrade of an http URL on default ports) and brings no credentials of its own in
its URL; a 307/308 trailing-slash normalisation is the usual case. Any other redirect is handed back as the
non-success it is. This is the rule the MCP SDK applies to its own transports (its helpers for it are
private, so the legacy SSE transport, `sse.py`, uses this module).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

import httpx2


@asynccontextmanager
async def stream_within_origin(
    client: httpx2.AsyncClient, method: str, url: httpx2.URL | str, **kwargs: Any
) -> AsyncGenerator[httpx2.Response]:
    """`client.stream(...)`, following redirects only within the request's origin (at most `max_redirects`)."""
    request = client.build_request(method, url, **kwargs)
    followed = 0
    while True:
        response = await client.send(request, stream=True, follow_redirects=False)
        following = _followable(response)
        if following is None or followed == client.max_redirects:
            break
        try:
            await response.aread()  # drained, so the connection goes back to the pool
        finally:
            await response.aclose()
        request = following
        followed += 1
    try:
        yield response
    finally:
        await response.aclose()


async def request_within_origin(
    client: httpx2.AsyncClient, method: str, url: httpx2.URL | str, **kwargs: Any
) -> httpx2.Response:
    """`client.request(...)` with the redirect rule of `stream_within_origin`; the body is read."""
    async with stream_within_origin(client, method, url, **kwargs) as response:
        await response.aread()
    return response


def _followable(response: httpx2.Response) -> httpx2.Request | None:
    following = response.next_request
    if following is None:
        return None
    sent = response.request
    if following.method != sent.method:
        return None  # httpx turns a redirected POST into a body-less GET, which would drop the message
    if following.url.userinfo and following.url.userinfo != sent.url.userinfo:
        return None  # httpx would send userinfo the server chose as Basic credentials
    return following if within_origin(sent.url, following.url) else None


def within_origin(origin: httpx2.URL, location: httpx2.URL) -> bool:
    if (origin.scheme, origin.host, origin.port) == (location.scheme, location.host, location.port):
        return True
    upgrade = origin.scheme == "http" and location.scheme == "https"
    return upgrade and origin.host == location.host and origin.port is None and location.port is None
