"""The stdio transport to a downstream server: a child process in its own process group.

Modelled on the SDK's `mcp.client.stdio.stdio_client`, which falls short for a gateway in four ways,
hence this module:
- its stderr goes to a file descriptor we would have to share with the AI client; here it is piped into
  the server's own capped log (`StderrLog`);
- it exposes neither the process id nor the moment the process dies; here `pid` is recorded in
  `ProcessRecords` (so a gateway killed with SIGKILL can be cleaned up after) and `exited` is an event;
- its stop sequence stops the leader but leaves the group alive when the leader exits on EOF while a
  grandchild it spawned does not; here the whole group is always gone before the transport returns;
- its grace periods are fixed; here they are cut to the server's `closeTimeoutMs`.
A line on stdout that is not JSON-RPC (banners, debug prints) is noted (`ServerNotes`) and skipped, instead of
being surfaced to the session; a line that carries a request id but is not a valid response fails that
request at once (through the connection's `Link`) rather than leaving it to its timeout. A long line is read in
a worker thread, a response without models (`relayed`), so a server's 10 MB answer never holds the event loop.
"""

from __future__ import annotations

import codecs
import contextlib
import signal
import subprocess
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from types import TracebackType

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from mcp_gateway import relayed, wire
from mcp_gateway.downstream.connection import EndedBeforeHandshake
from mcp_gateway.downstream.link import Link
from mcp_gateway.downstream.process_records import ProcessRecords
from mcp_gateway.downstream.processes import group_alive, signal_group
from mcp_gateway.downstream.stderr_log import ServerNotes, StderrLog
from mcp_gateway.downstream.stderr_tail import ENDING_WAIT_SECONDS, StderrTail

STDIN_EOF_GRACE_SECONDS = 2.0
"""How long a server gets to exit by itself after its stdin closes (the MCP spec's first shutdown step)."""
SIGTERM_GRACE_SECONDS = 2.0
"""How long its process group gets after SIGTERM before SIGKILL."""
REAP_WAIT_SECONDS = 1.0
"""How long to wait for the kernel to report a SIGKILLed group gone."""
HURRIED_GRACE_SECONDS = 0.75
"""Each of the two graces when the whole gateway is stopping (`hurry`). Its client waits for it: the SDK's
client SIGTERMs it 2 s after closing its stdin and SIGKILLs it 2 s later, and a gateway SIGKILLed before it
has stopped a stubborn server leaves that server running. Both graces, the SIGKILL and the reap then fit
in about 2.5 s, while a server that exits on EOF, as most do, still closes cleanly within the first."""
URGENT_GRACE_SECONDS = 0.03
"""Each of the two graces when the client ends the gateway by a signal. Claude Code sends SIGINT, SIGTERM
100 ms later and SIGKILL about 500 ms after the first (measured with 2.1.332): stdin closed, SIGTERM,
SIGKILL and the reap then fit in about 80 ms, so the gateway has stopped every server and left before the
SIGTERM, and a server that ignores both cannot outlive a gateway SIGKILLed before it could stop it."""
WRITER_FLUSH_SECONDS = 0.5
MAX_LINE_BYTES = 128 * 1024 * 1024
"""A server that writes more than this without a newline is broken or hostile; its connection is closed."""
_POLL_SECONDS = 0.02


@dataclass(frozen=True)
class StdioLaunch:
    command: str
    args: Sequence[str]
    env: Mapping[str, str]
    """The child's complete environment (the caller decides what it inherits)."""
    cwd: str | None
    close_timeout: float
    """Seconds the whole stop sequence may take."""


