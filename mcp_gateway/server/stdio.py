"""The gateway's own stdio transport, towards the AI client.

Like the SDK's `mcp.server.stdio.stdio_server`, it serves newline-delimited JSON-RPC on the process's
stdin and stdout, and while serving points fd 0 at /dev/null and fd 1 at stderr so stray output from
libraries cannot corrupt the wire. It differs in four ways:
- It continues what `ClientLines` began before the SDK was imported: the session first gets every line
  read so far, in order, the handshake answered early included (see `early_answers`), then each line as it
  arrives. Its own answers to requests answered early are checked against what was sent, and dropped.
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
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from mcp_gateway import wire
from mcp_gateway.front.client_lines import ClientLines

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
async def stdio_streams(lines: ClientLines) -> AsyncGenerator[Streams]:
    """The client's stdin and stdout as the MCP server's streams, taking over from `lines`; fd 0 and fd 1,
    parked by `ClientLines.on_stdio`, are put back at the end."""
    try:
        async with line_streams(lines) as streams:
            yield streams
    finally:
        lines.restore_stdio()


@dataclass(frozen=True)
class Judged:
    """What one client line becomes: a message for the session, or the transport's own answer to it."""

    to_session: SessionMessage | None = None
    to_client: SessionMessage | None = None


class _Reading:
    """The session's side of the client's lines: the backlog first, then each line as the thread reads it."""

    def __init__(
        self,
        lines: ClientLines,
        to_session: MemoryObjectSendStream[SessionMessage | Exception],
        answers: MemoryObjectSendStream[SessionMessage],
    ) -> None:
        """`answers`: where the transport's own answers go, to lines the session never sees."""
        self._lines = lines
        self._to_session = to_session
        self._answers = answers
        self._token = anyio.lowlevel.current_token()
        self._in_order = anyio.Lock()
        """Held while the backlog is delivered, so that no later line overtakes it."""
        self._replaying = True
        self._ended = False
        """stdin ended while the backlog was still being delivered: close once it is."""

    async def replay(self) -> None:
        try:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                async with self._in_order:
                    # In a thread: it waits for an early answer being written to the client, if one is.
                    backlog, ended = await anyio.to_thread.run_sync(self._lines.hand_over, self._take, self._end)
                    self._ended = self._ended or ended  # `_end` may have come while it waited
                    for judged in await anyio.to_thread.run_sync(judge_all, backlog):
                        await self._deliver(judged)
        finally:
            self._replaying = False
            if self._ended:
                self._to_session.close()

    async def _deliver(self, judged: Judged | None) -> None:
        if judged is not None and judged.to_session is not None:
            await self._to_session.send(judged.to_session)
        elif judged is not None and judged.to_client is not None:
            await self._answers.send(judged.to_client)

    async def _deliver_in_order(self, judged: Judged | None) -> None:
        async with self._in_order:
            await self._deliver(judged)

    def _end_in_order(self) -> None:
        if self._replaying:
            self._ended = True
        else:
            self._to_session.close()

    def _take(self, line: bytes) -> None:  # in the reader thread
        anyio.from_thread.run(self._deliver_in_order, judge(line), token=self._token)

    def _end(self) -> None:  # in the reader thread
        anyio.from_thread.run_sync(self._end_in_order, token=self._token)


@asynccontextmanager
async def line_streams(lines: ClientLines) -> AsyncGenerator[Streams]:
    """Newline-delimited JSON-RPC: what `lines` read (its backlog first), and what the session writes to
    `lines.wire_out`, which is closed at the end."""
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
    answers = write_send.clone()
    reading = _Reading(lines, read_send, answers)

    async def write_lines() -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            async with write_receive:
                async for item in write_receive:
                    try:
                        await anyio.to_thread.run_sync(_send, lines, item.message)
                    except OSError:
                        return  # the client is gone; the read side will see EOF too

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(write_lines)
            tg.start_soon(reading.replay)
            try:
                yield read_receive, write_send
            finally:
                write_send.close()
                answers.close()
                read_receive.close()
    finally:
        with contextlib.suppress(OSError):
            os.close(lines.wire_out)


def judge(line: bytes) -> Judged | None:
    """What the client's `line` becomes (None for a blank line, or an unusable one that gets no answer)."""
    item = wire.decode(line)
    if item is None:
        return None
    if isinstance(item, wire.Unreadable):
        answer = answer_to(item)
        return None if answer is None else Judged(to_client=SessionMessage(answer))
    return Judged(to_session=SessionMessage(item))


def judge_all(lines: list[bytes]) -> list[Judged | None]:
    return [judge(line) for line in lines]


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


def _send(lines: ClientLines, message: types.JSONRPCMessage) -> None:
    try:
        data = wire.encode(message)
    except wire.UnencodableError:
        replacement = undeliverable(message)
        if replacement is None:
            return
        message, data = replacement, wire.encode(replacement)
    answered = message.id if isinstance(message, types.JSONRPCResponse | types.JSONRPCError) else None
    if answered is not None and lines.settle(answered, data):
        return  # answered early already: the session's own answer was only checked against it
    _write_all(lines.wire_out, data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
