"""The lazy pool: a supervisor per enabled downstream server and resolved definition, starting it on first use.

Contract (DESIGN §5): nothing starts until a call needs it, and concurrent first calls share one start; each
server's life (idle stops, backoff, probes, early exits) is drawn in `supervisor.py`. A call carries its
session's `Origin` (None: the pool's own); the server is resolved for it (`definitions.py`) and served by the
supervisor of that definition (`slots.py`), made on first use; the secrets a resolution brought are learned by
the mask before its process starts. Background listings use a running supervisor of the server, else the pool's
own origin. Shutdown refuses new work and stops every connection in parallel, each within its close budget. A
live config edit retires removed and changed servers after their calls (`Retirements`) and keeps every other
process. A server's news that a list changed, and every start, goes to `on_change`: the pool lists only when
asked. A failing background task is reported by `status`, never fatal (`mcp_gateway.background`). No error
leaves the pool, and nothing reaches errors.json or a server's log, without passing through the gateway's
`SecretMask` (a server may echo its own credential); what a server says about itself in its handshake is masked
and bounded the same way before it reaches the catalog.
"""

from __future__ import annotations

import functools
import os
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from types import TracebackType
from typing import Any, Protocol

import anyio
import anyio.abc
import mcp_types as types
from mcp.client.session import MessageHandlerFnT

from mcp_gateway.background import BackgroundProblems, BackgroundTasks
from mcp_gateway.catalog import Listing
from mcp_gateway.config import ServerConfig, Settings, StdioServer, server_changes
from mcp_gateway.downstream.changes import ListKind, PoolChangeHeard
from mcp_gateway.downstream.connect import ConnectOptions, Connector, open_client
from mcp_gateway.downstream.connection import OpenedClient, ProgressCallback
from mcp_gateway.downstream.definitions import Definition
from mcp_gateway.downstream.error_journal import ErrorJournal, JournalUpdates
from mcp_gateway.downstream.process_records import ProcessRecords
from mcp_gateway.downstream.slots import ProcessView, Slot, Slots
from mcp_gateway.downstream.stderr_log import ServerLogHandler, ServerNotes, StderrLog, notes_logger
from mcp_gateway.downstream.subscriptions import Held, hold
from mcp_gateway.downstream.supervisor import (
    LIST_OPERATION,
    MILLISECONDS,
    PROBE_SECONDS,
    ServerContext,
    ServerStatus,
    State,
    Supervisor,
    close_seconds,
)
from mcp_gateway.errors import UnknownServerError
from mcp_gateway.json_object import JsonObject
from mcp_gateway.masking import SecretMask
from mcp_gateway.origin import Origin
from mcp_gateway.paths import Workspace
from mcp_gateway.questions import Asking
from mcp_gateway.sign_in import SignInStore
from mcp_gateway.wording import Message, Step

__all__ = ["Origin", "Pool", "ProcessView", "ProtocolMemory", "ServerStatus", "State"]

SHUTDOWN_MARGIN_SECONDS = 1.0
SECONDS_PER_MINUTE = 60.0
"""Added to the longest close budget for the whole parallel shutdown."""


DRAIN_MARGIN_SECONDS = 1.0
"""Added to a call's own bound (connect plus request timeout): a call that just timed out has its error to
deliver and its cancellation to send before it lets go of the supervisor."""


def drain_seconds(server: ServerConfig, settings: Settings) -> float:
    """How long a retired server's calls may still run: a start, then a request, each within its timeout."""
    spec = server.spec
    connect = spec.connect_timeout_ms or settings.connect_timeout_ms
    request = spec.request_timeout_ms or settings.request_timeout_ms
    return (connect + request) / MILLISECONDS + DRAIN_MARGIN_SECONDS


