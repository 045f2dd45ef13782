"""The gateway daemon, `mcp-gateway daemon`: what serves every session, the workspace's shared one and a
session's private one alike.

A session front (`front.launch`) always talks to a daemon. `[--home H] daemon --socket PATH` is the workspace's
shared daemon, listening on PATH (0600, in the private runtime directory) for every front of the workspace,
with one catalog, one index and one pool. `--connection FD` is a private one: it serves the one connection it
inherited on FD (a socket pair), has no listening socket and no state file, and leaves with its session. They
differ only in their door (`doors`), and so in who else may connect.

A start answers the first front as early as it can: read the config (a file that cannot be used is served as
its last good version, or no servers, every search saying why), set up logging (masked; `debug` also writes
`logs/gateway.log`), make the handshake from the config and the catalog's digest and remember it for the next
cold start (`front.remembered_handshake`), then open the door: hellos are answered at once while the SDK, the
service and the pool are imported in a worker thread (`session`), and each greeted session is served once they
are. A hello's answer carries the handshake the session is built from (the front's own instructions when it
said some, else the gateway's now), so the front answers its client's `initialize` and `tools/list` whatever
this process is busy with. Each connection is greeted and served in a guarded task of its own: what it raises
ends it alone, never the daemon.

One shutdown rule (`stopping.Stopper`): a stop signal, the shared daemon's last session gone for
`grace_seconds`, or the private daemon's session over ends serving; every call is cancelled and every server
stopped in parallel, under one bound. It is urgent when signalled, or when a private daemon's front is gone
rather than closed (its client is ending the session by signals and kills soon after).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import importlib
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import anyio
import anyio.abc
import anyio.to_thread

from mcp_gateway import __version__
from mcp_gateway.daemon import DaemonSessions
from mcp_gateway.front.early_answers import Handshake
from mcp_gateway.front.hello import Answer, Hello
from mcp_gateway.front.launch import DAEMON_COMMAND, STOP_SIGNALS
from mcp_gateway.front.remembered_handshake import remember, remembered, remembered_path, signatures_now
from mcp_gateway.front.rendezvous import sweep
from mcp_gateway.gateway_log import log_to_file, log_to_stderr
from mcp_gateway.masking import SecretMask
from mcp_gateway.server.doors import Door, Greeted, ListeningDoor, PrivateDoor, raise_descriptor_limit, welcome_session
from mcp_gateway.server.stopping import Stopper
from mcp_gateway.service.home import gateway_log_path, serving_config
from mcp_gateway.service.surface import handshake_instructions, handshake_sources, meta_tool_definitions
from mcp_gateway.terminal import guard_terminals

if TYPE_CHECKING:
    from mcp_gateway.config import GatewayConfig
    from mcp_gateway.server.session import Serving

logger = logging.getLogger(__name__)

M_MMAP_THRESHOLD = -3
"""glibc's mallopt parameter (malloc.h)."""
MMAP_THRESHOLD_BYTES = 128 * 1024


