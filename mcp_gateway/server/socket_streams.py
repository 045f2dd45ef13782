"""One session's MCP streams over its front's socket, in the daemon: the gateway's transport towards its client.

Newline-delimited JSON-RPC, as a client speaks it on stdio (the front passes its lines through unchanged),
unlike the SDK's stdio transport in three ways:
- No line is dropped in silence (the SDK's dispatcher logs and drops what it cannot parse, and the client waits
  for its own timeout): lines are read with `wire.decode`, which also takes deep messages the SDK's validator
  refuses, and a request that is no usable message gets the JSON-RPC error it deserves, under its id when the
  line shows one (else null); a notification or a response is only logged.
- Lines are bounded (`max_line_bytes`): a longer one is never held whole; it is read past in chunks and its
  request, named by the id at its start or end, gets an error saying why, and the session goes on.
- Messages are written with `wire.encode`, at any depth the gateway accepted; a response too deep to write at
  all becomes an error response for the same request, so its client is never left waiting.

The event loop only moves bytes; decoding and encoding large messages run in worker threads. Each hop between
the two is a wake-up on the path of a call, and on a busy machine a wake-up waits for a CPU (about 3 ms at a
load of 10 on 2 CPUs): a short line (`INLINE_JUDGE_BYTES`) is judged on the loop, a small message
(`INLINE_ENCODE_BYTES`) encoded there, and the worker that encodes a larger one also sends it, as far as the
socket takes it at once, so a reply reaches the front without the loop waking first.
"""

from __future__ import annotations

import contextlib
import logging
import socket
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio
import anyio.abc
import anyio.to_thread
import mcp_types as types
from anyio.streams.buffered import BufferedByteReceiveStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from mcp_gateway import relayed, wire
from mcp_gateway.line_bounds import ID_SEARCH_BYTES, TooLong, refusal

logger = logging.getLogger(__name__)

Streams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]

INLINE_JUDGE_BYTES = 1024
"""Lines judged on the event loop: a call's request is a few hundred bytes; judging 1 KiB of the densest JSON
(small nested objects) took 0.3 ms at a load of 10 on 2 CPUs, a plain one 0.03 ms."""
INLINE_ENCODE_BYTES = 16 * 1024
"""Messages encoded and sent on the event loop: an answer to a call is usually a few hundred bytes, and
encoding 16 KiB of small JSON objects takes about 0.1 ms; anything larger is encoded in a worker thread."""
CHUNK_BYTES = 64 * 1024
UNANSWERED_KINDS = frozenset({"notification", "response"})
"""What a line that is no usable message tried to be when it gets no answer (JSON-RPC answers neither)."""
_ERROR_TITLES = {
    types.PARSE_ERROR: "Parse error",
    types.INVALID_REQUEST: "Invalid request",
    types.INVALID_PARAMS: "Invalid params",
}


@dataclass(frozen=True)
class Judged:
    """What one client line becomes: a message for the session, or the transport's own answer to it."""

    to_session: SessionMessage | None = None
    to_client: SessionMessage | None = None


class Lines:
    """The client's lines on `stream`, each at most `max_bytes` (`TooLong` for one that is longer)."""

    def __init__(self, stream: anyio.abc.ByteReceiveStream, leftover: bytes, max_bytes: int) -> None:
        self._stream = stream
        self._buffer = bytearray(leftover)
        self._max_bytes = max_bytes
        self._searched = 0
        """How much of the buffer is known to hold no newline."""

    async def next(self) -> bytes | TooLong | None:
        """The next line without its newline; None once the client has closed its side."""
        while True:
            index = self._buffer.find(b"\n", self._searched)
            if index >= 0:
                line = bytes(self._buffer[:index])
                del self._buffer[: index + 1]
                self._searched = 0
                return line
            self._searched = len(self._buffer)
            if len(self._buffer) > self._max_bytes:
                return await self._read_past()
            chunk = await self._receive()
            if chunk is None:
                return None  # a last line without its newline is no whole message
            self._buffer += chunk

    async def _read_past(self) -> TooLong | None:
        """Read to the end of the current line keeping only its ends, where its request's id is (memory stays
        bounded whatever its size)."""
        head, tail = bytes(self._buffer[:ID_SEARCH_BYTES]), bytes(self._buffer[-ID_SEARCH_BYTES:])
        size = len(self._buffer)
        self._buffer.clear()
        while True:
            chunk = await self._receive()
            if chunk is None:
                return None
            index = chunk.find(b"\n")
            if index >= 0:
                self._buffer += chunk[index + 1 :]
                self._searched = 0
                return TooLong(head, (tail + chunk[:index])[-ID_SEARCH_BYTES:], size + index)
            size += len(chunk)
            tail = (tail + chunk)[-ID_SEARCH_BYTES:]

    async def _receive(self) -> bytes | None:
        try:
            return await self._stream.receive(CHUNK_BYTES)
        except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            return None


