"""`SignInAuth`: a serving gateway's use of the stored sign-in on each request of a remote connection.

It reads the sign-in again whenever its file changed (one `stat` a request), is due for renewal or is refused:
another gateway may have renewed it (a renewed refresh token often invalidates the old one), and `login` or
`logout` changed it. A token due is renewed under the store's renewal lock after reading it once more, so two
gateways never spend one single-use refresh token; a renewal is bounded by `TOKEN_ENDPOINT_SECONDS`, not left
to the call's whole timeout. A 401 no token answers becomes a JSON-RPC error for that request, in the server's
stead, marked with this process's nonce (which no server can know) so `translate` tells it from a server's own:
raising would end the SDK's whole transport, not the one request.
"""

from __future__ import annotations

import base64
import contextlib
import json
import secrets
from collections.abc import AsyncGenerator, Callable
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import anyio
import anyio.to_thread
import httpx2
from mcp.shared.auth import OAuthToken

from mcp_gateway.errors import UnusableFileError
from mcp_gateway.masking import display_url
from mcp_gateway.sign_in.store import SignIn, SignInStore

SIGN_IN_MARK = "mcp-gateway/sign-in"
"""The key, in the `data` of an error answered in a server's stead, whose value is `SIGN_IN_NONCE`."""
SIGN_IN_NONCE = secrets.token_hex(16)
RENEWAL_KEY = "renewal"
"""The key, beside `SIGN_IN_MARK`, of why a renewal failed at the token endpoint."""
SIGN_IN_ERROR_CODE = -32001
"""The JSON-RPC code of the answer given in a server's stead (MCP SDKs use -32001 for auth failures)."""
REFRESH_MARGIN_SECONDS = 60.0
"""A token is renewed when it has less than this left (clock skew and a slow network: most OAuth clients'
margin), or less than `REFRESH_MARGIN_FRACTION` of its lifetime, for tokens that live less than ten minutes."""
REFRESH_MARGIN_FRACTION = 0.1
TOKEN_ENDPOINT_SECONDS = 15.0
"""The longest a renewal may take: a token endpoint answers in milliseconds, a slow one in a few seconds."""
MAX_TOKEN_RESPONSE_BYTES = 256 * 1024
"""A token response is a few kilobytes; a longer one is not used."""


def is_sign_in_reply(data: object) -> bool:
    """`data` (an error's, as the server sent it) is what `SignInAuth` answered in the server's stead."""
    return isinstance(data, dict) and cast(dict[str, object], data).get(SIGN_IN_MARK) == SIGN_IN_NONCE


def renewal_failure(data: object) -> str | None:
    """Why the renewal failed at the token endpoint, in a sign-in reply's `data`; None when it did not."""
    said = cast(dict[str, object], data).get(RENEWAL_KEY) if is_sign_in_reply(data) else None
    return said if isinstance(said, str) else None


