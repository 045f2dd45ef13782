"""Where a browser comes back to `mcp-gateway login`: a one-shot HTTP listener on 127.0.0.1 (RFC 8252 §7.3).

The authorization server redirects the browser to `http://127.0.0.1:PORT/callback?code=…&state=…` (or
`?error=…&state=…`). Only the first answer on that one path that carries the `state` of the sign-in this run
started (`expect`) is kept: any local program can reach a loopback port, so an answer without it, a refusal
included, is turned away and the sign-in goes on waiting. Every other path is not found (a browser also asks for
`/favicon.ico`). Nothing off the machine can reach the listener, and the SDK checks the state again before the
code is exchanged. A connection is read for at most `REQUEST_READ_SECONDS` and `MAX_REQUEST_BYTES`, so a client
that connects and says nothing holds nothing.
"""

from __future__ import annotations

import contextlib
import html
from urllib.parse import parse_qs, urlsplit

import anyio
import anyio.abc

from mcp_gateway.errors import CommandFailedError

CALLBACK_PATH = "/callback"
LOOPBACK_HOST = "127.0.0.1"
MAX_REQUEST_BYTES = 16 * 1024
"""A redirect's request line and headers: a code, a state and an issuer are a few hundred bytes."""
REQUEST_READ_SECONDS = 10.0
"""A browser sends its request at once; a connection silent this long is not a browser's."""


class Loopback:
    """Listens while `serve` runs; `answer` is set by the first request to `CALLBACK_PATH` with the expected state:
    what the authorization server sent back through the browser (`code`, `state`, `iss`, or `error` and
    `error_description`), each parameter's first value."""

    def __init__(self, listener: anyio.abc.Listener[anyio.abc.SocketStream], server: str) -> None:
        self._listener = listener
        self._server = server
        self._state: str | None = None
        self.answered = anyio.Event()
        self.answer: dict[str, str] | None = None

    @classmethod
    async def open(cls, port: int | None, server: str) -> Loopback:
        """Listening on `port` (a free one when None).

        Raises:
            CommandFailedError: the port is taken or cannot be had.
        """
        try:
            return cls(await anyio.create_tcp_listener(local_host=LOOPBACK_HOST, local_port=port or 0), server)
        except OSError as exc:
            raise CommandFailedError(
                f"Cannot listen on {LOOPBACK_HOST} for the sign-in to come back ({exc.strerror or exc}); "
                "free the port, or set another oauth.redirectPort for this server, then run the command again."
            ) from exc

    def expect(self, authorization_url: str) -> None:
        """The sign-in sent to `authorization_url` is the one an answer must belong to (its `state`)."""
        self._state = _parameters(authorization_url).get("state")

    @property
    def redirect_uri(self) -> str:
        port = self._listener.extra(anyio.abc.SocketAttribute.local_port)
        return f"http://{LOOPBACK_HOST}:{port}{CALLBACK_PATH}"

    async def serve(self) -> None:
        """Until cancelled; the listener is closed on the way out."""
        async with self._listener:
            await self._listener.serve(self._handle)

    async def _handle(self, stream: anyio.abc.SocketStream) -> None:
        async with stream:
            head = b""
            with anyio.move_on_after(REQUEST_READ_SECONDS):
                while b"\r\n\r\n" not in head and len(head) <= MAX_REQUEST_BYTES:
                    try:
                        head += await stream.receive()
                    except (anyio.EndOfStream, anyio.BrokenResourceError):
                        break
            request_line = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")  # GET target version
            target = request_line[1] if len(request_line) == 3 and request_line[0] == "GET" else ""
            if urlsplit(target).path != CALLBACK_PATH:
                await _reply(stream, 404, "Not found", "This is where a sign-in comes back; nothing else is here.")
                return
            callback = _parameters(target)
            if self._state is None or callback.get("state") != self._state:
                await _reply(stream, 400, "Not this sign-in", "This is not the sign-in mcp-gateway is waiting for.")
                return
            if self.answer is None:
                self.answer = callback
                self.answered.set()
            if "error" in callback:
                title, text = "Sign-in refused", f"The sign-in to '{self._server}' was refused ({callback['error']})."
            else:
                title, text = "Signed in", f"mcp-gateway got the sign-in to '{self._server}'; you can close this tab."
            await _reply(stream, 200, title, text)


def _parameters(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


async def _reply(stream: anyio.abc.SocketStream, status: int, title: str, text: str) -> None:
    page = f"<!doctype html><title>{html.escape(title)}</title><p>{html.escape(text)}</p>\n".encode()
    reason = {200: "OK", 400: "Bad Request"}.get(status, "Not Found")
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(page)}\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n"
    ).encode()
    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):  # the browser left: kept anyway
        await stream.send(head + page)
