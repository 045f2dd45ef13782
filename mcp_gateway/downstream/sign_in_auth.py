"""A remote server's OAuth sign-in, used by the serving gateway: the bearer token on every request, renewed
before it expires, and a clear "sign in" answer when there is no usable one. It never signs in itself.

`SignInAuth` is the `httpx2.Auth` of a remote server's HTTP client (Streamable HTTP and SSE alike):
- the sign-in is read from the workspace (`SignInStore`) at the first request, and again whenever its file
  has changed since (one `stat` a request, in a worker thread), it is due for renewal or the server refuses it:
  another gateway serving the workspace may have renewed it (a renewed refresh token often invalidates the old
  one), and `mcp-gateway login`/`logout` change it from outside: a person who signs out expects the account
  to stop being used at once, by a daemon that has served for hours too;
- a token that expires within `refresh_margin` is renewed first with its refresh token, at the token endpoint
  recorded at sign-in, and the renewed sign-in is written back for every gateway; renewals are serialised
  across processes (`sign_in_lock`) and the sign-in is read again once the lock is held, so two gateways
  never spend the same single-use refresh token. A renewal is a request of its own, bounded by
  `TOKEN_ENDPOINT_SECONDS`: a token endpoint that hangs or cannot be reached costs that, and its request is
  answered saying so (`renewal_failure`), not left to the call's or the start's whole timeout;
- a request the server answers with HTTP 401, when no renewed or newer token helps, gets an answer in the
  server's stead: a JSON-RPC error for that request saying the server needs a sign-in (marked with this
  process's nonce, which a server cannot know, so `translate` can tell it from a server's own error), and
  `needed` is set, for a failed connect to say the same. Raising from here instead would end the SDK's whole
  transport, not the one request; starting the interactive sign-in from a serving gateway would open a
  browser nobody asked for (and a client has no terminal to finish it in).
Every token it meets is given to `learn` (the gateway's `SecretMask`), so none is written or printed.
"""

from __future__ import annotations

import base64
import contextlib
import json
import secrets
from collections.abc import AsyncGenerator, Callable, Iterable
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import quote

import anyio
import anyio.to_thread
import httpx2
from mcp.shared.auth import OAuthToken
from pydantic import ValidationError

from mcp_gateway.downstream.sign_in_lock import renewal_lock
from mcp_gateway.downstream.sign_in_store import SignIn, SignInStore
from mcp_gateway.errors import UnusableFileError
from mcp_gateway.masking import display_url

SIGN_IN_MARK = "mcp-gateway/sign-in"
"""The key, in the `data` of the error answered in a server's stead, whose value is `SIGN_IN_NONCE`."""
SIGN_IN_NONCE = secrets.token_hex(16)
REFRESH_MARGIN_SECONDS = 60.0
"""A token is renewed when it has less than this left: a call takes a token from here to the server, and a
minute covers clock skew and a slow network (the margin most OAuth clients use)."""
TOKEN_ENDPOINT_SECONDS = 15.0
"""The longest a renewal may take at the token endpoint: it answers in milliseconds, a slow one in a few seconds."""
REFRESH_MARGIN_FRACTION = 0.1
"""…or less than this part of its lifetime, for tokens that live less than ten minutes."""
MAX_TOKEN_RESPONSE_BYTES = 256 * 1024
"""A token response is a few kilobytes; the gateway reads no more of one."""
HTTP_UNAUTHORIZED = 401
HTTP_OK = 200
SIGN_IN_ERROR_CODE = -32001
"""The JSON-RPC code of the answer given in a server's stead (MCP SDKs use -32001 for auth failures)."""
RENEWAL_KEY = "renewal"
"""The key, beside `SIGN_IN_MARK`, of why a renewal failed at the token endpoint (it did not answer in time)."""


@dataclass(frozen=True)
class SignInContext:
    """What a connection needs to use the workspace's sign-ins: where they are, and what learns the tokens."""

    store: SignInStore
    learn: Callable[[Iterable[str]], None]
    token_transport: httpx2.AsyncBaseTransport | None = None
    """How renewals reach token endpoints (None: the network, as any HTTP client does); a seam for tests."""


def is_sign_in_reply(data: object) -> bool:
    """`data` (an error's, as the server sent it) is what `SignInAuth` answered in the server's stead."""
    return isinstance(data, dict) and cast(dict[str, object], data).get(SIGN_IN_MARK) == SIGN_IN_NONCE


