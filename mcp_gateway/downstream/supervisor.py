"""One downstream server's life in the pool: its connection, its start, its idle timer, its probe, its backoff.

Its states, and the only changes between them (`TRANSITIONS`, drawn in docs/architecture.md):

- idle: no connection; the first call starts the server.
- starting: one task spawns and handshakes it, within `connectTimeoutMs`; concurrent first calls wait for it
  (a start that ends with neither a connection nor an error, which only a bug can cause, goes back to idle).
- ready: calls share the one connection; a lazy server is stopped `idleTimeout` after its last call ended.
- draining: the connection was retired; it takes no new call and closes after its last one, while a new call
  starts a fresh process at once (a stubborn server may take seconds to die).
- backing off: the last start failed; calls fail fast with the seconds left in the window (`Backoff`).
- stopped: the gateway is stopping; nothing starts again.

Every change goes through `_enter`, which refuses one `TRANSITIONS` does not allow and notes each in the
server's log. Every connection, retired ones still closing included, is owned by one task (`_own`), which enters
and exits the SDK client in that one task (the SDK requires it); that task, the connection's idle timer and its
liveness probes run in the pool's task group, and a server that does not run costs no task at all.

The backoff window starts at `failureBackoffMs` and doubles with each further failure in a row (a success clears
it), up to `MAX_BACKOFF_SECONDS`, so a broken server costs one failed start per window instead of one per call,
while a server that recovers is back within the first window.
"""

from __future__ import annotations

import enum
import math
import signal
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field

import anyio

from mcp_gateway.background import BackgroundTasks
from mcp_gateway.config import ServerConfig, Settings
from mcp_gateway.downstream.connection import Connection, LinkLost, OpenedClient
from mcp_gateway.downstream.error_journal import ErrorRecord, JournalUpdates
from mcp_gateway.downstream.processes import signal_group
from mcp_gateway.downstream.stderr_log import ServerNotes
from mcp_gateway.downstream.stderr_tail import SEPARATOR
from mcp_gateway.downstream.translate import (
    backoff_refusal,
    call_failure,
    crash,
    early_exit,
    ending,
    innermost,
    start_failure,
)
from mcp_gateway.errors import CallTimeoutError, DownstreamError, ShuttingDownError, SignInRequiredError

EARLY_EXIT_SECONDS = 10.0
"""A server that exits this soon after its handshake, before answering any tool call, failed to start."""
LIST_OPERATION = "tools/list"
BUSY_RECHECK_SECONDS = 1.0
"""How often at most the idle timer of a server with calls running looks again (a call does not wake it)."""


class State(enum.Enum):
    IDLE = "idle"
    STARTING = "starting"
    READY = "ready"
    DRAINING = "draining"
    BACKING_OFF = "backing off"
    STOPPED = "stopped"


TRANSITIONS: dict[State, frozenset[State]] = {
    State.IDLE: frozenset({State.STARTING, State.STOPPED}),
    State.STARTING: frozenset({State.READY, State.BACKING_OFF, State.IDLE, State.STOPPED}),
    State.READY: frozenset({State.DRAINING, State.BACKING_OFF, State.STOPPED}),
    State.DRAINING: frozenset({State.IDLE, State.STARTING, State.BACKING_OFF, State.STOPPED}),
    State.BACKING_OFF: frozenset({State.STARTING, State.STOPPED}),
    State.STOPPED: frozenset(),
}


@dataclass(frozen=True)
class ServerStatus:
    state: State
    running: bool
    pid: int | None
    in_flight: int
    protocol_version: str | None
    last_error: ErrorRecord | None
    backoff_seconds_left: float


MAX_BACKOFF_SECONDS = 15 * 60.0
"""The longest window, however many failures in a row: a fixed server is never shut out for long."""


