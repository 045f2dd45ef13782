"""The lazy pool: at most one live connection per downstream server, started on first use, reaped when idle.

Contract (DESIGN §5):
- nothing starts until a call needs it; concurrent first calls share one start;
- each connection is owned by a task in the pool's task group, which enters and exits the SDK client
  (the SDK requires both in the same task); calls borrow it and count themselves in and out;
- a lazy server is stopped `idleTimeout` minutes after its last call ended, never while one runs;
  `eager` servers start once the gateway is ready and `keep-alive` ones are never reaped once started;
- a server whose process ends leaves the pool (its in-flight calls fail with a clear error) and the next
  call starts it again; a server that fails to start is not retried until its backoff window ends
  (doubling on each failure, cleared by a success), and calls inside the window fail fast; a server that
  completes its handshake and then dies soon, before answering a tool call (in `tools/list`, or on every
  call) has failed to start too, or it would be respawned by every call;
- a call that times out makes the pool probe its connection; one that does not answer the probe is
  wedged and retired: new calls get a fresh process, the old one closes after its last call;
- shutdown refuses new work and stops every connection in parallel under one deadline;
- a background task that fails (a connection's owner, the reaper, a probe) is logged and reported by
  `status`, never fatal to the gateway (`mcp_gateway.background`);
- no error leaves the pool, and nothing reaches errors.json or a server's log, without passing through the
  gateway's `SecretMask`: a server may echo its own credential in an error or on stderr.
"""

from __future__ import annotations

import math
import os
import signal
import time
from collections.abc import AsyncGenerator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Protocol

import anyio

from mcp_gateway.background import BackgroundProblems, BackgroundTasks, background_tasks
from mcp_gateway.catalog.records import Listing
from mcp_gateway.config import ServerConfig
from mcp_gateway.config.models import Settings, StdioServer
from mcp_gateway.downstream.connect import ConnectOptions, Connector, open_client
from mcp_gateway.downstream.connection import Connection, LinkLost, ProgressCallback
from mcp_gateway.downstream.error_journal import ErrorJournal, ErrorRecord
from mcp_gateway.downstream.process_records import ProcessRecords
from mcp_gateway.downstream.processes import signal_group
from mcp_gateway.downstream.stderr_log import StderrLog
from mcp_gateway.downstream.translate import call_failure, innermost, start_failure
from mcp_gateway.errors import (
    BackoffError,
    CallTimeoutError,
    DownstreamError,
    ServerStartError,
    ShuttingDownError,
    UnknownServerError,
)
from mcp_gateway.json_object import JsonObject
from mcp_gateway.masking import SecretMask
from mcp_gateway.paths import Workspace

MAX_BACKOFF_SECONDS = 15 * 60.0
WEDGE_PROBE_SECONDS = 5.0
"""How long a connection whose call timed out gets to answer a trivial request before it is retired."""
SHUTDOWN_MARGIN_SECONDS = 1.0
"""Added to the longest close budget for the whole parallel shutdown."""
EARLY_EXIT_SECONDS = 10.0
"""A server that exits this soon after its handshake, before answering any tool call, failed to start."""
LIST_OPERATION = "tools/list"


class ProtocolMemory(Protocol):
    """Where the pool remembers each server's negotiated protocol version (the catalog, in practice)."""

    def recall(self, server: str) -> str | None: ...

    def remember(self, server: str, protocol_version: str) -> None: ...


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    pid: int | None
    in_flight: int
    protocol_version: str | None
    last_error: ErrorRecord | None
    backoff_seconds_left: float


@dataclass
class _StartAttempt:
    done: anyio.Event = field(default_factory=anyio.Event)
    connection: Connection | None = None
    error: DownstreamError | None = None
    connecting: anyio.CancelScope | None = None
    """Cancelled by shutdown: a server still starting must not hold the gateway's exit up."""


@dataclass
class _Slot:
    server: ServerConfig
    connection: Connection | None = None
    attempt: _StartAttempt | None = None
    failures: int = 0
    backoff_until: float = 0.0
    last_error: ErrorRecord | None = None
    log: StderrLog | None = None