class StdioTransport:
    """An SDK `Transport`: entering spawns the server and yields its message streams; exiting stops its group."""

    def __init__(
        self,
        server: str,
        launch: StdioLaunch,
        log: StderrLog,
        notes: ServerNotes,
        *,
        records: ProcessRecords | None = None,
        link: Link | None = None,
    ) -> None:
        self._server = server
        self._launch = launch
        self._log = log
        self._notes = notes
        self._records = records
        self._link = link
        self._hurried_grace: float | None = None
        self.pid: int | None = None
        self.exited = anyio.Event()
        """Set when the server's stdout ends: it exited or closed the pipe; no response can come any more."""
        self.stderr = StderrTail()
        """The last lines this run of the server wrote on stderr: what a failed start quotes."""
        self._process: anyio.abc.Process | None = None
        self._context = self._run()

    async def __aenter__(
        self,
    ) -> tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]:
        return await self._context.__aenter__()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        return await self._context.__aexit__(exc_type, exc, tb)

    @asynccontextmanager
    async def _run(
        self,
    ) -> AsyncGenerator[
        tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
    ]:
        launch = self._launch
        process = await anyio.open_process(
            [launch.command, *launch.args],
            env=dict(launch.env),
            cwd=launch.cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        # No awaits until the task group is entered: a cancellation here would leak the child.
        self.pid = process.pid
        self._process = process
        if self._records is not None:
            self._records.add(process.pid, self._server)
        self._notes.info(f"started pid {process.pid}: {launch.command} ({len(launch.args)} args)")
        read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
        writer_done = anyio.Event()

        async def read_stdout() -> None:
            assert process.stdout is not None
            try:
                async with read_send:
                    await self._pump_stdout(process.stdout, read_send)
            finally:
                self.exited.set()

        async def write_stdin() -> None:
            assert process.stdin is not None
            try:
                async with write_receive:
                    async for message in write_receive:
                        try:
                            line = wire.encode(message.message)
                        except wire.UnencodableError as exc:
                            # Unreachable for what the gateway relays: its client side refuses anything
                            # deeper than `wire.MAX_DEPTH`, which `encode` always manages.
                            self._notes.info(f"could not send a message to the server: {exc}")
                            continue
                        await process.stdin.send(line)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                await read_send.aclose()  # the session must see the end, not wait forever
            finally:
                writer_done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(read_stdout)
            tg.start_soon(write_stdin)
            tg.start_soon(self._pump_stderr, process)
            try:
                yield read_receive, write_send
            finally:
                with anyio.CancelScope(shield=True):
                    write_send.close()
                    with anyio.move_on_after(WRITER_FLUSH_SECONDS):
                        await writer_done.wait()
                    await self._stop(process)
                    read_receive.close()
                tg.cancel_scope.cancel()

    async def _pump_stdout(
        self, stdout: anyio.abc.ByteReceiveStream, sink: MemoryObjectSendStream[SessionMessage | Exception]
    ) -> None:
        pieces: list[bytes] = []
        pending = 0
        with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async for chunk in stdout:
                *complete, rest = chunk.split(b"\n")
                for part in complete:
                    pieces.append(part)
                    line = b"".join(pieces)
                    pieces.clear()
                    pending = 0
                    if len(line) < relayed.MIN_RELAYED_BYTES:
                        message = self._parse(line)
                    else:  # read off the event loop, and without models: see `relayed`
                        message = await anyio.to_thread.run_sync(self._parse, line)
                    if message is not None:
                        await sink.send(message)
                    del line, message  # a large answer is not kept alive while the server is quiet
                del complete, chunk
                if rest:
                    pieces.append(rest)
                    pending += len(rest)
                    if pending > MAX_LINE_BYTES:
                        self._notes.info(f"stdout line over {MAX_LINE_BYTES} bytes without a newline; closing")
                        return

    def _parse(self, line: bytes) -> SessionMessage | None:
        if len(line) >= relayed.MIN_RELAYED_BYTES and (response := relayed.read_response(line)) is not None:
            return SessionMessage(response)
        message = wire.decode(line, max_depth=wire.MAX_RELAYED_DEPTH)
        if message is None:
            return None
        if not isinstance(message, wire.Unreadable):
            return SessionMessage(message)
        if message.kind != "request" and message.request_id is not None and self._link is not None:
            self._notes.info(f"a reply for request {message.request_id!r} is not valid JSON-RPC: {message.reason}")
            return self._link.malformed_reply(message)
        self._notes.info(f"ignored a stdout line that is not JSON-RPC ({message.reason}): {message.preview!r}")
        return None

    async def _pump_stderr(self, process: anyio.abc.Process) -> None:
        assert process.stderr is not None
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                async for chunk in process.stderr:
                    self.stderr.extend(self._log.feed(decoder.decode(chunk)))
            self.stderr.extend(self._log.feed(decoder.decode(b"", final=True)))
            self.stderr.extend(self._log.flush())
        finally:
            self.stderr.end()  # also when cut short: nobody waits for more

    async def ended_before_handshake(self) -> EndedBeforeHandshake:
        """What the server left when its stdout closed before its handshake finished: its exit status and what
        it said on stderr, once both are known or `ENDING_WAIT_SECONDS` have passed (its stderr pump may still
        be reading when the end of stdout is seen)."""
        process = self._process
        with anyio.move_on_after(ENDING_WAIT_SECONDS):
            await self.stderr.ended.wait()
            if process is not None:
                await process.wait()
        return EndedBeforeHandshake(process.returncode if process is not None else None, self.stderr.quoted())

    def hurry(self, *, urgent: bool = False) -> None:
        """The whole gateway is stopping (`urgent`: by a signal): this server's graces, begun or to come, shorten."""
        grace = URGENT_GRACE_SECONDS if urgent else HURRIED_GRACE_SECONDS
        self._hurried_grace = grace if self._hurried_grace is None else min(grace, self._hurried_grace)

    def _grace(self, normal: float) -> Callable[[], float]:
        budget = self._launch.close_timeout
        return lambda: self._hurried_grace if self._hurried_grace is not None else min(normal, budget / 2)

    async def _stop(self, process: anyio.abc.Process) -> None:
        """Close stdin, give the server a moment, then SIGTERM and SIGKILL its whole group, within budget."""
        pgid = process.pid
        if process.stdin is not None:
            with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await process.stdin.aclose()
        exited_by_itself = await _wait_exit(process, self._grace(STDIN_EOF_GRACE_SECONDS))
        if not exited_by_itself or group_alive(pgid):
            # Also when the leader left on EOF: a grandchild may still hold the group.
            signal_group(pgid, signal.SIGTERM)
            if not await _wait_group_gone(process, pgid, self._grace(SIGTERM_GRACE_SECONDS)):
                signal_group(pgid, signal.SIGKILL)
                await _wait_group_gone(process, pgid, lambda: REAP_WAIT_SECONDS)
        self._notes.info(f"stopped pid {pgid} (exit status {process.returncode})")
        if self._records is not None:
            self._records.remove(pgid)
        # Its group is gone by now, so its stderr ends at once: read it to the end before the pipe is closed
        # under the pump, or a failed start would quote less than the server said.
        with anyio.move_on_after(self._grace(ENDING_WAIT_SECONDS)()):
            await self.stderr.ended.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    await stream.aclose()


# Polling, not events: the kernel offers no event for "this process group is empty", and process.wait()
# on asyncio also waits for pipe EOF, which a grandchild holding the pipe delays. `grace` is asked again at every
# poll: a stop under way is hurried when the whole gateway begins to stop.


async def _wait_exit(process: anyio.abc.Process, grace: Callable[[], float]) -> bool:
    return await _wait_until(lambda: process.returncode is not None, grace)


async def _wait_group_gone(process: anyio.abc.Process, pgid: int, grace: Callable[[], float]) -> bool:
    def gone() -> bool:
        _ = process.returncode  # reading it lets the event loop reap a zombie leader
        return not group_alive(pgid)

    return await _wait_until(gone, grace)


async def _wait_until(done: Callable[[], bool], grace: Callable[[], float]) -> bool:
    began = anyio.current_time()
    while not done():
        if anyio.current_time() - began >= grace():
            return False
        await anyio.sleep(_POLL_SECONDS)
    return True
