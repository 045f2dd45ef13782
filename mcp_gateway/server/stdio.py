"""The gateway's own stdio transport, towards the AI client.

Like the SDK's `mcp.server.stdio.stdio_server`, it serves newline-delimited JSON-RPC on the process's
stdin and stdout, and while serving points fd 0 at /dev/null and fd 1 at stderr so stray output from
libraries cannot corrupt the wire. It differs in one way that matters for shutdown: stdin is read by a
daemon thread. The SDK reads it with an anyio worker thread that cancellation cannot interrupt, so a
gateway told to stop by SIGTERM while its client keeps stdin open would hang until the next line
arrived; a daemon thread blocked in `read` never holds the process up.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

Streams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]


@asynccontextmanager
async def stdio_streams() -> AsyncGenerator[Streams]:
    wire_in = os.dup(sys.stdin.fileno())
    wire_out = os.dup(sys.stdout.fileno())
    saved_in = os.dup(0)
    saved_out = os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
    token = anyio.lowlevel.current_token()

    def read_lines() -> None:
        # A buffered reader returns each line as soon as it is complete (pipe reads do not wait to fill).
        with os.fdopen(wire_in, "rb") as wire, contextlib.suppress(Exception):
            for line in wire:
                item = _parse(line)
                if item is None:
                    continue
                anyio.from_thread.run(read_send.send, item, token=token)
        with contextlib.suppress(Exception):
            anyio.from_thread.run_sync(read_send.close, token=token)

    reader = threading.Thread(target=read_lines, name="mcp-gateway stdin", daemon=True)
    reader.start()

    async def write_lines() -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            async with write_receive:
                async for message in write_receive:
                    data = (message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode()
                    try:
                        await anyio.to_thread.run_sync(_write_all, wire_out, data)
                    except OSError:
                        return  # the client is gone; the read side will see EOF too

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(write_lines)
            try:
                yield read_receive, write_send
            finally:
                write_send.close()
                read_receive.close()
    finally:
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)
        with contextlib.suppress(OSError):
            os.close(wire_out)


def _parse(line: bytes) -> SessionMessage | Exception | None:
    text = line.decode("utf-8", errors="replace").strip()
    if not text:
        return None
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except Exception as exc:  # the dispatcher answers a parse error; the connection goes on
        return exc


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