def renewal_failure(data: object) -> str | None:
    """Why the renewal failed at the token endpoint, in a sign-in reply's `data`; None when it did not."""
    said = cast(dict[str, object], data).get(RENEWAL_KEY) if is_sign_in_reply(data) else None
    return said if isinstance(said, str) else None


class SignInAuth(httpx2.Auth):
    def __init__(self, server: str, url: str, context: SignInContext) -> None:
        self._server = server
        self._url = url
        self._context = context
        self._sign_in: SignIn | None = None
        self._loaded = False
        self._signature: tuple[int, int, int, int] | None = None
        """The stored sign-in's file as it was when last read (`SignInStore.signature`)."""
        self._lock = anyio.Lock()
        self.needed = False
        """The last request met a refusal no token could answer: the server needs `mcp-gateway login`."""
        self.renewal_failed: str | None = None
        """Why the last renewal failed at the token endpoint (it did not answer in time, or could not be reached);
        None when it answered."""

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        await request.aread()  # kept, so the request can be sent again with a renewed token
        async with self._lock:
            stored = await anyio.to_thread.run_sync(self._context.store.signature, self._server)
            sign_in = self._sign_in if self._loaded and stored == self._signature else await self._reload()
            if sign_in is not None and _due(sign_in):
                sign_in = await self._reload()  # another gateway may have renewed it meanwhile
            if sign_in is not None and _due(sign_in):
                async with renewal_lock(self._context.store.lock_path_of(self._server)):
                    sign_in = await self._reload()  # the gateway this one waited for may have renewed it
                    if sign_in is not None and _due(sign_in):
                        sign_in = await self._renew(sign_in)
        response = yield _with_token(request, sign_in)
        if response.status_code != HTTP_UNAUTHORIZED:
            self.needed = False
            return
        renewal_failed = False
        async with self._lock:
            fresh = await self._reload()
            if fresh is not None and sign_in is not None and _same_token(fresh, sign_in):
                async with renewal_lock(self._context.store.lock_path_of(self._server)):
                    fresh = await self._reload()  # the gateway this one waited for may have renewed it
                    if fresh is not None and _same_token(fresh, sign_in):
                        renewing = _refresh_request(fresh) is not None  # refused before its time: revoked, skew
                        fresh = await self._renew(fresh)
                        renewal_failed = fresh is None and renewing
        if fresh is not None or renewal_failed:
            # Sent again: with the newer token, or (renewal refused) without one, so that what httpx returns is
            # the server's answer to this request, not the token endpoint's. httpx reads and closes the last one.
            response = yield _with_token(request, fresh)
            if response.status_code != HTTP_UNAUTHORIZED:
                self.needed = False
                return
        self.needed = True
        await _answer_in_stead(request, response, self._server, self.renewal_failed)

    async def _renew(self, sign_in: SignIn) -> SignIn | None:
        """`sign_in` renewed at its token endpoint and saved; None when it cannot be (no refresh token, refused,
        or the endpoint did not answer within `TOKEN_ENDPOINT_SECONDS`: then `renewal_failed` says so)."""
        self.renewal_failed = None
        refresh = _refresh_request(sign_in)
        if refresh is None:
            return None
        try:
            transport = self._context.token_transport
            async with httpx2.AsyncClient(timeout=TOKEN_ENDPOINT_SECONDS, transport=transport) as client:
                response = await client.send(refresh)
                return await self._renewed(sign_in, response)
        except httpx2.TimeoutException:
            why = f"did not answer within {TOKEN_ENDPOINT_SECONDS:g}s"
        except httpx2.HTTPError as error:
            why = f"could not be reached ({type(error).__name__})"
        self.renewal_failed = f"its token endpoint ({display_url(sign_in.token_endpoint)}) {why}"
        self._sign_in = None
        return None

    async def _reload(self) -> SignIn | None:
        self._signature = await anyio.to_thread.run_sync(self._context.store.signature, self._server)  # first
        try:
            sign_in = await anyio.to_thread.run_sync(self._context.store.load, self._server, self._url)
        except (OSError, UnusableFileError):
            sign_in = None  # unreadable counts as signed out: the answer then says to sign in again
        if sign_in is not None:
            self._context.learn(sign_in.secrets())
        self._sign_in, self._loaded = sign_in, True
        return sign_in

    async def _renewed(self, sign_in: SignIn, response: httpx2.Response) -> SignIn | None:
        """The sign-in renewed by the token endpoint's `response`, saved; None when the renewal failed."""
        try:
            body = await _read_capped(response)
            if response.status_code != HTTP_OK:
                self._sign_in = None
                return None
            renewed = sign_in.renewed(OAuthToken.model_validate_json(body))
        except (httpx2.HTTPError, ValidationError, ValueError):
            self._sign_in = None
            return None
        self._context.learn(renewed.secrets())
        self._sign_in = renewed
        with contextlib.suppress(OSError, UnusableFileError):  # used here all the same; the next gateway renews it
            await anyio.to_thread.run_sync(self._context.store.save, renewed)
            self._signature = await anyio.to_thread.run_sync(self._context.store.signature, self._server)
        return renewed