class Retirements:
    """The calls each supervisor is serving, and the supervisors retired by a live config edit while they finish.

    A retired supervisor takes no new call (it has left the pool's table: a new call gets the "no enabled server"
    error, or a changed server's new supervisor), the calls it had run to their end, and then it is stopped. The
    wait is bounded by `drain_seconds`, so a retirement ends even if something never lets go. Calls are counted
    here (`lease`), around the supervisor's own accounting, so the supervisor needs no notion of being retired.
    """

    def __init__(self) -> None:
        self._held: dict[Supervisor, int] = {}
        self._released: dict[Supervisor, anyio.Event] = {}
        self.draining: set[Supervisor] = set()
        """Retired and not yet stopped: the pool still stops, hurries and kills them with the others."""

    @asynccontextmanager
    async def lease(self, supervisor: Supervisor) -> AsyncGenerator[Supervisor]:
        """Hold `supervisor` for one call (from before its start is awaited to after its answer)."""
        self._held[supervisor] = self._held.get(supervisor, 0) + 1
        try:
            yield supervisor
        finally:
            left = self._held[supervisor] - 1
            if left:
                self._held[supervisor] = left
            else:
                del self._held[supervisor]
                released = self._released.pop(supervisor, None)
                if released is not None:
                    released.set()

    def retire(self, supervisor: Supervisor, tasks: BackgroundTasks | None, bound_seconds: float) -> None:
        """Stop `supervisor` once its calls have ended, or after `bound_seconds` at most, in the background."""
        if tasks is None:  # the pool is not serving: nothing can be in flight
            supervisor.stop()
            return
        self.draining.add(supervisor)
        tasks.start_soon(self._drain, supervisor, bound_seconds, name=f"the retirement of '{supervisor.server.name}'")

    async def _drain(self, supervisor: Supervisor, bound_seconds: float) -> None:
        try:
            with anyio.move_on_after(bound_seconds):
                if supervisor in self._held:
                    await self._released.setdefault(supervisor, anyio.Event()).wait()
        finally:
            supervisor.stop()  # its connections close within their close budget, in the pool's group
            self.draining.discard(supervisor)


class ProtocolMemory(Protocol):
    """Where the pool remembers each server's negotiated protocol version (the catalog, in practice)."""

    def recall(self, server: str) -> str | None: ...

    def remember(self, server: str, protocol_version: str) -> None: ...


Vet = Callable[[str, str, str, list[JsonObject]], Exception | None]
"""Judges a call before it is sent (server, the key of its process, tool, the tools its connection listed first):
why it may not be sent, or None. A process started for a call may list other tools than the catalog holds."""