class SignInAuth(httpx2.Auth):
    def __init__(
        self, server: str, url: str, store: SignInStore, token_transport: httpx2.AsyncBaseTransport | None = None
    ) -> None:
        self._server = server
        self._url = url
        self._store = store
        self._token_transport = token_transport
        """How renewals reach token endpoints (None: the network, as any HTTP client does); a seam for tests."""
        self._sign_in: SignIn | None = None
        self._signature: tuple[int, int, int, int] | None = None
        """The stored sign-in's file as it was when last read (`SignInStore.signature`; None: no file)."""
        self._lock = anyio.Lock()
        self.needed = False
        """The last request met a refusal no token could answer: the server needs `mcp-gateway login`."""
        self.renewal_failed: str | None = None
        """Why the last renewal failed at the token endpoint (no answer in time, unreachable); None otherwise."""

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        await request.aread()  # kept, so the request can be sent again with a renewed token
        async with self._lock:
            stored = await anyio.to_thread.run_sync(self._store.signature, self._server)
            sign_in = self._sign_in if stored == self._signature else await self._reload()
            if sign_in is not None and _due(sign_in):
                sign_in, _ = await self._fresh(_due)
        response = yield _with_token(request, sign_in)
        if response.status_code == HTTPStatus.UNAUTHORIZED:
            used = sign_in
            async with self._lock:  # refused before its time (revoked, skew): renewed, unless another gateway did
                fresh, renewal_refused = await self._fresh(
                    lambda stored: used is not None and stored.tokens.access_token == used.tokens.access_token
                )
            if fresh is not None or renewal_refused:
                # Sent again: with the newer token, or (renewal refused) without one, so that what httpx returns is
                # the server's answer to this request, not the token endpoint's. httpx reads and closes the last one.
                response = yield _with_token(request, fresh)
        self.needed = response.status_code == HTTPStatus.UNAUTHORIZED
        if self.needed:
            await _answer_in_stead(request, response, self._server, self.renewal_failed)

    async def _fresh(self, stale: Callable[[SignIn], bool]) -> tuple[SignIn | None, bool]:
        """The stored sign-in, renewed when it is `stale` still once the renewal lock is held (the gateway this one
        waited for may have renewed it); and whether a renewal was tried with a refresh token and failed."""
        sign_in = await self._reload()  # another gateway may have renewed it meanwhile
        if sign_in is None or not stale(sign_in):
            return sign_in, False
        async with self._store.renewal_lock(self._server):
            sign_in = await self._reload()
            if sign_in is None or not stale(sign_in):
                return sign_in, False
            renewed = await self._renew(sign_in)
        return renewed, renewed is None and bool(sign_in.tokens.refresh_token)

    async def _reload(self) -> SignIn | None:
        self._signature = await anyio.to_thread.run_sync(self._store.signature, self._server)  # first
        try:
            sign_in = await anyio.to_thread.run_sync(self._store.load, self._server, self._url)
        except (OSError, UnusableFileError):
            sign_in = None  # unreadable counts as signed out: the answer then says to sign in again
        self._sign_in = sign_in
        return sign_in

    async def _renew(self, sign_in: SignIn) -> SignIn | None:
        """`sign_in` renewed at its token endpoint and saved; None when it cannot be (no refresh token, refused,
        or the endpoint did not answer within `TOKEN_ENDPOINT_SECONDS`: then `renewal_failed` says so)."""
        self.renewal_failed = None
        refresh = _refresh_request(sign_in)
        if refresh is None:
            return None
        renewed: SignIn | None = None
        try:
            async with httpx2.AsyncClient(timeout=TOKEN_ENDPOINT_SECONDS, transport=self._token_transport) as client:
                response = await client.send(refresh)
            if response.status_code == HTTPStatus.OK and len(response.content) <= MAX_TOKEN_RESPONSE_BYTES:
                renewed = sign_in.renewed(OAuthToken.model_validate_json(response.content))
        except httpx2.TimeoutException:
            self.renewal_failed = f"did not answer within {TOKEN_ENDPOINT_SECONDS:g}s"
        except httpx2.HTTPError as error:
            self.renewal_failed = f"could not be reached ({type(error).__name__})"
        except ValueError:
            pass  # not a token response: refused, as an error status is
        if self.renewal_failed is not None:
            self.renewal_failed = f"its token endpoint ({display_url(sign_in.token_endpoint)}) {self.renewal_failed}"
        self._sign_in = renewed
        if renewed is not None:
            with contextlib.suppress(OSError, UnusableFileError):  # used here all the same; the next gateway renews
                await anyio.to_thread.run_sync(self._store.save, renewed)
                self._signature = await anyio.to_thread.run_sync(self._store.signature, self._server)
        return renewed


def _due(sign_in: SignIn) -> bool:
    lifetime = sign_in.tokens.expires_in
    margin = REFRESH_MARGIN_SECONDS
    if lifetime is not None:
        margin = min(margin, lifetime * REFRESH_MARGIN_FRACTION)
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


async def _answer_in_stead(
    request: httpx2.Request, response: httpx2.Response, server: str, renewal_failed: str | None
) -> None:
    """Turn the server's 401 into a JSON-RPC error for the request that met it (nothing for a notification), with
    why the renewal failed at the token endpoint when it did."""
    body = b""
    try:
        message = json.loads(request.content or b"null")
    except ValueError:
        message = None
    if isinstance(message, dict) and "method" in message and "id" in message:
        data: dict[str, Any] = {SIGN_IN_MARK: SIGN_IN_NONCE}
        if renewal_failed is not None:
            data[RENEWAL_KEY] = renewal_failed
        error = {"code": SIGN_IN_ERROR_CODE, "message": f"server '{server}' needs a sign-in", "data": data}
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}).encode()  # pyright: ignore[reportUnknownArgumentType]
    original = response.stream
    response.stream = httpx2.ByteStream(body)
    for header in ("content-encoding", "transfer-encoding"):
        response.headers.pop(header, None)
    response.headers["content-type"] = "application/json"
    response.headers["content-length"] = str(len(body))
    if isinstance(original, httpx2.AsyncByteStream):
        await original.aclose()  # the server's own body is not read: its connection goes back to the pool