def _same_token(one: SignIn, other: SignIn) -> bool:
    return one.tokens.access_token == other.tokens.access_token


def _due(sign_in: SignIn) -> bool:
    lifetime = sign_in.tokens.expires_in
    margin = (
        REFRESH_MARGIN_SECONDS if lifetime is None else min(REFRESH_MARGIN_SECONDS, lifetime * REFRESH_MARGIN_FRACTION)
    )
    return sign_in.expired(margin=margin)


def _with_token(request: httpx2.Request, sign_in: SignIn | None) -> httpx2.Request:
    if sign_in is None:
        request.headers.pop("Authorization", None)
    else:
        request.headers["Authorization"] = f"Bearer {sign_in.tokens.access_token}"
    return request


def _refresh_request(sign_in: SignIn) -> httpx2.Request | None:
    """The refresh-token grant for `sign_in` (RFC 6749 §6), authenticated as its client was registered."""
    refresh_token = sign_in.tokens.refresh_token
    if not refresh_token:
        return None
    client = sign_in.client
    data = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client.client_id}
    if sign_in.resource:
        data["resource"] = sign_in.resource  # RFC 8707: the same resource the tokens were granted for
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
    if client.client_secret and client.token_endpoint_auth_method == "client_secret_basic":
        pair = f"{quote(client.client_id, safe='')}:{quote(client.client_secret, safe='')}"
        headers["Authorization"] = f"Basic {base64.b64encode(pair.encode()).decode()}"
    elif client.client_secret:
        data["client_secret"] = client.client_secret
    return httpx2.Request("POST", sign_in.token_endpoint, data=data, headers=headers)


async def _read_capped(response: httpx2.Response) -> bytes:
    """The body of a token response; read whole (`aread`), as httpx reads it again after the flow's next step."""
    body = await response.aread()  # bounded by `connect.BodyCap` on the way in
    if len(body) > MAX_TOKEN_RESPONSE_BYTES:
        raise ValueError("the token response is too large")
    return body


async def _answer_in_stead(
    request: httpx2.Request, response: httpx2.Response, server: str, renewal_failed: str | None
) -> None:
    """Turn the server's 401 into a JSON-RPC error for the request that met it (nothing for a notification), with
    why the renewal failed at the token endpoint when it did."""
    body = b""
    message = _json_rpc_request(request.content)
    if message is not None:
        data: dict[str, Any] = {SIGN_IN_MARK: SIGN_IN_NONCE}
        if renewal_failed is not None:
            data[RENEWAL_KEY] = renewal_failed
        error: dict[str, Any] = {"code": SIGN_IN_ERROR_CODE, "message": f"server '{server}' needs a sign-in"}
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": {**error, "data": data}}).encode()
    original = response.stream
    response.stream = httpx2.ByteStream(body)
    for header in ("content-encoding", "transfer-encoding"):
        response.headers.pop(header, None)
    response.headers["content-type"] = "application/json"
    response.headers["content-length"] = str(len(body))
    if isinstance(original, httpx2.AsyncByteStream):
        await original.aclose()  # the server's own body is not read: its connection goes back to the pool


def _json_rpc_request(content: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(content) if content else None
    except ValueError:
        return None
    if isinstance(message, dict) and "method" in message and "id" in message:
        return message  # pyright: ignore[reportUnknownVariableType]
    return None
