"""What crosses one downstream connection, watched: whose error is whose, which tools are usable, when it ended.

Every transport's two message streams pass through a `Link` on their way to and from the SDK client, so the
gateway can tell by what happened *locally* what a failure means, never by the wire code alone:

- The SDK reports a closed connection as an `MCPError` with code -32000 and a read timeout as -32001, and a
  server may send those very codes for its own reasons. So each error response the server sends is marked
  on the way in (its `data` is wrapped with this link's random nonce, which the server cannot know), and
  `origin()` gives the server's own code, message and data back; an `MCPError` without the mark was raised
  by the SDK itself (the connection closed).
- A line that is JSON with a request id but not valid JSON-RPC would otherwise be dropped, leaving the
  call to wait out its whole timeout; the transport turns it into a marked error for that id at once
  (`malformed_reply`).
- One unusable entry in a `tools/list` page (a numeric name, a string `inputSchema`) makes the SDK refuse the
  whole page, so the server would seem to have no tools; each page is cleaned here first, and what was left
  out is kept in `skipped` for the catalog to report.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self, cast

import anyio
import mcp_types as types
from mcp.client import Transport
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import methods
from pydantic import ValidationError

from mcp_gateway.wire import Unreadable

MARK = "mcp-gateway/link"
"""The key of the mark this gateway puts into the `data` of every error a server sends."""
MAX_SKIPPED_NOTES = 20
"""Per listing, after which skipped entries are only counted (a server may list thousands of broken tools)."""

Streams = tuple[Any, Any]


@dataclass(frozen=True)
class ServerError:
    """The server answered with this JSON-RPC error (code and text as it sent them)."""

    code: int
    message: str
    data: Any


@dataclass(frozen=True)
class MalformedReply:
    """The server answered with something that is not a valid JSON-RPC response."""

    reason: str


class Link:
    def __init__(self, *, protocol_version: Callable[[], str | None] = lambda: None) -> None:
        self._nonce = secrets.token_hex(16)
        self.closed = anyio.Event()
        """Set once the server's side of the connection has ended (its stream reached its end)."""
        self.protocol_version = protocol_version
        """The negotiated version, for judging `tools/list` entries the way the SDK does."""
        self._listings: set[types.RequestId] = set()
        self._skipped: list[str] = []
        self._skipped_count = 0

    def around(self, transport: Transport) -> Transport:
        """`transport`, with both of its streams passing through this link."""
        return _LinkedTransport(self, transport)

    def origin(self, error: MCPError) -> ServerError | MalformedReply | None:
        """Who produced `error`: the server (as it sent it), a malformed reply, or None: the SDK itself."""
        data = error.data
        if not isinstance(data, dict):
            return None
        mark = cast(dict[str, Any], data)
        if mark.get(MARK) != self._nonce:
            return None
        if "malformed" in mark:
            return MalformedReply(str(mark["malformed"]))
        return ServerError(error.code, error.message, mark.get("data"))

    def take_skipped(self) -> tuple[list[str], int]:
        """Why entries were left out of `tools/list` pages since the last call (at most `MAX_SKIPPED_NOTES`
        reasons), and how many were left out in all."""
        taken = (self._skipped, self._skipped_count)
        self._skipped, self._skipped_count = [], 0
        return taken

    def malformed_reply(self, unreadable: Unreadable) -> SessionMessage:
        """A marked error answering the request `unreadable` names, so its caller fails at once."""
        data = {MARK: self._nonce, "malformed": unreadable.reason}
        error = types.ErrorData(code=types.INTERNAL_ERROR, message=unreadable.reason, data=data)
        return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=unreadable.request_id, error=error))

    # Watching the streams.

    def outgoing(self, item: SessionMessage) -> None:
        message = item.message
        if isinstance(message, types.JSONRPCRequest) and message.method == "tools/list":
            self._listings.add(message.id)

    def incoming(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        if not isinstance(item, SessionMessage):
            return item
        message = item.message
        if isinstance(message, types.JSONRPCError):
            return SessionMessage(self._marked(message), metadata=item.metadata)
        if isinstance(message, types.JSONRPCResponse) and message.id in self._listings:
            self._listings.discard(message.id)
            return SessionMessage(self._cleaned_listing(message), metadata=item.metadata)
        return item

    def _marked(self, message: types.JSONRPCError) -> types.JSONRPCError:
        error = message.error
        original: Any = error.data
        if isinstance(original, dict) and cast(dict[str, Any], original).get(MARK) == self._nonce:
            return message  # made by this link (a malformed reply); a server cannot know the nonce
        data: dict[str, Any] = {MARK: self._nonce}
        if "data" in error.model_fields_set:
            data["data"] = original
        marked = types.ErrorData(code=error.code, message=error.message, data=data)
        return types.JSONRPCError(jsonrpc="2.0", id=message.id, error=marked)

    def _cleaned_listing(self, message: types.JSONRPCResponse) -> types.JSONRPCResponse:
        listed: object = message.result.get("tools")
        if not isinstance(listed, list):
            return message  # the whole page is unusable; the SDK says so
        entries = cast(list[Any], listed)
        kept: list[Any] = []
        for position, entry in enumerate(entries):
            problem = self._entry_problem(message.result, entry)
            if problem is None:
                kept.append(entry)
                continue
            self._skipped_count += 1
            if len(self._skipped) < MAX_SKIPPED_NOTES:
                self._skipped.append(f"entry {position + 1} ({_entry_name(entry)}): {problem}")
        if len(kept) == len(entries):
            return message
        return types.JSONRPCResponse(jsonrpc="2.0", id=message.id, result={**message.result, "tools": kept})

    def _entry_problem(self, result: dict[str, Any], entry: object) -> str | None:
        """Why the SDK would refuse `result` if `entry` were its only tool (judged for the negotiated version)."""
        if not isinstance(entry, dict):
            return "not an object"
        version = self.protocol_version()
        page = {**result, "tools": [cast(dict[str, Any], entry)]}
        try:
            if version is not None and ("tools/list", version) in methods.SERVER_RESULTS:
                methods.validate_server_result("tools/list", version, page)
            else:
                types.Tool.model_validate(entry, by_name=False)
        except ValidationError as exc:
            return _first_problem(exc)
        return None


def _entry_name(entry: object) -> str:
    name = cast(dict[str, Any], entry).get("name") if isinstance(entry, dict) else None
    return repr(name)[:80] if name is not None else "no name"


def _first_problem(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"] if not isinstance(part, int) and part != "tools")
    return f"{where or 'entry'}: {first['msg']}"


class _LinkedTransport:
    def __init__(self, link: Link, inner: AbstractAsyncContextManager[Streams]) -> None:
        self._link = link
        self._inner = inner

    async def __aenter__(self) -> Streams:
        read, write = await self._inner.__aenter__()
        return _WatchedReceive(self._link, read), _WatchedSend(self._link, write)

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        try:
            return await self._inner.__aexit__(exc_type, exc, tb)
        finally:
            self._link.closed.set()


class _Watched:
    """A stream of a linked transport; closing it closes the stream it wraps."""

    def __init__(self, link: Link, inner: Any) -> None:
        self._link = link
        self._inner = inner

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None


class _WatchedReceive(_Watched):
    @property
    def last_context(self) -> Any:
        # The SDK's dispatcher duck-types this public attribute of its read stream to run each handler in the
        # sender's context; a wrapper that hid it would lose that context.
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        try:
            item = await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._link.closed.set()
            raise
        return self._link.incoming(item)

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        self._link.closed.set()
        await self._inner.aclose()


class _WatchedSend(_Watched):
    async def send(self, item: SessionMessage, /) -> None:
        self._link.outgoing(item)
        await self._inner.send(item)
