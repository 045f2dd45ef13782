"""One session's MCP streams over its front's socket, in the daemon.

The same newline-delimited JSON-RPC as the stdio transport (`stdio`), judged the same way: a line that is
no usable message is answered here with the error it deserves, never dropped in silence, and a response too
deep to write becomes an error for the same request. Decoding and encoding run in worker threads; the
socket is read and written by the event loop, which only moves bytes.

Each hop between the loop and a worker thread is a wake-up on the critical path of every call, and on a
busy machine a wake-up waits for a CPU (about 3 ms each at a load of 10 on 2 CPUs, measured): a short line
(`INLINE_JUDGE_BYTES`) is judged on the loop itself, a bounded fraction of a millisecond, and the worker that
encodes a message also sends it, as far as the socket takes it at once, so a reply reaches the front
without the loop waking first; whatever the socket does not take, the loop sends.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager

import anyio
import anyio.abc
import anyio.to_thread
import mcp_types as types
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp.shared.message import SessionMessage

from mcp_gateway import wire
from mcp_gateway.server.stdio import Streams, judge, undeliverable

MAX_LINE_BYTES = 64 * 1024 * 1024
"""One message from a client, as the gateway takes one from a remote server (`downstream.connect`)."""
INLINE_JUDGE_BYTES = 1024
"""Lines judged on the event loop: a call's request is a few hundred bytes; judging 1 KiB of the densest JSON
(small nested objects) took 0.3 ms at a load of 10 on 2 CPUs, a plain one 0.03 ms."""


@asynccontextmanager
async def socket_streams(
    stream: anyio.abc.SocketStream, reader: BufferedByteReceiveStream, ended: anyio.Event
) -> AsyncGenerator[Streams]:
    """The session's streams; `reader` reads `stream` (it may hold bytes the hello left behind). `ended` is set
    when the front has closed its side: the client left, or the front was killed."""
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
    answers = write_send.clone()

    async def read_lines() -> None:
        async with read_send, answers:
            try:
                await read_each_line()
            finally:
                ended.set()

    async def read_each_line() -> None:
        while True:
            try:
                line = await reader.receive_until(b"\n", MAX_LINE_BYTES)
            except (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError, anyio.ClosedResourceError):
                return
            except anyio.DelimiterNotFound:
                await answers.send(SessionMessage(_too_long()))
                return  # the rest of the line cannot be told from the next message: end the session
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
                    rest = await anyio.to_thread.run_sync(_encoded_and_sent, raw, item.message)
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
    try:
        return wire.encode(message)
    except wire.UnencodableError:
        replacement = undeliverable(message)
        return None if replacement is None else wire.encode(replacement)


def _too_long() -> types.JSONRPCError:
    return wire.error_response(
        None,
        types.INVALID_REQUEST,
        f"A message longer than {MAX_LINE_BYTES} bytes cannot be read, so the session ends; send smaller arguments.",
    )