def run_daemon_command(argv: Sequence[str]) -> NoReturn:
    parser = argparse.ArgumentParser(prog="mcp-gateway daemon", description="What a session front starts.")
    parser.add_argument("--home")
    parser.add_argument("command", choices=[DAEMON_COMMAND])
    door_arguments = parser.add_mutually_exclusive_group(required=True)
    door_arguments.add_argument("--socket", type=Path, help="serve every session of the workspace on this socket")
    door_arguments.add_argument("--connection", type=int, help="serve the one connection inherited on this descriptor")
    parser.add_argument("--remember", type=Path, help="the shared socket's path, to remember the handshake beside")
    parser.add_argument("--grace", type=float)
    args = parser.parse_args(argv)
    guard_terminals()  # a private daemon's stderr is its session's, a terminal when a person runs it
    sources = signatures_now(handshake_sources(args.home))  # before they are read
    config, problem = serving_config(args.home)
    secrets = SecretMask.for_servers(config.servers.values(), os.environ)
    log_to_stderr(secrets)
    said = [f"error: {problem}"] if problem is not None else [f"{d.severity}: {d}" for d in config.diagnostics]
    for line in said:
        print(secrets.mask(f"mcp-gateway: {line}"), file=sys.stderr, flush=True)
    if config.settings.debug and (log_path := gateway_log_path(args.home)) is not None:
        log_to_file(log_path, secrets)  # everything, masked and private
    early = Handshake(handshake_instructions(args.home, config), meta_tool_definitions())
    beside: Path | None = args.socket or args.remember
    # Kept for the next cold start when made from the file as it is (not a fallback) and not kept already.
    if beside is not None and problem is None and remembered(remembered_path(beside), os.environ) != early:
        remember(remembered_path(beside), os.environ, sources, Answer(True, __version__, handshake=early).encode())
    if args.connection is not None:
        door: Door = PrivateDoor(args.connection)
        grace = 0.0
    else:
        door = ListeningDoor(args.socket)
        grace = args.grace if args.grace is not None else config.settings.daemon_grace_seconds
    leave_now(
        anyio.run(
            lambda: run_daemon(args.home, config, door, early, grace_seconds=grace, leave=leave_now, problem=problem)
        )
    )


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
    sessions = DaemonSessions()
    serving: Serving | None = None
    greeted_send, greeted_receive = anyio.create_memory_object_stream[Greeted]()

    async def handshake(hello: Hello) -> Handshake:
        if hello.instructions is not None:  # what the front has answered, or will answer, its client with
            return early._replace(instructions=hello.instructions)
        return early if serving is None else await serving.handshake()

    async def welcome(stream: anyio.abc.SocketStream) -> None:
        await _guarded("greeting a session", welcome_session(stream, handshake, greeted_send.clone(), sessions))

    async def accept() -> None:
        # Once the door has no session left to give, serving ends with the last one served: a private door's one
        # connection gives at most one, and none when its front left before its hello was answered.
        with greeted_send:
            await door.accept_each(welcome)

    try:
        with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
            async with anyio.create_task_group() as watchers:
                watchers.start_soon(stopper.watch, signals)
                watchers.start_soon(stopper.enforce_bound)
                watchers.start_soon(accept)
                if door.socket_path is not None:  # what earlier daemons and versions left in the runtime directory
                    watchers.start_soon(anyio.to_thread.run_sync, sweep, door.socket_path.parent)
                # Imported while the door already answers hellos: the SDK, the service, the catalog and the pool.
                module = await anyio.to_thread.run_sync(importlib.import_module, "mcp_gateway.server.session")
                serving_type: type[Serving] = module.Serving
                async with serving_type(home, config, sessions, problem) as started:
                    serving = started
                    # What the daemon holds for its life (the modules, the SDK's schemas, the catalog as loaded)
                    # is kept out of the collector's full passes: one took 70 ms with nothing to free, while no
                    # session moved (`python -m benchmarks.fairness`). Freed by reference counts as ever.
                    gc.freeze()
                    stopper.kill_everything = serving.gateway.stop_now
                    stopper.hurry_everything = serving.gateway.hurry_stop
                    watchers.start_soon(door.watch, serving.gateway.hurry_stop)
                    with anyio.CancelScope() as serving_scope:
                        stopper.serve_in(serving_scope)
                        await _serve_sessions(serving, door, greeted_receive, grace_seconds, serving_scope)
                    stopper.serving_ended()
                watchers.cancel_scope.cancel()
    finally:
        door.close()
    return stopper.exit_status


async def _serve_sessions(
    serving: Serving,
    door: Door,
    greeted: anyio.abc.ObjectReceiveStream[Greeted],
    grace_seconds: float,
    scope: anyio.CancelScope,
) -> None:
    async def stop_when_idle() -> None:
        await serving.sessions.idle_for(grace_seconds)
        scope.cancel()

    async with anyio.create_task_group() as tg:
        if door.socket_path is not None:
            tg.start_soon(stop_when_idle)
            tg.start_soon(serving.keep_state, door.socket_path, grace_seconds)

        async def serve(session: Greeted) -> None:
            try:
                await _guarded("serving a session", serving.serve(session, max_line_bytes=door.max_line_bytes))
            finally:
                serving.sessions.close(session.session)
                if door.session_ended(serving.gateway.hurry_stop):
                    scope.cancel()  # its one session is over: so is a private daemon

        async with greeted:
            async for session in greeted:
                tg.start_soon(serve, session)


async def _guarded(what: str, work: Awaitable[None]) -> None:
    """Run one connection's `work`: whatever it raises ends that connection only, logged, never the daemon. A
    front gone while it was being answered is no failure: its client left (or gave up waiting)."""
    try:
        await work
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream, ConnectionError) as gone:
        logger.debug("a front left while %s: %r", what, gone)
    except Exception:
        logger.exception("a connection's task failed while %s; the daemon serves on", what)


def allocate_large_blocks_apart() -> None:
    """Memory a daemon freed goes back to the system: large blocks are allocated apart from the heap.

    glibc serves a block of at least its mmap threshold (128 KiB) with a mapping of its own, returned when freed,
    but raises the threshold to each such block freed, up to 32 MiB: after one 10 MB result the next come from
    the heap, whose freed space a daemon keeps. Fixed, the shared daemon kept 10 MB instead of 44 MB after three
    10 MB results and three 50 MB lines (`python -m benchmarks.fairness`). Elsewhere (macOS, musl): nothing.
    """
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        mallopt = ctypes.CDLL(None).mallopt
        mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        mallopt.restype = ctypes.c_int
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)


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