class Pool:
    def __init__(
        self,
        servers: Mapping[str, ServerConfig],
        settings: Settings,
        workspace: Workspace,
        *,
        environ: Mapping[str, str] | None = None,
        protocol_memory: ProtocolMemory | None = None,
        records: ProcessRecords | None = None,
        connector: Connector = open_client,
        problems: BackgroundProblems | None = None,
        secrets: SecretMask | None = None,
    ) -> None:
        """`problems`: where the pool's background tasks (connections, reaping, probes) report failures.
        `secrets`: what to mask in errors and logs; by default, every secret of `servers` and `environ`."""
        self._connect = connector
        self._slots = {name: _Slot(server) for name, server in servers.items() if not server.spec.disabled}
        self._settings = settings
        self._workspace = workspace
        self._environ = dict(os.environ if environ is None else environ)
        self._secrets = secrets if secrets is not None else SecretMask.for_servers(servers.values(), self._environ)
        self._memory = protocol_memory
        self._records = records
        self._journal = ErrorJournal(workspace.errors_path, self._secrets.mask)
        self._closing = False
        self._activity = anyio.Event()
        self._running_tasks = 0
        self._all_stopped = anyio.Event()
        self._all_stopped.set()
        self._open: set[Connection] = set()
        """Every connection not yet closed, retired ones still finishing their calls or stopping included."""
        self._tg: BackgroundTasks | None = None
        self._background = background_tasks(problems)

    async def __aenter__(self) -> Pool:
        self._tg = await self._background.__aenter__()
        self._tg.start_soon(self._reap_idle_forever)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        try:
            await self.shutdown()
        finally:
            await self._background.__aexit__(None, None, None)
        return None

    # The pool's public surface: calls, listings, status, lifecycle.

    def knows(self, server: str) -> bool:
        return server in self._slots

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: JsonObject,
        *,
        on_progress: ProgressCallback | None = None,
        retry_safe: bool = False,
    ) -> JsonObject:
        slot = self._slot(server)
        async with self._borrowed(slot, tool, retry_safe=retry_safe) as (connection, timeout):
            return await connection.call_tool(tool, arguments, timeout_seconds=timeout, on_progress=on_progress)

    async def list_tools(self, server: str) -> Listing:
        slot = self._slot(server)
        async with self._borrowed(slot, LIST_OPERATION, retry_safe=True) as (connection, timeout):
            listing = await connection.list_tools(timeout_seconds=timeout)
        return Listing(
            tools=listing.tools,
            skipped=listing.skipped,
            protocol_version=connection.protocol_version,
            server_name=connection.server_name,
            server_version=connection.server_version,
            instructions=connection.instructions,
        )

    @asynccontextmanager
    async def _borrowed(
        self, slot: _Slot, operation: str, *, retry_safe: bool
    ) -> AsyncGenerator[tuple[Connection, float]]:
        """The server's connection for one request and its timeout, counted in and out (idle reaping waits
        for it); a failure leaves as a `DownstreamError`, and a timeout has the connection probed."""
        timeout = self._request_timeout(slot)
        connection = await self._acquire(slot)
        connection.begin_call()
        try:
            yield connection, timeout
            if operation != LIST_OPERATION:
                connection.answered = True
        except Exception as exc:
            error = call_failure(
                slot.server.name,
                operation,
                exc,
                timeout_seconds=timeout,
                retry_safe=retry_safe,
                mask=self._secrets.mask,
            )
            self._note_error(slot, error)
            if isinstance(innermost(exc), LinkLost) and (connection.usable or connection.crashed):
                # Noted here, not only when the exit is seen: the caller's next call may come first.
                self._note_early_exit(slot, connection)
            self._probe_if_timed_out(slot, connection, error)
            raise error from exc
        finally:
            connection.end_call()
            self._activity.set()

    def status(self, server: str) -> ServerStatus:
        slot = self._slots.get(server)
        if slot is None:
            return ServerStatus(False, None, 0, None, None, 0.0)
        connection = slot.connection
        return ServerStatus(
            running=connection is not None and connection.usable,
            pid=connection.pid if connection is not None else None,
            in_flight=connection.in_flight if connection is not None else 0,
            protocol_version=connection.protocol_version if connection is not None else None,
            last_error=slot.last_error,
            backoff_seconds_left=max(0.0, slot.backoff_until - anyio.current_time()),
        )

    def start_eager_servers(self) -> None:
        """Start every `eager` server in the background; called once the gateway answers its client."""
        for slot in self._slots.values():
            if slot.server.spec.lifecycle == "eager" and slot.connection is None and slot.attempt is None:
                self._begin_start(slot)

    async def shutdown(self) -> None:
        """Refuse new work and stop every connection in parallel, within one overall deadline."""
        self._closing = True
        for connection in self._open:
            connection.hurry()  # its client will not wait long for the gateway: see HURRIED_GRACE_SECONDS
        for slot in self._slots.values():
            if slot.connection is not None:
                self._retire(slot, slot.connection)
            if slot.attempt is not None and slot.attempt.connecting is not None:
                slot.attempt.connecting.cancel()
        deadline = max((self._close_timeout(s) for s in self._slots.values()), default=0.0) + SHUTDOWN_MARGIN_SECONDS
        with anyio.move_on_after(deadline, shield=True):
            await self._all_stopped.wait()

    # Starting and sharing connections.

    def _slot(self, server: str) -> _Slot:
        slot = self._slots.get(server)
        if slot is None:
            raise UnknownServerError(f"No enabled server named '{server}'; call search_tools to see what exists.")
        return slot

    async def _acquire(self, slot: _Slot) -> Connection:
        name = slot.server.name
        while True:
            if self._closing:
                raise ShuttingDownError(
                    "The gateway is shutting down and takes no new calls.",
                    server=name,
                    phase="tool_call",
                    retryable=True,
                )
            connection = slot.connection
            if connection is not None and connection.usable:
                return connection
            attempt = slot.attempt
            if attempt is None:
                left = slot.backoff_until - anyio.current_time()
                if left > 0:
                    last = slot.last_error.message if slot.last_error else "it failed to start"
                    raise BackoffError(
                        f"Server '{name}' failed recently and will not be retried for {math.ceil(left)}s "
                        f"(last error: {last}); fix it, or call again after that.",
                        server=name,
                        seconds_left=left,
                    )
                attempt = self._begin_start(slot)
            await attempt.done.wait()
            if attempt.error is not None:
                raise attempt.error
            # A started connection can be retired before this waiter resumes; loop and look again.

    def _begin_start(self, slot: _Slot) -> _StartAttempt:
        assert self._tg is not None
        attempt = _StartAttempt()
        slot.attempt = attempt
        self._running_tasks += 1
        self._all_stopped = anyio.Event()
        self._tg.start_soon(self._own_connection, slot, attempt)
        return attempt

    async def _own_connection(self, slot: _Slot, attempt: _StartAttempt) -> None:
        """The task that owns one connection from start to close (SDK clients close in their own task)."""
        name = slot.server.name
        connection: Connection | None = None
        log = self._log_for(slot)
        timeout = self._connect_timeout(slot)
        try:
            # The deadline covers the connect only; it is lifted once the handshake is done. (A
            # `fail_after` around the connect alone would not do: the client's task groups, entered
            # inside it, must not outlive an inner cancel scope.)
            with anyio.CancelScope(deadline=anyio.current_time() + timeout) as connect_scope:
                attempt.connecting = connect_scope
                if self._closing:
                    connect_scope.cancel()
                async with AsyncExitStack() as stack:
                    try:
                        opened = await self._connect(slot.server, self._connect_options(slot, log), stack)
                    except Exception as exc:
                        self._fail_start(
                            slot,
                            attempt,
                            log,
                            start_failure(
                                name,
                                exc,
                                timeout_seconds=timeout,
                                stderr_log=self._stderr_path(slot, log),
                                mask=self._secrets.mask,
                            ),
                        )
                        return
                    connect_scope.deadline = math.inf
                    attempt.connecting = None
                    connection = Connection(
                        name, opened.client, opened.exited, opened.pid, link=opened.link, hurry=opened.hurry
                    )
                    self._open.add(connection)
                    slot.connection = connection
                    if slot.failures or slot.last_error is not None:
                        self._journal.clear(name)
                    slot.failures = 0
                    slot.backoff_until = 0.0
                    slot.last_error = None
                    if self._memory is not None:
                        self._memory.remember(name, connection.protocol_version)
                    attempt.connection = connection
                    attempt.done.set()
                    await self._serve_until_stopped(slot, connection)
            if connect_scope.cancelled_caught and connection is None and not self._closing:
                error = start_failure(
                    name, TimeoutError(), timeout_seconds=timeout, stderr_log=self._stderr_path(slot, log)
                )
                self._fail_start(slot, attempt, log, error)
        finally:
            if connection is not None:
                self._open.discard(connection)
            if connection is not None and connection.crashed:
                self._note_crash(slot, connection, log)
            if slot.connection is connection:
                slot.connection = None
            if slot.attempt is attempt:
                slot.attempt = None
            attempt.done.set()
            self._running_tasks -= 1
            if self._running_tasks == 0:
                self._all_stopped.set()
            self._activity.set()

    async def _serve_until_stopped(self, slot: _Slot, connection: Connection) -> None:
        async with anyio.create_task_group() as watch:

            async def stop_when_exited() -> None:
                assert connection.exited is not None
                await connection.exited.wait()
                connection.crashed = not connection.stop.is_set()
                self._retire(slot, connection)

            if connection.exited is not None:
                watch.start_soon(stop_when_exited)
            await connection.stop.wait()
            watch.cancel_scope.cancel()
        if not self._closing and not connection.crashed:
            await connection.idle.wait()  # a retired connection closes when its last call ends

    def kill_everything(self) -> None:
        """SIGKILL every server process group at once: the user asked twice to stop, so nothing waits any more."""
        for connection in self._open:
            if connection.pid is not None:
                signal_group(connection.pid, signal.SIGKILL)
        if self._records is not None:
            self._records.kill_all()

    def _retire(self, slot: _Slot, connection: Connection) -> None:
        """Take no new calls on `connection` and let it close after its last one; the next call starts afresh.

        It leaves the slot at once, not when its process has finally stopped (a stubborn one takes seconds):
        a call arriving meanwhile must start a new process, not wait for the old one to die.
        """
        connection.usable = False
        connection.stop.set()
        if slot.connection is connection:
            slot.connection = None
        if slot.attempt is not None and slot.attempt.connection is connection:
            slot.attempt = None

    # Wedged connections.

    def _probe_if_timed_out(self, slot: _Slot, connection: Connection, error: DownstreamError) -> None:
        if not isinstance(error, CallTimeoutError) or connection.probing or not connection.usable or self._closing:
            return
        assert self._tg is not None
        connection.probing = True
        self._tg.start_soon(self._retire_if_wedged, slot, connection)

    async def _retire_if_wedged(self, slot: _Slot, connection: Connection) -> None:
        """A slow tool is not a dead server: retire the connection only if a trivial request goes unanswered too."""
        try:
            responds = await connection.responds(timeout_seconds=WEDGE_PROBE_SECONDS)
        except Exception:  # any failure of the probe itself means the connection is unusable
            responds = False
        finally:
            connection.probing = False
        if not responds and connection.usable:
            self._log_for(slot).note(
                f"retiring the connection: it did not answer a liveness probe within {WEDGE_PROBE_SECONDS:g}s "
                "after a call timed out; the next call starts a fresh process"
            )
            self._retire(slot, connection)

    # Idle reaping.

    async def _reap_idle_forever(self) -> None:
        while True:
            now = anyio.current_time()
            next_deadline = math.inf
            for slot in self._slots.values():
                connection = slot.connection
                idle_seconds = self._idle_seconds(slot)
                if connection is None or not connection.usable or connection.in_flight or idle_seconds is None:
                    continue
                deadline = connection.last_used + idle_seconds
                if deadline <= now:
                    self._log_for(slot).note(f"stopping after {idle_seconds:g}s idle")
                    self._retire(slot, connection)
                else:
                    next_deadline = min(next_deadline, deadline)
            self._activity = anyio.Event()
            with anyio.move_on_after(next_deadline - now):
                await self._activity.wait()

    def _idle_seconds(self, slot: _Slot) -> float | None:
        spec = slot.server.spec
        if spec.lifecycle != "lazy":
            return None
        minutes = spec.idle_timeout if spec.idle_timeout is not None else self._settings.idle_timeout
        return minutes * 60.0 if minutes > 0 else None

    # Errors and backoff.

    def _fail_start(self, slot: _Slot, attempt: _StartAttempt, log: StderrLog, error: DownstreamError) -> None:
        log.note(f"start failed: {error.message}")
        self._note_start_failure(slot, error)
        attempt.error = error

    def _note_start_failure(self, slot: _Slot, error: DownstreamError) -> None:
        slot.failures += 1
        base = self._settings.failure_backoff_ms / 1000.0
        delay = min(base * 2 ** (slot.failures - 1), max(base, MAX_BACKOFF_SECONDS))
        slot.backoff_until = anyio.current_time() + delay
        self._note_error(slot, error)

    def _note_crash(self, slot: _Slot, connection: Connection, log: StderrLog) -> None:
        if not self._note_early_exit(slot, connection) and not connection.failed_start:
            self._note_error(slot, _crash_record(slot.server.name, log))

    def _note_early_exit(self, slot: _Slot, connection: Connection) -> bool:
        """Count a connection that ended soon after its handshake, before answering anything, as a failed start
        (once); retire it so no further call is sent to it. Whether it counted."""
        lived = anyio.current_time() - connection.opened_at
        if connection.failed_start or connection.answered or lived > EARLY_EXIT_SECONDS:
            return False
        connection.failed_start = True
        self._retire(slot, connection)
        log = self._log_for(slot)
        logs = f" Its stderr is in {log.path}." if isinstance(slot.server.spec, StdioServer) else ""
        error = ServerStartError(
            f"Server '{slot.server.name}' exited {lived:.1f}s after it started, before answering a tool call, so "
            f"it counts as a failed start.{logs} Fix the server or its entry in config.json, then call again.",
            server=slot.server.name,
            phase="startup",
            retryable=True,
        )
        log.note(f"start failed: {error.message}")
        self._note_start_failure(slot, error)
        return True

    def _note_error(self, slot: _Slot, error: DownstreamError) -> None:
        """Every error the pool raises passes here first: its message is masked in place (the same error is
        raised to the caller and to every waiter of a shared start), then kept as the server's last error."""
        error.redact(self._secrets.mask)
        slot.last_error = ErrorRecord(error.phase, error.message, error.retryable, time.time())
        self._journal.record(slot.server.name, slot.last_error)

    # Settings per server.

    def _connect_options(self, slot: _Slot, log: StderrLog) -> ConnectOptions:
        return ConnectOptions(
            close_timeout=self._close_timeout(slot),
            environ=self._environ,
            remembered_protocol=self._memory.recall(slot.server.name) if self._memory is not None else None,
            records=self._records,
            log=log,
        )

    def _log_for(self, slot: _Slot) -> StderrLog:
        if slot.log is None:
            path = self._workspace.stderr_log_path(slot.server.name)
            slot.log = StderrLog(path, self._secrets)
        return slot.log

    def _stderr_path(self, slot: _Slot, log: StderrLog) -> str | None:
        """Where a failed start's own words are: only a local process has a stderr."""
        return str(log.path) if isinstance(slot.server.spec, StdioServer) else None

    def _connect_timeout(self, slot: _Slot) -> float:
        return (slot.server.spec.connect_timeout_ms or self._settings.connect_timeout_ms) / 1000.0

    def _request_timeout(self, slot: _Slot) -> float:
        return (slot.server.spec.request_timeout_ms or self._settings.request_timeout_ms) / 1000.0

    def _close_timeout(self, slot: _Slot) -> float:
        return (slot.server.spec.close_timeout_ms or self._settings.close_timeout_ms) / 1000.0


def _crash_record(server: str, log: StderrLog) -> DownstreamError:
    return DownstreamError(
        f"Server '{server}' exited unexpectedly; its stderr is in {log.path}.",
        server=server,
        phase="tool_call",
        retryable=True,
    )