Notified = Callable[[str, str, types.ServerNotification], Awaitable[None]]
"""Hears a server's notifications (its name, the key of the process that sent it, the notification): the
gateway forwards `resources/updated` to those who subscribed on that process."""


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
        probe_seconds: float = PROBE_SECONDS,
        on_notification: Notified | None = None,
        on_change: PoolChangeHeard | None = None,
        vet: Vet | None = None,
    ) -> None:
        """`problems`: where the pool's background tasks (connections, idle timers, probes) report failures.
        `secrets`: what to mask in errors and logs; by default, every secret of `servers` and `environ`.
        `probe_seconds`: how long a connection whose call timed out gets to answer a liveness probe.
        `on_change`: told when a server says a list of its changed, and each time a server is started."""
        self._probe_seconds = probe_seconds
        self._on_notification = on_notification
        self._on_change = on_change
        self._vet = vet
        self._settings = settings
        self._workspace = workspace
        self._environ = dict(os.environ if environ is None else environ)
        self._secrets = secrets if secrets is not None else SecretMask.for_servers(servers.values(), self._environ)
        self._memory = protocol_memory
        self._records = records
        self._connector = connector
        self._problems = problems if problems is not None else BackgroundProblems()
        self._journal = JournalUpdates(ErrorJournal(workspace.errors_path, self._secrets.mask))
        self._logs: dict[str, StderrLog] = {}
        self._servers = {name: server for name, server in servers.items() if not server.spec.disabled}
        self._slots = Slots(Origin.of_this_process(self._environ))
        """Made on a server's first use: one that is never used costs the gateway nothing but its config."""
        self._tasks: BackgroundTasks | None = None
        self._retirements = Retirements()
        self._stopping = False
        self._handler = ServerLogHandler(self, self._log_for)
        self._stack: AsyncExitStack | None = None
        self._group: anyio.abc.TaskGroup | None = None

    # Lifetime: entered once; exiting stops every server, each within its close budget.

    async def __aenter__(self) -> Pool:
        if self._stack is not None:
            raise RuntimeError("a Pool is entered once; make a new one to start again")
        async with AsyncExitStack() as stack:
            notes_logger.addHandler(self._handler)
            stack.callback(notes_logger.removeHandler, self._handler)
            stack.callback(self._journal.detach)  # unwound right after the task group has ended
            self._group = await stack.enter_async_context(anyio.create_task_group())
            self._tasks = BackgroundTasks(self._group, self._problems)
            self._journal.attach(self._tasks)
            for supervisor in self._slots.supervisors():
                supervisor.attach(self._tasks)
            self._stack = stack.pop_all()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        self.shutdown()
        assert self._stack is not None
        assert self._group is not None
        # The group's exit waits for every server's tasks until the longest close budget has passed, then
        # cancels what is left (each transport's own stop is shielded and bounded).
        self._group.cancel_scope.deadline = anyio.current_time() + self._shutdown_seconds()
        await self._stack.aclose()
        await self._journal.flush()  # what the stopping servers noted last, now that their tasks are gone
        return None

    def _shutdown_seconds(self) -> float:
        budgets = [close_seconds(supervisor.server, self._settings) for supervisor in self._every_supervisor()]
        return max(budgets, default=0.0) + SHUTDOWN_MARGIN_SECONDS

    def shutdown(self) -> None:
        """Refuse new work and begin stopping every connection (the pool's exit waits for them)."""
        self._stopping = True
        for supervisor in self._every_supervisor():
            supervisor.stop()

    def urge(self) -> None:
        """The client is ending the gateway by a signal: every server's stop, begun or to come, is urgent."""
        for supervisor in self._every_supervisor():
            supervisor.urge()

    def kill_everything(self) -> None:
        """SIGKILL every server process group at once (started ones, and ones still starting)."""
        for supervisor in self._every_supervisor():
            supervisor.kill()
        if self._records is not None:
            self._records.kill_all()

    # Calls, listings, status.

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: JsonObject,
        *,
        on_progress: ProgressCallback | None = None,
        retry_safe: bool = False,
        asking: Asking | None = None,
        origin: Origin | None = None,
    ) -> JsonObject:
        """Call `tool` on `server` as resolved for `origin` (None: the pool's own)."""
        await self._slots.prepare(self._servers.get(server), origin)
        slot = self._slot(server, origin)
        async with (
            self._leased(slot, origin) as supervisor,
            supervisor.borrowed(tool, retry_safe=retry_safe) as (connection, timeout),
        ):
            listed = None if self._vet is None else await connection.first_tools(timeout_seconds=timeout)
            key = slot.definition.digest
            refusal = None if self._vet is None or listed is None else self._vet(server, key, tool, listed)
            if refusal is None:
                return await connection.call_tool(
                    tool, arguments, timeout_seconds=timeout, on_progress=on_progress, asking=asking
                )
        raise refusal  # outside the borrowing: not a failure of the server's

    async def list_tools(self, server: str, *, origin: Origin | None = None, process: str | None = None) -> Listing:
        """List `server` as resolved for `origin`; with no origin, on the process `process` (a key, as
        `process_key` gives) or else any running one, whichever session's, else one started for the pool's own
        origin. The listing says which process it was listed on."""
        if origin is not None:
            await self._slots.prepare(self._servers.get(server), origin)
            slot = self._slot(server, origin)
        else:
            chosen = self._slots.find(server, process) if process is not None else None
            slot = chosen or self._slots.live(server) or self._slot(server, None)
        async with (
            self._leased(slot, origin) as supervisor,
            supervisor.borrowed(LIST_OPERATION, retry_safe=True) as (connection, timeout),
        ):
            return await connection.listing(
                timeout_seconds=timeout, secrets=self._secrets, process=slot.definition.digest
            )

    async def request(
        self, server: str, request: types.Request[Any, Any], *, origin: Origin | None = None
    ) -> JsonObject:
        """Send `request` (`prompts/get`, `resources/read`, …: a read, safe to retry) to `server` as resolved for
        `origin`, starting it if need be, and return the result as it was sent; a failure leaves as a
        `DownstreamError`."""
        await self._slots.prepare(self._servers.get(server), origin)
        async with (
            self._leased(self._slot(server, origin), origin) as supervisor,
            supervisor.borrowed(request.method, retry_safe=True) as (connection, timeout),
        ):
            return await connection.request(request, timeout_seconds=timeout)

    async def subscribe(self, server: str, uri: str, *, origin: Origin | None = None) -> anyio.Event:
        """Subscribe to `uri` on `server` (as resolved for `origin`) and keep it subscribed (`subscriptions.hold`)
        until the event returned is set; the first subscribe's failure is raised here, as a `DownstreamError`."""
        assert self._tasks is not None
        held = Held(uri)
        await self._slots.prepare(self._servers.get(server), origin)
        slot = self._slot(server, origin)

        async def keep() -> None:
            with slot.used_by((origin or self._slots.own).session) as supervisor:
                await hold(supervisor, held, ServerNotes(server, self))

        self._tasks.start_soon(keep, name=f"'{server}' {uri}")
        try:
            await held.first.wait()
        except BaseException:
            held.released.set()  # its asker left before it was made (a cancelled stream): no one else would let go
            raise
        if held.error is not None:
            raise held.error
        return held.released

    async def process_key(self, server: str, origin: Origin | None = None) -> str:
        """What tells `server` as resolved for `origin` from the same server resolved otherwise: sessions with one
        key are served by one process (`definitions.Definition.digest`)."""
        await self._slots.prepare(self._servers.get(server), origin)
        return self._slot(server, origin).definition.digest

    def status(self, server: str) -> ServerStatus:
        status = self._slots.status(server)
        if status is not None:
            return status
        state = State.IDLE if server in self._servers and not self._stopping else State.STOPPED
        return ServerStatus(state, False, None, 0, None, None, 0.0)

    def processes(self) -> dict[str, list[ProcessView]]:
        """Per server started since its last config change, each supervisor's pid (stdio), state and the sessions
        that used it (`ProcessView`): one per resolved definition, for `status` to show who shares what."""
        return self._slots.processes()

    def start_eager_servers(self) -> None:
        """Start every `eager` server in the background; called once the gateway answers its client."""
        for name, server in self._servers.items():
            if server.spec.lifecycle == "eager":
                self._slot(name, None).supervisor.start_eagerly()

    def reconfigure(self, servers: Mapping[str, ServerConfig], settings: Settings) -> None:
        """Serve `servers` with `settings` from now on (a live config edit), as `Retirements` describes: removed
        and changed servers are retired after their in-flight calls, added `eager` ones start, the rest keep
        their processes and read their new settings from their next call on."""
        enabled = {name: server for name, server in servers.items() if not server.spec.disabled}
        changes = server_changes(self._servers, enabled)
        before = self._settings
        self._servers, self._settings = enabled, settings
        retired = [slot for name in (*changes.removed, *changes.changed) for slot in self._slots.pop(name)]
        for name, slot in self._slots.items():  # resolved again for the origin it serves: its `${VAR}`s may differ
            definition = self._slots.definition(enabled[name], slot.origin)
            if definition.digest != slot.definition.digest:
                retired += self._slots.pop(name, slot.definition.digest)
                continue
            slot.definition = definition
            slot.supervisor.reconfigure(definition.server, self._context_for(definition))
        for slot in retired:
            self._retirements.retire(slot.supervisor, self._tasks, drain_seconds(slot.supervisor.server, before))
        if self._tasks is not None and not self._stopping:
            for name in (*changes.added, *changes.changed):
                if enabled[name].spec.lifecycle == "eager":
                    self._slot(name, None).supervisor.start_eagerly()

    # Inside.

    def _every_supervisor(self) -> list[Supervisor]:
        """The pool's supervisors and those retired by a config edit that are still finishing their calls."""
        return [*self._slots.supervisors(), *self._retirements.draining]

    def _slot(self, server: str, origin: Origin | None) -> Slot:
        """The slot serving `server` for `origin` (None: the pool's own), made with its supervisor on first use."""
        config = self._servers.get(server)
        if config is None:
            raise UnknownServerError(
                Message.of(f"No enabled server named '{server}'; ", Step("search"), " to see what exists.")
            )
        definition = self._slots.definition(config, origin or self._slots.own)
        slot = self._slots.find(server, definition.digest)
        if slot is None:
            self._secrets.learn(definition.secrets)  # before anything it starts can print them
            supervisor = Supervisor(definition.server, self._context_for(definition))
            slot = self._slots.add(server, Slot(supervisor, definition, origin or self._slots.own))
            if self._tasks is not None:
                supervisor.attach(self._tasks)
            if self._stopping:
                supervisor.stop()
        return slot

    @asynccontextmanager
    async def _leased(self, slot: Slot, origin: Origin | None) -> AsyncGenerator[Supervisor]:
        """Hold `slot`'s supervisor for one request, counted for its session and for a retirement's drain."""
        with slot.used_by((origin or self._slots.own).session) as supervisor:
            async with self._retirements.lease(supervisor):
                yield supervisor

    def _context_for(self, definition: Definition) -> ServerContext:
        server = definition.server
        name = server.name
        notes = ServerNotes(name, self)

        async def connect(stack: AsyncExitStack) -> OpenedClient:
            options = ConnectOptions(
                close_timeout=close_seconds(server, self._settings),
                environ=definition.environ,
                remembered_protocol=self._memory.recall(name) if self._memory is not None else None,
                records=self._records,
                log=self._log_for(name),
                notes=notes,
                on_message=self._notifications_of(name, definition.digest),
                on_change=None if self._on_change is None else functools.partial(self._heard, name, definition.digest),
                sign_ins=SignInStore(self._workspace.sign_ins_dir, self._secrets.learn),
            )
            opened = await self._connector(server, options, stack)
            if self._on_change is not None:
                self._on_change(name, "started", definition.digest)
            return opened

        def remember(protocol_version: str) -> None:
            if self._memory is not None:
                self._memory.remember(name, protocol_version)

        spec, settings = server.spec, self._settings  # each timeout its own setting first, else the gateway's
        minutes = spec.idle_timeout if spec.idle_timeout is not None else settings.idle_timeout
        return ServerContext(
            notes=notes,
            mask=self._secrets.mask,
            journal=self._journal,
            connect=connect,
            remember_protocol=remember,
            connect_seconds=(spec.connect_timeout_ms or settings.connect_timeout_ms) / MILLISECONDS,
            request_seconds=(spec.request_timeout_ms or settings.request_timeout_ms) / MILLISECONDS,
            close_seconds=close_seconds(server, settings),
            idle_seconds=minutes * SECONDS_PER_MINUTE if spec.lifecycle == "lazy" and minutes > 0 else None,
            failure_backoff_seconds=settings.failure_backoff_ms / MILLISECONDS,
            stderr_log_path=str(self._workspace.stderr_log_path(name)) if isinstance(spec, StdioServer) else None,
            probe_seconds=self._probe_seconds,
        )

    def _heard(self, server: str, process: str, kind: ListKind) -> None:
        assert self._on_change is not None
        if kind == "tools" and (slot := self._slots.find(server, process)) is not None:
            slot.supervisor.tools_changed()  # before the relisting it causes, which must not take the first tools
        self._on_change(server, kind, process)

    def _notifications_of(self, server: str, process: str) -> MessageHandlerFnT | None:
        heard = self._on_notification
        if heard is None:
            return None

        async def forward(message: types.ServerNotification | Exception) -> None:
            if not isinstance(message, Exception):  # a transport's exception is the connection's own to judge
                await heard(server, process, message)

        return forward

    def _log_for(self, server: str) -> StderrLog:
        log = self._logs.get(server)
        if log is None:
            log = self._logs[server] = StderrLog(self._workspace.stderr_log_path(server), self._secrets)
        return log