class Backoff:
    def __init__(self, base_seconds: float) -> None:
        self._base = base_seconds
        self.failures = 0
        """Failed starts in a row."""
        self.until = 0.0
        """When the window ends (event-loop time)."""

    def failed(self, now: float) -> None:
        self.failures += 1
        delay = min(self._base * 2 ** (self.failures - 1), max(self._base, MAX_BACKOFF_SECONDS))
        self.until = now + delay

    def cleared(self) -> None:
        self.failures = 0
        self.until = 0.0

    def seconds_left(self, now: float) -> float:
        return max(0.0, self.until - now)


MILLISECONDS = 1000.0


PROBE_SECONDS = 5.0
"""How long a connection whose call timed out gets to answer a trivial request before it is retired."""


@dataclass(frozen=True)
class ServerContext:
    notes: ServerNotes
    mask: Callable[[str], str]
    journal: JournalUpdates
    connect: Callable[[AsyncExitStack], Awaitable[OpenedClient]]
    """Spawn or reach the server and handshake; everything entered is unwound by the stack."""
    remember_protocol: Callable[[str], None]
    connect_seconds: float
    request_seconds: float
    close_seconds: float
    idle_seconds: float | None
    """None: never stopped for being idle (`eager`, `keep-alive`, or an `idleTimeout` of 0 or less)."""
    failure_backoff_seconds: float
    stderr_log_path: str | None
    """Where a stdio server's own stderr is kept; None for a remote server, which has none."""
    probe_seconds: float


def close_seconds(server: ServerConfig, settings: Settings) -> float:
    """The budget for stopping the server's process (`closeTimeoutMs`: its own, else the gateway's)."""
    return (server.spec.close_timeout_ms or settings.close_timeout_ms) / MILLISECONDS


@dataclass
class _Start:
    """One start attempt: what its waiters learn when it ends."""

    done: anyio.Event = field(default_factory=anyio.Event)
    connection: Connection | None = None
    error: DownstreamError | None = None
    connecting: anyio.CancelScope | None = None
    """Cancelled when the pool stops: a server still starting must not hold the gateway's exit up."""


