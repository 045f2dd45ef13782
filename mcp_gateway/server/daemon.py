"""The gateway daemon: what serves every session, the workspace's shared one and a session's private one alike.

A session front (`front.launch`) always talks to a daemon. The shared daemon listens on the workspace's socket
(0600, in the private runtime directory) and serves every front of the workspace with one catalog, one index
and one pool; a private daemon serves the one connection it inherited from its front (a socket pair), has no
listening socket and no state file, and leaves when its session does. Both are this code: they differ only in
their door (`ListeningDoor`, `PrivateDoor`) and so in who else may connect.

Order of a start: the program has read the config and made the handshake before this runs (`program`), so the
door opens and each front's hello is answered at once, while the SDK, the service and the pool are imported in
a worker thread (`session`); each greeted session is served once they are. Per connection: its peer must be
this user (`peer`), its hello must speak this protocol and version, and its answer carries the handshake its
session is built from (the front's own instructions when it said some, else what the gateway says now), so
the front answers the client's `initialize` and `tools/list` whatever this process is busy with.

Nothing one connection does may end the daemon or stall the others: each is served in its own guarded task
(an error is logged, its session ends, the daemon serves on), `accept` backs off on a full descriptor table
(EMFILE, ENFILE) instead of failing, and the daemon raises its own soft descriptor limit at start.

One shutdown rule for every daemon (`stopping.Stopper`): a stop signal, the shared daemon's last session gone
for `grace_seconds`, or the private daemon's session over ends serving; every session's calls are cancelled
and every server stopped in parallel, under one bound. A stop is urgent (every grace a few milliseconds) when
a signal asks for it, or when a private daemon's front is gone rather than closed (its client is ending the
session by signals and kills soon after).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

import anyio
import anyio.abc
import anyio.to_thread
from anyio.streams.buffered import BufferedByteReceiveStream
from anyio.streams.memory import MemoryObjectSendStream

from mcp_gateway import __version__
from mcp_gateway.front.early_answers import Handshake
from mcp_gateway.front.hello import HELLO_SECONDS, MAX_HELLO_BYTES, Answer, BadHello, Hello
from mcp_gateway.front.launch import STOP_SIGNALS
from mcp_gateway.front.rendezvous import FRONT_PROTOCOL, sweep
from mcp_gateway.server.allocator import allocate_large_blocks_apart
from mcp_gateway.server.doors import Door, raise_descriptor_limit
from mcp_gateway.server.peer import same_user
from mcp_gateway.server.stopping import Stopper

if TYPE_CHECKING:
    from mcp_gateway.config import GatewayConfig
    from mcp_gateway.server.session import Serving

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Greeted:
    """A connection whose hello was accepted and answered, to be served as one MCP session."""

    stream: anyio.abc.SocketStream
    reader: BufferedByteReceiveStream
    hello: Hello
    said: Handshake


class Handshakes:
    """What a hello is answered with: the handshake made before serving began, then what the gateway says now."""

    def __init__(self, early: Handshake) -> None:
        self._early = early
        self._serving: Serving | None = None
        self.ready = anyio.Event()

    def serving(self, serving: Serving) -> None:
        self._serving = serving
        self.ready.set()

    async def for_hello(self, hello: Hello) -> Handshake:
        if hello.instructions is not None:  # what the front has answered, or will answer, its client with
            return self._early._replace(instructions=hello.instructions)
        if self._serving is None:
            return self._early
        return await self._serving.handshake()


async def run_daemon(
    home: str | None,
    config: GatewayConfig,
    door: Door,
    early: Handshake,
    *,
    grace_seconds: float,
    leave: Callable[[int], NoReturn],
    problem: str | None = None,
) -> int:
    """Serve whoever comes through `door` until stopped (see the module's docstring); the exit status.
    `problem`: why config.json could not be used (then `config` is its last good version, or empty)."""
    raise_descriptor_limit()
    allocate_large_blocks_apart()
    stopper = Stopper(leave)
    handshakes = Handshakes(early)
    sessions = Sessions()
    greeted_send, greeted_receive = anyio.create_memory_object_stream[Greeted]()

    async def welcome(stream: anyio.abc.SocketStream) -> None:
        await _guarded("greeting a session", _welcome(stream, handshakes, greeted_send.clone(), sessions))

    try:
        with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
            async with anyio.create_task_group() as watchers:
                watchers.start_soon(stopper.watch, signals)
                watchers.start_soon(stopper.enforce_bound)
                watchers.start_soon(door.accept_each, welcome)
                if door.socket_path is not None:  # what earlier daemons and versions left in the runtime directory
                    watchers.start_soon(anyio.to_thread.run_sync, sweep, door.socket_path.parent)
                # Imported while the door already answers hellos: the SDK, the service, the catalog and the pool.
                module = await anyio.to_thread.run_sync(importlib.import_module, "mcp_gateway.server.session")
                async with module.Serving(home, config, door.socket_path, grace_seconds, problem) as serving:
                    # What the daemon holds for its life (the modules, the SDK's schemas, the catalog as loaded)
                    # is kept out of the collector's full passes: one took 70 ms with nothing to free, while no
                    # session moved (`python -m benchmarks.fairness`). Freed by reference counts as ever.
                    gc.freeze()
                    stopper.kill_everything = serving.kill_everything
                    stopper.hurry_everything = serving.hurry
                    handshakes.serving(serving)
                    watchers.start_soon(door.watch, serving.hurry)
                    with anyio.CancelScope() as serving_scope:
                        stopper.serve_in(serving_scope)
                        await _serve_sessions(
                            serving,
                            door,
                            greeted=greeted_receive,
                            sessions=sessions,
                            grace_seconds=grace_seconds,
                            scope=serving_scope,
                        )
                    stopper.serving_ended()
                watchers.cancel_scope.cancel()
    finally:
        door.close()
    return stopper.exit_status


async def _serve_sessions(
    serving: Serving,
    door: Door,
    *,
    greeted: anyio.abc.ObjectReceiveStream[Greeted],
    sessions: Sessions,
    grace_seconds: float,
    scope: anyio.CancelScope,
) -> None:
    async with anyio.create_task_group() as tg:
        if not door.private:
            tg.start_soon(_stop_when_idle, sessions, grace_seconds, scope)
            tg.start_soon(serving.keep_state)

        async def serve(session: Greeted) -> None:
            try:
                await _guarded("serving a session", serving.serve(session, max_line_bytes=door.max_line_bytes))
            finally:
                sessions.closed()
                if door.private:
                    door.session_ended(serving.hurry)
                    scope.cancel()  # its one session is over: so is a private daemon

        async with greeted:
            async for session in greeted:
                tg.start_soon(serve, session)


async def _stop_when_idle(sessions: Sessions, grace_seconds: float, scope: anyio.CancelScope) -> None:
    await sessions.idle_for(grace_seconds)
    scope.cancel()


async def _welcome(
    stream: anyio.abc.SocketStream, handshakes: Handshakes, greeted: MemoryObjectSendStream[Greeted], sessions: Sessions
) -> None:
    """Read `stream`'s hello and answer it; an accepted session goes on to `greeted`, to be served."""
    handed_over = False
    try:
        async with greeted:
            raw = stream.extra(anyio.abc.SocketAttribute.raw_socket)
            if not same_user(raw):
                logger.warning("refused a connection from another user")
                return
            reader = BufferedByteReceiveStream(stream)
            hello = await _hello(reader)
            if isinstance(hello, str):
                await stream.send(Answer(False, __version__, hello).encode())
                return
            said = await handshakes.for_hello(hello)
            await stream.send(await anyio.to_thread.run_sync(Answer(True, __version__, handshake=said).encode))
            sessions.opened()
            try:
                await greeted.send(Greeted(stream, reader, hello, said))
                handed_over = True
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                return  # the daemon stopped serving while this session waited for it
            finally:
                if not handed_over:
                    sessions.closed()
    finally:
        if not handed_over:
            await stream.aclose()


async def _hello(reader: BufferedByteReceiveStream) -> Hello | str:
    """The front's hello, or why the session is refused."""
    try:
        with anyio.fail_after(HELLO_SECONDS):
            line = await reader.receive_until(b"\n", MAX_HELLO_BYTES)
        hello = Hello.decode(line)
    except (TimeoutError, anyio.EndOfStream, anyio.IncompleteRead, anyio.DelimiterNotFound, BadHello) as exc:
        return f"no usable hello ({exc or type(exc).__name__})"
    if hello.protocol != FRONT_PROTOCOL or hello.version != __version__:
        return (
            f"this daemon is mcp-gateway {__version__} (front protocol {FRONT_PROTOCOL}), the front "
            f"{hello.version} (protocol {hello.protocol})"
        )
    if not os.path.isabs(hello.cwd):  # a server without its own cwd runs there: never relative to the daemon's
        return f"the session's working directory {hello.cwd!r} is not an absolute path"
    return hello


async def _guarded(what: str, work: Awaitable[None]) -> None:
    """Run one connection's `work`: whatever it raises ends that connection only, logged, never the daemon. A
    front gone while it was being answered is no failure: its client left (or gave up waiting)."""
    try:
        await work
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream, ConnectionError) as gone:
        logger.debug("a front left while %s: %r", what, gone)
    except Exception:
        logger.exception("a connection's task failed while %s; the daemon serves on", what)


class Sessions:
    """The sessions being served; `idle_for` ends once none has been served for the grace period."""

    def __init__(self) -> None:
        self.count = 0
        self._changed = anyio.Event()

    def opened(self) -> None:
        self.count += 1
        self._wake()

    def closed(self) -> None:
        self.count -= 1
        self._wake()

    async def idle_for(self, seconds: float) -> None:
        while True:
            while self.count:
                await self._changed.wait()
            with anyio.move_on_after(seconds):
                await self._changed.wait()
                continue
            if not self.count:
                return

    def _wake(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()


def leave_now(status: int) -> NoReturn:
    """End the process now that its shutdown is over (or was forced), skipping only the interpreter's teardown.

    After the last useful thing is done, the interpreter would still spend 0.15 to 0.5 s tearing down some
    700 imported modules and the objects they hold, memory the kernel frees anyway. What must happen at exit
    still happens: the orderly shutdown has stopped every server and closed the workspace files, the exit
    handlers run here (logging flushes and closes its handlers), and stdio is flushed.
    """
    import atexit

    atexit._run_exitfuncs()  # pyright: ignore[reportPrivateUsage]  # os._exit would skip them
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)