@asynccontextmanager
async def socket_streams(
    stream: anyio.abc.SocketStream, reader: BufferedByteReceiveStream, ended: anyio.Event, max_line_bytes: int
) -> AsyncGenerator[Streams]:
    """The session's streams; `reader` read the hello off `stream` (it may hold bytes that followed it). `ended`
    is set when the front has closed its side: the client left, or the front was killed."""
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
    answers = write_send.clone()
    lines = Lines(stream, reader.buffer, max_line_bytes)

    async def read_lines() -> None:
        async with read_send, answers:
            try:
                with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                    await read_each_line()  # until the client's end, or the session's (then nothing reads on)
            finally:
                ended.set()

    async def read_each_line() -> None:
        while (line := await lines.next()) is not None:
            await take(line)
            del line  # a large line is not kept alive while the session waits for its next one

    async def take(line: bytes | TooLong) -> None:
        if isinstance(line, TooLong):
            await answers.send(_too_long(line, max_line_bytes))
            return
        judged = judge(line) if len(line) <= INLINE_JUDGE_BYTES else await anyio.to_thread.run_sync(judge, line)
        if judged is not None and judged.to_session is not None:
            await read_send.send(judged.to_session)
        elif judged is not None and judged.to_client is not None:
            await answers.send(judged.to_client)

    raw = stream.extra(anyio.abc.SocketAttribute.raw_socket)

    async def write_lines() -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with write_receive:
                async for item in write_receive:  # the only writer: a worker's send never meets the loop's
                    await write(item.message)
                    del item  # a large answer is not kept alive while the session waits for its next one

    async def write(message: types.JSONRPCMessage) -> None:
        if wire.message_fits_within(message, INLINE_ENCODE_BYTES):
            rest = _encoded(message) or b""
        else:
            rest = await anyio.to_thread.run_sync(_encoded_and_sent, raw, message)
        if rest:
            await stream.send(rest)

    async with anyio.create_task_group() as tg:
        tg.start_soon(write_lines)
        tg.start_soon(read_lines)
        try:
            yield read_receive, write_send
        finally:
            write_send.close()
            read_receive.close()
            tg.cancel_scope.cancel()


def judge(line: bytes) -> Judged | None:
    """What the client's `line` becomes (None for a blank line, or an unusable one that gets no answer)."""
    item = wire.decode(line)
    if item is None:
        return None
    if isinstance(item, wire.Unreadable):
        answer = answer_to(item)
        return None if answer is None else Judged(to_client=SessionMessage(answer))
    return Judged(to_session=SessionMessage(item))


def answer_to(line: wire.Unreadable) -> types.JSONRPCError | None:
    """The error response a client line that is no usable message deserves; None when it gets none."""
    answered = line.kind not in UNANSWERED_KINDS
    logger.warning(
        "a client line is not a usable JSON-RPC message (%s%s): %s; %s",
        line.kind,
        "" if line.request_id is None else f" {line.request_id!r}",
        line.reason,
        "answered with an error" if answered else "ignored it",
    )
    logger.debug("the unusable client line began with %r", line.preview)
    if not answered:
        return None
    title = _ERROR_TITLES.get(line.code, "Invalid message")
    return wire.error_response(
        line.request_id, line.code, f"{title}: {line.reason}, so nothing was run; fix the message and send it again."
    )


def undeliverable(message: types.JSONRPCMessage) -> types.JSONRPCError | None:
    """What to send instead of a message too deep to write: an error for the same request, if it answers one."""
    if not isinstance(message, types.JSONRPCResponse | types.JSONRPCError) or message.id is None:
        logger.warning("dropped a %s to the client nested too deeply to write as JSON", type(message).__name__)
        return None
    logger.warning("the answer to client request %r is nested too deeply to write; sent an error instead", message.id)
    return wire.error_response(
        message.id,
        types.INTERNAL_ERROR,
        f"The answer to this request is nested too deeply to send as JSON (the gateway accepts {wire.MAX_DEPTH} "
        "levels); ask for a smaller or flatter result.",
    )


def _encoded_and_sent(sock: socket.socket, message: types.JSONRPCMessage) -> bytes:
    """In a worker thread: `message` encoded and sent as far as the non-blocking socket takes it now; the rest.
    OSError when the front is gone."""
    data = _encoded(message)
    if data is None:
        return b""
    try:
        sent = sock.send(data)
    except BlockingIOError:
        return data
    return data[sent:]


def _encoded(message: types.JSONRPCMessage) -> bytes | None:
    relayed_line = relayed.encode_response(message)  # a large result, written from the text it came as
    if relayed_line is not None:
        return relayed_line
    try:
        return wire.encode(message)
    except wire.UnencodableError:
        replacement = undeliverable(message)
        return None if replacement is None else wire.encode(replacement)


def _too_long(line: TooLong, max_line_bytes: int) -> SessionMessage:
    refused = refusal(line, max_line_bytes)
    logger.warning(
        "a client line of %d bytes%s is longer than the %d this session reads; answered with an error",
        line.size,
        "" if refused["id"] is None else f" (request {refused['id']!r})",
        max_line_bytes,
    )
    return SessionMessage(types.JSONRPCError.model_validate(refused))