class Supervisor:
    def __init__(self, server: ServerConfig, context: ServerContext) -> None:
        self.server = server
        self._context = context
        self._name = server.name
        self._notes = context.notes
        self.state = State.IDLE
        self._current: Connection | None = None
        self._start: _Start | None = None
        self._open: set[Connection] = set()
        """Every connection not yet closed: the current one and retired ones still finishing or stopping."""
        self._backoff = Backoff(context.failure_backoff_seconds)
        self._last_error: ErrorRecord | None = None
        self._last_ending: str | None = None
        """How the last start ended if the server exited before its handshake (`translate.ending`) or soon after
        it (`early: …`), until a start answers a tool call: a start that ends just so again is not worth a retry."""
        self._tasks: BackgroundTasks | None = None
        self._probes: set[anyio.CancelScope] = set()
        self._idle_waits: set[anyio.Event] = set()
        self._urgent = False
        """One per idle timer waiting; all are set when a call ends or the connection changes."""

    # Lifetime: its tasks run in the pool's task group, whose exit waits for them within the close budget.

    def attach(self, tasks: BackgroundTasks) -> None:
        """Where this server's tasks run (a connection's owner, its idle timer, a probe): the pool's group."""
        self._tasks = tasks

    def urge(self) -> None:
        """The client is ending the gateway by a signal: every stop of this server, begun or to come, is urgent."""
        self._urgent = True
        for connection in self._open:
            connection.hurry(urgent=True)  # see URGENT_GRACE_SECONDS

    def stop(self) -> None:
        """Take no new call, cut a start short, and close every connection (their graces hurried)."""
        self._enter(State.STOPPED, "the gateway is stopping")
        for connection in self._open:
            connection.hurry(urgent=self._urgent)  # its client will not wait long: see HURRIED_GRACE_SECONDS
            self._retire(connection, None)
        if self._start is not None and self._start.connecting is not None:
            self._start.connecting.cancel()
        for probe in self._probes:
            probe.cancel()
        self._wake_idle_timers()

    def reconfigure(self, server: ServerConfig, context: ServerContext) -> None:
        """Read new timeouts and lifecycle for the same connection (a live config edit), from the next call on."""
        self.server, self._context = server, context

    def kill(self) -> None:
        """SIGKILL the process group of every connection at once: a stop that cannot wait any more."""
        for connection in self._open:
            if connection.pid is not None:
                signal_group(connection.pid, signal.SIGKILL)

    def tools_changed(self) -> None:
        """The server said its tools changed: what its connection listed first is no longer the news."""
        if self._current is not None:
            self._current.tools_changed()

    def status(self) -> ServerStatus:
        connection = self._current
        return ServerStatus(
            state=self.state,
            running=connection is not None and connection.usable,
            pid=connection.pid if connection is not None else None,
            in_flight=connection.in_flight if connection is not None else 0,
            protocol_version=connection.protocol_version if connection is not None else None,
            last_error=self._last_error,
            backoff_seconds_left=self._backoff.seconds_left(anyio.current_time()),
        )

    # Calls.

    @asynccontextmanager
    async def borrowed(self, operation: str, *, retry_safe: bool) -> AsyncGenerator[tuple[Connection, float]]:
        """The connection for one request and its timeout, counted in and out (the idle timer waits for it);
        a failure leaves as a `DownstreamError`, and a timeout has the connection probed."""
        timeout = self._context.request_seconds
        connection = await self._acquire()
        connection.begin_call()
        try:
            yield connection, timeout
            if operation != LIST_OPERATION:
                connection.answered = True
                self._last_ending = None  # a start that worked: the next failure is judged afresh
        except Exception as exc:
            error = call_failure(
                self._name, operation, exc, timeout_seconds=timeout, retry_safe=retry_safe, mask=self._context.mask
            )
            self._note_error(error)
            if isinstance(innermost(exc), LinkLost) and (connection.usable or connection.crashed):
                # Judged now, not only when the exit is seen: the caller's next call may come first.
                said = await connection.stderr.said() if connection.stderr is not None else ()
                self._exited_early(connection, said)
            if isinstance(error, CallTimeoutError):
                self._probe(connection)
            raise error from exc
        finally:
            connection.end_call()

    def start_eagerly(self) -> None:
        if self.state in (State.IDLE, State.DRAINING):
            self._begin_start()

    async def _acquire(self) -> Connection:
        while True:
            if self.state is State.STOPPED:
                raise ShuttingDownError(
                    "The gateway is shutting down and takes no new calls.",
                    server=self._name,
                    phase="tool_call",
                    retryable=True,
                )
            if self.state is State.READY and self._current is not None:
                return self._current
            start = self._start
            if start is None:
                self._refuse_inside_backoff()
                start = self._begin_start()
            await start.done.wait()
            if start.error is not None:
                raise start.error
            # A connection just started can be retired before this waiter resumes: look again.

    def _refuse_inside_backoff(self) -> None:
        left = self._backoff.seconds_left(anyio.current_time())
        if self.state is State.BACKING_OFF and left > 0:
            raise backoff_refusal(self._name, left, self._last_error)

    # Starting, serving, closing: one task per connection.

    def _begin_start(self) -> _Start:
        assert self._tasks is not None
        self._enter(State.STARTING, "a call needs it" if self.server.spec.lifecycle != "eager" else "it is eager")
        start = self._start = _Start()
        self._tasks.start_soon(self._own, start, name=f"the connection to '{self._name}'")
        return start

    async def _own(self, start: _Start) -> None:
        """Connect (within `connectTimeoutMs`), serve until retired, close: all in this one task."""
        connection: Connection | None = None
        timeout = self._context.connect_seconds
        try:
            # The deadline covers the connect only and is lifted once the handshake is done (the client's task
            # groups, entered inside it, must not outlive an inner cancel scope).
            with anyio.CancelScope(deadline=anyio.current_time() + timeout) as connecting:
                start.connecting = connecting
                if self.state is State.STOPPED:
                    connecting.cancel()
                async with AsyncExitStack() as stack:
                    try:
                        opened = await self._context.connect(stack)
                    except Exception as exc:
                        self._start_failed(start, exc)
                        return
                    connecting.deadline = math.inf
                    start.connecting = None
                    connection = self._ready(start, opened)
                    await self._serve(connection)
            if connecting.cancelled_caught and connection is None and self.state is not State.STOPPED:
                self._start_failed(start, TimeoutError())
        finally:
            self._closed(start, connection)

    def _ready(self, start: _Start, opened: OpenedClient) -> Connection:
        connection = Connection(self._name, opened)
        self._open.add(connection)
        if self.state is State.STOPPED:  # connected just as the pool stopped: close it at once
            connection.hurry(urgent=self._urgent)
            self._retire(connection, None)
            start.done.set()
            return connection
        self._current = start.connection = connection
        self._start = None
        if self._backoff.failures or self._last_error is not None:
            self._context.journal.clear(self._name)
        self._backoff.cleared()
        self._last_error = None
        self._context.remember_protocol(connection.protocol_version)
        self._enter(State.READY, f"connected (protocol {connection.protocol_version})")
        start.done.set()
        if self._context.idle_seconds is not None:
            assert self._tasks is not None
            self._tasks.start_soon(
                self._stop_when_idle, connection, self._context.idle_seconds, name=f"the idle timer of '{self._name}'"
            )
        return connection

    async def _serve(self, connection: Connection) -> None:
        """Until the connection is retired (or its process exits); then until its last call has ended."""
        async with anyio.create_task_group() as watch:

            async def retire_when_exited() -> None:
                assert connection.exited is not None
                await connection.exited.wait()
                connection.crashed = not connection.stop.is_set()
                self._retire(connection, "its process exited" if connection.crashed else None)

            if connection.exited is not None:
                watch.start_soon(retire_when_exited)
            await connection.stop.wait()
            watch.cancel_scope.cancel()
        if self.state is not State.STOPPED and not connection.crashed:
            await connection.idle.wait()  # a retired connection closes when its last call ends

    def _start_failed(self, start: _Start, exc: BaseException) -> None:
        error = start_failure(
            self._name,
            exc,
            timeout_seconds=self._context.connect_seconds,
            stderr_log=self._context.stderr_log_path,
            mask=self._context.mask,
            previous_ending=self._last_ending,
            misspelt=self.server.misspelt,
        )
        self._last_ending = ending(exc)
        self._notes.info(f"start failed: {error.message}")
        if not isinstance(error, SignInRequiredError):  # fixed by `login` at a shell: the next call must not wait
            self._backoff.failed(anyio.current_time())
        self._note_error(error)
        start.error = error
        self._start = None
        if self.state is State.STARTING:
            self._enter(State.BACKING_OFF, "its start failed")

    def _closed(self, start: _Start, connection: Connection | None) -> None:
        if connection is not None:
            self._open.discard(connection)
            said = connection.stderr.quoted() if connection.stderr is not None else ()  # its stderr has ended
            if connection.crashed and not self._exited_early(connection, said) and not connection.failed_start:
                self._note_error(crash(self._name, self._context.stderr_log_path))
            if self._current is connection:  # its task ended while it was current (cancelled, or its client failed)
                self._retire(connection, "its connection ended")
        if self._start is start:
            self._start = None
            if self.state is State.STARTING:
                self._enter(State.IDLE, "its start was cut short")
        start.done.set()
        if self.state is State.DRAINING and not self._open:
            self._enter(State.IDLE, "its last connection closed")
        self._wake_idle_timers()

    def _retire(self, connection: Connection, why: str | None) -> None:
        """Take no new call on `connection` and let it close after its last one; the next call starts afresh.

        It stops being current at once, not when its process has finally stopped (a stubborn one takes seconds):
        a call arriving meanwhile must start a new process, not wait for the old one to die.
        """
        connection.usable = False
        connection.stop.set()
        if self._current is connection:
            self._current = None
            if self.state is State.READY:
                self._enter(State.DRAINING, why or "retired")
        self._wake_idle_timers()

    # Deaths soon after the handshake count as failed starts.

    def _exited_early(self, connection: Connection, said: tuple[str, ...]) -> bool:
        """Count a connection that ended soon after its handshake, before answering a tool call, as a failed
        start (once), quoting what it `said` on stderr, and retire it. Whether it counted."""
        lived = anyio.current_time() - connection.opened_at
        if connection.failed_start or connection.answered or lived > EARLY_EXIT_SECONDS:
            return False
        connection.failed_start = True
        self._retire(connection, "it exited soon after it started")
        ended = f"early: {SEPARATOR.join(said)}"
        error = early_exit(self._name, lived, self._context.stderr_log_path, said, repeated=ended == self._last_ending)
        self._last_ending = ended
        self._notes.info(f"start failed: {error.message}")
        self._backoff.failed(anyio.current_time())
        self._note_error(error)
        if self.state in (State.READY, State.DRAINING):
            self._enter(State.BACKING_OFF, "it exited soon after it started")
        return True

    # Wedged connections.

    def _probe(self, connection: Connection) -> None:
        if connection.probing or not connection.usable or self.state is State.STOPPED:
            return
        assert self._tasks is not None
        connection.probing = True
        self._tasks.start_soon(self._retire_if_wedged, connection, name=f"the liveness probe of '{self._name}'")

    async def _retire_if_wedged(self, connection: Connection) -> None:
        """A slow tool is not a dead server: retire the connection only if a trivial request goes unanswered too."""
        responds = True
        with anyio.CancelScope() as scope:  # cut short by `stop`: a stopping gateway waits for no probe
            self._probes.add(scope)
            try:
                responds = await connection.responds(timeout_seconds=self._context.probe_seconds)
            except Exception:  # any failure of the probe itself means the connection is unusable
                responds = False
            finally:
                connection.probing = False
                self._probes.discard(scope)
        if responds or not connection.usable:
            self._notes.info("kept the connection: it answered a liveness probe after a call timed out")
            return
        self._notes.info(
            f"retiring the connection: it did not answer a liveness probe within {self._context.probe_seconds:g}s "
            "after a call timed out; the next call starts a fresh process"
        )
        self._retire(connection, "it stopped answering")

    # The idle timer.

    async def _stop_when_idle(self, connection: Connection, idle_seconds: float) -> None:
        """Retire `connection` `idle_seconds` after its last call ended, never while one runs; runs while it is
        the current connection (a server that is not running costs no task). Calls do not wake it: it wakes at
        the deadline it last computed (`BUSY_RECHECK_SECONDS` on while calls run) and computes it again from the
        last call's end, so a call costs the timer nothing."""
        while connection is self._current and connection.usable and self.state is not State.STOPPED:
            now = anyio.current_time()
            if connection.in_flight:
                deadline = now + max(idle_seconds, BUSY_RECHECK_SECONDS)
            elif (deadline := connection.last_used + idle_seconds) <= now:
                self._notes.info(f"stopping after {idle_seconds:g}s idle")
                self._retire(connection, f"idle for {idle_seconds:g}s")
                return
            wake = anyio.Event()
            self._idle_waits.add(wake)
            try:
                with anyio.move_on_after(deadline - now):
                    await wake.wait()
            finally:
                self._idle_waits.discard(wake)

    def _wake_idle_timers(self) -> None:
        for wake in self._idle_waits:
            wake.set()

    # State and errors.

    def _enter(self, state: State, why: str) -> None:
        if state is self.state:
            return
        if state not in TRANSITIONS[self.state]:
            raise RuntimeError(f"server '{self._name}': no transition from {self.state.value} to {state.value}")
        self._notes.info(f"{self.state.value} → {state.value}: {why}")
        self.state = state

    def _note_error(self, error: DownstreamError) -> None:
        """Every error the supervisor raises passes here first: its message is masked in place (the same error
        is raised to the caller and to every waiter of a shared start), then kept as the server's last error."""
        error.redact(self._context.mask)
        self._last_error = ErrorRecord(error.phase, error.message, error.retryable, time.time())
        self._context.journal.record(self._name, self._last_error)
