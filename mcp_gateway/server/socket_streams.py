"""One session's MCP streams over its front's socket, in the daemon.

The same newline-delimited JSON-RPC as the stdio transport (`stdio`), judged the same way: a line that is
no usable message is answered here with the error it deserves, never dropped in silence, and a response too
deep to write becomes an error for the same request. Decoding and encoding run in worker threads; the
socket is read and written by the event loop, which only moves bytes.
"""

from __future__ import annotations

import contextlib
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


@asynccontextmanager
async def socket_streams(
    stream: anyio.abc.ByteStream, reader: BufferedByteReceiveStream, ended: anyio.Event
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
            judged = await anyio.to_thread.run_sync(judge, line)
            if judged is not None and judged.to_session is not None:
                await read_send.send(judged.to_session)
            elif judged is not None and judged.to_client is not None:
                await answers.send(judged.to_client)

    async def write_lines() -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            async with write_receive:
                async for item in write_receive:
                    data = await anyio.to_thread.run_sync(_encoded, item.message)
                    if data is not None:
                        await stream.send(data)

    async with anyio.create_task_group() as tg:
        tg.start_soon(write_lines)
        tg.start_soon(read_lines)
        try:
            yield read_receive, write_send
        finally:
            write_send.close()
            read_receive.close()
            tg.cancel_scope.cancel()


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
