"""The gateway's own stdio transport, towards the AI client.

Like the SDK's `mcp.server.stdio.stdio_server`, it serves newline-delimited JSON-RPC on the process's
stdin and stdout, and while serving points fd 0 at /dev/null and fd 1 at stderr so stray output from
libraries cannot corrupt the wire. It differs in three ways:
- stdin is read by a daemon thread. The SDK reads it with an anyio worker thread that cancellation cannot
  interrupt, so a gateway told to stop by SIGTERM while its client keeps stdin open would hang until the
  next line arrived; a daemon thread blocked in `read` never holds the process up.
- No line is dropped in silence. The SDK's dispatcher logs and drops what its transport cannot parse, and
  the client waits for its own timeout. Lines are read with `wire.decode` (which also takes the deep
  messages the SDK's validator refuses), and one that is no usable message is answered here: a request,
  or what may have been one, gets the JSON-RPC error it deserves with its id when the line holds one (null
  when not, as JSON-RPC asks); a notification or a response is never answered, only logged.
- Messages are written with `wire.encode`, at any depth the gateway accepted. A response too deep to be
  written at all becomes an error response for the same request, so its client is never left waiting.
Reading, parsing, encoding and writing all happen off the event loop (the reader thread, worker threads).
"""

from __future__ import annotations

import contextlib
import logging
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

from mcp_gateway import wire

logger = logging.getLogger(__name__)

Streams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]

UNANSWERED_KINDS = frozenset({"notification", "response"})
"""What a line that is no usable message tried to be when it gets no answer (JSON-RPC answers neither)."""
_ERROR_TITLES = {
    types.PARSE_ERROR: "Parse error",
    types.INVALID_REQUEST: "Invalid request",
    types.INVALID_PARAMS: "Invalid params",
}


@asynccontextmanager
async def stdio_streams() -> AsyncGenerator[Streams]:
    """The process's stdin and stdout as the MCP server's streams, with fd 0 and fd 1 parked while serving."""
    wire_in = os.dup(sys.stdin.fileno())
    wire_out = os.dup(sys.stdout.fileno())
    saved_in = os.dup(0)
    saved_out = os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    try:
        async with line_streams(wire_in, wire_out) as streams:
            yield streams
    finally:
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)


@asynccontextmanager
async def line_streams(wire_in: int, wire_out: int) -> AsyncGenerator[Streams]:
    """Newline-delimited JSON-RPC read from `wire_in` and written to `wire_out`; both descriptors are taken over."""
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
    answers = write_send.clone()
    """The transport's own answers to lines the session never sees."""
    token = anyio.lowlevel.current_token()

    def read_lines() -> None:
        # A buffered reader returns each line as soon as it is complete (pipe reads do not wait to fill).
        with os.fdopen(wire_in, "rb") as source, contextlib.suppress(Exception):
            for line in source:
                item = wire.decode(line)
                if item is None:
                    continue
                if isinstance(item, wire.Unreadable):
                    answer = answer_to(item)
                    if answer is not None:
                        anyio.from_thread.run(answers.send, SessionMessage(answer), token=token)
                    continue
                anyio.from_thread.run(read_send.send, SessionMessage(item), token=token)
        with contextlib.suppress(Exception):
            anyio.from_thread.run_sync(read_send.close, token=token)

    reader = threading.Thread(target=read_lines, name="mcp-gateway stdin", daemon=True)
    reader.start()

    async def write_lines() -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            async with write_receive:
                async for item in write_receive:
                    try:
                        await anyio.to_thread.run_sync(_send, wire_out, item.message)
                    except OSError:
                        return  # the client is gone; the read side will see EOF too

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(write_lines)
            try:
                yield read_receive, write_send
            finally:
                write_send.close()
                answers.close()
                read_receive.close()
    finally:
        with contextlib.suppress(OSError):
            os.close(wire_out)


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


def _send(fd: int, message: types.JSONRPCMessage) -> None:
    try:
        data = wire.encode(message)
    except wire.UnencodableError:
        replacement = undeliverable(message)
        if replacement is None:
            return
        data = wire.encode(replacement)
    _write_all(fd, data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
