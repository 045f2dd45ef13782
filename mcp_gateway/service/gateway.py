"""The gateway's application API: the one door through which the MCP server and the command line reach it.

Search, list, describe, execute, refresh, status and doctor, each returning a typed report
(`service/reports.py`), so a search in the terminal is the search the model gets. The catalog, the pool and
the workspace are private to it: the MCP server only serialises its reports for a model and the command line
only renders them for a person. It owns the lifetime of the catalog, the pool and the background work:
entering it builds the instructions for its client, reads cache.json and reaps what a killed predecessor left
behind, and starts nothing else; `start_background()` begins the startup metadata check once the caller is
ready to answer its client. Reads meanwhile wait for the listings they depend on, boundedly (`listing_wait`).
Nothing it runs in the background can end it: a failure there is logged and reported by `status()`
(see `mcp_gateway.background`), and the gateway serves on.

Its one `SecretMask` (built from the config and environment) is shared by the pool (errors, errors.json,
stderr logs) and used here on whatever else carries a server's words to a model or a terminal.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from functools import partial
from types import TracebackType
from typing import cast

import anyio
import anyio.to_thread

from mcp_gateway.audit import Auditor, AuditTrail, ClientInfo
from mcp_gateway.background import BackgroundProblems, BackgroundTasks, background_tasks
from mcp_gateway.bounds import MAX_SERVER_INSTRUCTIONS_CHARS
from mcp_gateway.catalog import CacheStore, Catalog, Listing, ServerCatalog
from mcp_gateway.config import GatewayConfig, load_config
from mcp_gateway.downstream.connect import Connector, open_client
from mcp_gateway.downstream.connection import ProgressCallback
from mcp_gateway.downstream.pool import Origin, Pool
from mcp_gateway.downstream.process_records import ProcessRecords, reap_stale_groups
from mcp_gateway.downstream.slots import ProcessView
from mcp_gateway.downstream.supervisor import PROBE_SECONDS
from mcp_gateway.errors import CatalogError, DownstreamError, UnknownToolError
from mcp_gateway.integrity import Review
from mcp_gateway.json_object import JsonObject
from mcp_gateway.masking import SecretMask
from mcp_gateway.paths import Workspace
from mcp_gateway.policy import enforce, refuse_if_denied
from mcp_gateway.questions import Asking
from mcp_gateway.search import SearchEngine, SearchResult
from mcp_gateway.service.arguments import ArgumentChecker
from mcp_gateway.service.arguments import prepare as prepare_validation
from mcp_gateway.service.background_journal import BackgroundJournal, GatewayProblem
from mcp_gateway.service.changes import ChangeFollower
from mcp_gateway.service.doctor import DoctorReport, Examination, examine
from mcp_gateway.service.home import keep_last_good
from mcp_gateway.service.listing_wait import LISTING_WAIT_SECONDS, ListingWait, missing_servers
from mcp_gateway.service.live_config import LiveConfig
from mcp_gateway.service.names import FIND, ResolvedTool
from mcp_gateway.service.offerings import Offerings
from mcp_gateway.service.process_views import ProcessViews
from mcp_gateway.service.progress import ProgressFn, listing_steps, refresh_report
from mcp_gateway.service.reports import (
    RefreshReport,
    SearchHit,
    SearchReport,
    StatusReport,
    ToolDefinition,
    ToolDescription,
    ToolPage,
)
from mcp_gateway.service.resolving import CatalogDirectory, ToolResolver
from mcp_gateway.service.status import status_report
from mcp_gateway.service.surface import current_instructions, next_session_context, no_servers_hint
from mcp_gateway.service.trust import Decision, TrustKeeper
from mcp_gateway.tokens import TokenCounter
from mcp_gateway.wording import Message

logger = logging.getLogger(__name__)

AUDIT_TASK = "writing the audit trail"


class Gateway:
    def __init__(
        self,
        workspace: Workspace,
        config: GatewayConfig,
        *,
        environ: Mapping[str, str] | None = None,
        connector: Connector = open_client,
        load_in_background: bool = False,
        probe_seconds: float = PROBE_SECONDS,
        listing_wait_seconds: float = LISTING_WAIT_SECONDS,
        config_problem: str | None = None,
        clients: Callable[[str], ClientInfo] | None = None,
    ) -> None:
        """`load_in_background`: read cache.json after entering, not before (every operation waits for it), so
        a serving gateway answers `initialize` at once: indexing thousands of cached tools takes about a second.
        `connector`, `probe_seconds` (how long a connection whose call timed out gets to answer a liveness
        probe) and `listing_wait_seconds` (how long a read waits for a listing, see `listing_wait`) are seams
        for tests, which reach servers in-process and cannot wait seconds. `config_problem`: why config.json
        could not be used when `config` (its last good version) was chosen instead (`home.serving_config`).
        `clients`: a session's client by its origin's label, for the audit trail (a daemon's sessions).
        """
        self._workspace = workspace
        self._environ = dict(os.environ if environ is None else environ)
        self._secrets = SecretMask.for_servers(config.servers.values(), self._environ)
        self._catalog = Catalog(config, CacheStore.for_workspace(workspace), SearchEngine())
        self._records = ProcessRecords(workspace.process_records_dir)
        self._journal = BackgroundJournal(workspace.background_problems_path)
        self._problems = BackgroundProblems(self._journal.record, self._secrets.mask, self._journal.forget)
        self._arguments = ArgumentChecker()
        trail = AuditTrail(workspace.logs_dir, self._secrets, partial(self._journal.said_of, AUDIT_TASK))  # for status
        self._audit = Auditor(trail, lambda: self._config.settings.audit_values, clients)
        self._trust = TrustKeeper(workspace, self._catalog, self.mask)  # what awaits review is not served
        self._catalog.admits = self._trust.admits
        # `subscribe` to it; the views are made below, with the pool.
        self.changes = ChangeFollower(
            self._catalog,
            self._list_process,
            lambda: self._tg,
            other_process=lambda server, listing: self._views.heard(server, listing),  # noqa: PLW0108
        )
        self._pool = Pool(
            config.servers,
            config.settings,
            workspace,
            environ=self._environ,
            protocol_memory=self._catalog,
            records=self._records,
            connector=connector,
            problems=self._problems,
            secrets=self._secrets,
            probe_seconds=probe_seconds,
            # `offerings` is made below, with the pool: looked up when a notification comes.
            on_notification=lambda server, process, notification: self.offerings.notified(  # noqa: PLW0108
                server, process, notification
            ),
            on_change=self.changes.heard,
            vet=self._trust.vet,
        )
        self._live = LiveConfig(
            config,
            self._environ,
            self._catalog,
            self._pool,
            self._secrets,
            relist=self.refresh,
            keep=partial(keep_last_good, workspace),
            problem=config_problem,
        )
        self._waiting = ListingWait(self._catalog, listing_wait_seconds)
        self.offerings = Offerings(
            self._catalog, self._pool, self._waiting, self.loaded, audit=self._audit, trust=self._trust
        )
        self._views = ProcessViews(self._catalog, self._pool, self._catalog.mark_varies)
        directory = CatalogDirectory(self._catalog)
        self._resolver = ToolResolver(self._catalog, directory, self._ensure_listed, self._waiting)
        self._stack: AsyncExitStack | None = None
        self._tg: BackgroundTasks | None = None
        self._load_in_background = load_in_background
        self._catalog_loaded = anyio.Event()
        self._workspace_problems: tuple[str, ...] = ()
        self._instructions = ""

    @classmethod
    def for_home(
        cls,
        home: str | os.PathLike[str] | None,
        config: GatewayConfig | None = None,
        *,
        load_in_background: bool = False,
    ) -> Gateway:
        """A gateway over the workspace at `home` (else `$MCP_GATEWAY_HOME`, else the platform directories)."""
        workspace = Workspace.from_environment(home)
        loaded = config if config is not None else load_config(workspace.config_path)
        return cls(workspace, loaded, load_in_background=load_in_background)

    @property
    def config(self) -> GatewayConfig:
        return self._config

    @property
    def _config(self) -> GatewayConfig:  # the last good config.json: a live edit replaces it (`live_config`)
        return self._live.config

    def mask(self, text: str) -> str:
        """`text` with every secret this gateway knows of replaced (for text about to leave the gateway)."""
        return self._secrets.mask(text)

    # Lifetime: entered once, like the SDK's `Client`.

    async def __aenter__(self) -> Gateway:
        if self._stack is not None:
            raise RuntimeError("a Gateway is entered once; make a new one to start again")
        self._workspace_problems = tuple(await anyio.to_thread.run_sync(self._workspace.ensure))
        for problem in self._workspace_problems:
            logger.warning("%s", problem)
        await anyio.to_thread.run_sync(reap_stale_groups, self._workspace.process_records_dir)
        # Before the catalog loads: parsing cache.json in a thread slows this 30-fold (the GIL).
        self._instructions = await current_instructions(self._config, self._catalog, self.mask)
        if not self._load_in_background:
            await self._load_catalog()
        async with AsyncExitStack() as stack:
            stack.push_async_callback(self._close_audit)  # last: the calls that end as the pool stops are written
            stack.callback(self._records.close)
            await stack.enter_async_context(self._pool)
            self._tg = await stack.enter_async_context(background_tasks(self._problems))
            self._stack = stack.pop_all()
        if self._load_in_background:
            self._tg.start_soon(self._load_catalog, name="reading the cached tool lists")
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        if self._tg is not None:
            self._tg.cancel()
        assert self._stack is not None
        return await self._stack.__aexit__(exc_type, exc, tb)

    def start_background(self) -> None:
        """Once the catalog is loaded: refresh invalid entries (bounded parallelism) and start `eager` servers.

        Requests meanwhile wait for those listings (boundedly, see `listing_wait`) rather than find nothing.
        """
        assert self._tg is not None
        if self._config.settings.startup_metadata_check:
            self._waiting.expect_listings()
        self._tg.start_soon(self._start_background, name="the startup work")

    def hurry_stop(self) -> None:
        """The client is ending the gateway by a signal and will kill it soon: stop its servers in milliseconds."""
        self._pool.urge()

    def stop_now(self) -> None:
        """SIGKILL every downstream process group at once: a stop that cannot wait any more."""
        self._pool.kill_everything()

    def processes(self) -> dict[str, list[ProcessView]]:
        """Each enabled server's supervisors in the pool (one per resolved definition), for the daemon's state."""
        views = self._pool.processes()
        return {name: views.get(name, []) for name in self._config.enabled_servers}

    async def loaded(self) -> None:
        """Return once cache.json has been read and indexed."""
        await self._catalog_loaded.wait()

    def instructions(self) -> str:
        """The gateway's instructions for its client: how to use the four tools and a digest of the servers.

        Built when the gateway was entered, from the config and the catalog's digest (a small file beside
        cache.json, never cache.json itself), so a client's `initialize` never waits for the catalog.
        """
        return self._instructions

    async def current_instructions(self) -> str:
        """`instructions()` as a session opened now is to hear them (a daemon serves sessions hours apart)."""
        return await current_instructions(self._config, self._catalog, self.mask)

    # Operations.

    async def search(
        self,
        query: str,
        *,
        alternatives: tuple[str, ...] = (),
        server: str | None = None,
        limit: int | None = None,
        on_progress: ProgressCallback | None = None,
        origin: Origin | None = None,
    ) -> SearchReport:
        """The best matches for `query` and its `alternatives` (other phrasings), once the listings under way have
        ended or been waited for long enough (`listing_wait`); servers still loading then are named in the report.
        A `server` that names an enabled server limits the search, and its notes, to that server, even when none
        of its tools are known."""
        await self.loaded()
        await self._catalog.sync_from_disk()
        named = self._resolver.configured_name(server) if server else None  # read as list_tools reads it
        if named is not None and self._catalog.entry(named) is None and named not in self._catalog.loading():
            with contextlib.suppress(DownstreamError):  # noted below, with why its tools are missing
                await self._ensure_listed(named)  # asked for by name: listed now, as list_tools would
        await self._waiting.settle(None if named is None else [named], on_progress)
        limit = limit or self._config.settings.tool_search_limit
        await self._trust.sync()  # after the wait: what it listed is pinned, a decision at the shell taken in
        await self._trust.judged([named] if named else self._config.enabled_servers)
        found = await self._catalog.search(query, alternatives=alternatives, server=server, limit=limit)
        if named is not None and self._catalog.entry(named) is None and not self._config.servers[named].spec.disabled:
            found = SearchResult((), (), named)  # not the other servers' tools, as if the hint named none
        hidden = await self._views.hidden((hit.server for hit in found.hits), origin)
        hits = tuple(
            SearchHit(ToolDefinition(hit.server, tool), hit.confidence, tuple(hit.reasons))
            for hit in found.hits
            if hit.server not in hidden and (tool := self._catalog.find(hit.server, hit.tool)) is not None
        )
        missing = missing_servers(self._catalog, self.mask, only=found.focused_server or named)
        return SearchReport(
            query=query,
            hits=hits,
            notes=(
                *self._live.search_notes(),
                *found.notes,
                *map(_listed_otherwise, hidden),
                *self._trust.notes([named] if named else self._config.enabled_servers),
            ),
            focused_server=found.focused_server,
            loading=missing.loading,
            failed=missing.failed,
            unlisted=missing.unlisted,
            no_servers_hint=None if self._live.problem else no_servers_hint(self._config),
        )

    def resolve_server(self, server: str) -> str:
        """The configured server a name or alias means; `UnknownServerError` (or ambiguous) when none."""
        return self._resolver.server(server)

    async def list_tools(
        self,
        server: str,
        *,
        limit: int | None = None,
        offset: int = 0,
        on_progress: ProgressCallback | None = None,
        origin: Origin | None = None,
    ) -> ToolPage:
        """A page of one server's tools (all of them without `limit`), listing the server first if need be.

        Raises:
            StillLoadingError: its listing was under way and outlasted the wait for it.
        """
        await self.loaded()
        with self._live.naming_the_problem():
            name = self._resolver.enabled_server(server)
        if self._catalog.entry(name) is None and await self._waiting.settle([name], on_progress):
            raise self._waiting.still_loading(name, "list")
        await self._ensure_listed(name)
        await self._trust.sync()
        view = await self._views.listed_for_session(name, origin)
        await self._trust.judged([name], view)
        held = self._trust.held(name, view)
        listed = view.tools if view is not None else ()
        tools = [tool for tool in listed if self._catalog.allowed(name, tool.name) and tool.name not in held]
        end = len(tools) if limit is None else offset + limit
        page = tuple(ToolDefinition(name, tool) for tool in tools[offset:end])
        trust = tuple(note.for_model() for note in self._trust.notes([name]))
        notes = (*((self._live.problem,) if self._live.problem else ()), *trust)
        return ToolPage(name, page, len(tools), offset, self._server_instructions(name, view), notes)

    async def describe(
        self,
        tool: str,
        *,
        server: str | None = None,
        on_progress: ProgressCallback | None = None,
        origin: Origin | None = None,
    ) -> ToolDescription:
        await self.loaded()
        resolved, view = await self._resolved_for(tool, server, origin, patient=False, on_progress=on_progress)
        instructions = self._server_instructions(resolved.server, view)
        return ToolDescription(ToolDefinition(resolved.server, resolved.tool), instructions)

    async def execute(
        self,
        tool: str,
        arguments: JsonObject,
        *,
        server: str | None = None,
        on_progress: ProgressCallback | None = None,
        asking: Asking | None = None,
        origin: Origin | None = None,
    ) -> JsonObject:
        """Call the downstream tool and return its `CallToolResult` exactly as the server sent it.
        `asking`: who answers the tool's questions meanwhile (see `questions/relay.py`, which calls this).

        Raises:
            ToolCallError: unknown/ambiguous/filtered tool, invalid arguments, or a downstream failure.
        """
        with self._audit.call("tool", tool, arguments, origin) as audited:
            # No progress from a wait for a listing: the tool's own follows on this token, and it must only grow.
            resolved, _ = await self._resolved_for(tool, server, origin)
            audited.server, audited.name = resolved.server, resolved.tool.name
            annotations, rules = resolved.tool.annotations or {}, self._config.settings.policy
            refuse_if_denied(rules, resolved.qualified, annotations)  # whatever its arguments: never "fix them"
            await self._arguments.ensure_sendable(resolved, arguments)
            ask = asking.asker.ask if asking is not None and asking.asker is not None else None
            await enforce(rules, resolved.qualified, annotations, arguments, ask=ask, secrets=self._secrets)
            safe = annotations.get("readOnlyHint") is True or annotations.get("idempotentHint") is True
            call = partial(self._pool.call_tool, on_progress=on_progress, retry_safe=safe, asking=asking, origin=origin)
            result = await call(resolved.server, resolved.tool.name, arguments)  # as resolved for the caller's origin
            if result.get("isError") is True:
                # An error is the server's words about what went wrong, which may quote its own credential; a
                # successful result is data the model asked for and passes through untouched.
                result = await anyio.to_thread.run_sync(mask_error_texts, result, self._secrets)
            audited.result = result
            return result

    async def refresh(
        self, servers: Sequence[str] | None = None, *, on_progress: ProgressFn | None = None
    ) -> RefreshReport:
        """List `servers` (default: every enabled one; a disabled one named is refused) now, and store it."""
        await self.loaded()
        named = self._config.enabled_servers if servers is None else servers
        names = [self._resolver.enabled_server(name) for name in named]
        await self._catalog.refresh_many(
            names, self._list_downstream, on_step=listing_steps(on_progress, self._catalog, self.mask)
        )
        return refresh_report(names, self._catalog, self.mask)

    def servers_to_load(self) -> list[str]:
        """Enabled servers whose cached tools are missing, stale, failed or due a refresh at start."""
        return self._catalog.needs_refresh()

    async def review(self) -> Review:
        """What awaits a person's review (held definitions, with why and a diff), and what was seen first."""
        await self.loaded()
        await self._catalog.sync_from_disk()
        await self._trust.sync()
        return self._trust.review()

    async def trust(self, server: str, tools: Sequence[str] = (), *, reject: bool = False) -> Decision:
        """Approve what of `server` awaits review (only `tools`, if named) as listed now; `reject`: keep it out
        and stop asking. A running daemon takes it in at its next request (it watches the pins file)."""
        await self.loaded()
        await self._catalog.sync_from_disk()
        await self._trust.sync()
        return await self._trust.decide(self._resolver.server(server), tools, reject=reject)

    async def status(self) -> StatusReport:
        await self.loaded()
        await self._catalog.sync_from_disk()
        await self._trust.sync()
        report = await self._status()
        return dataclasses.replace(report, awaiting_review=self._trust.awaiting_count())

    async def _status(self) -> StatusReport:
        return await status_report(
            self._config,
            self._catalog,
            self._workspace,
            self._secrets,
            connected=lambda name: self._pool.status(name).running,
            background=await self.background_failures(),
            workspace_problems=self._workspace_problems,
            config_problem=self._live.problem,
        )

    async def doctor(
        self, counter: TokenCounter, *, servers: Sequence[str] | None = None, on_progress: ProgressFn | None = None
    ) -> DoctorReport:
        """Start and list each server (default: all), and judge what it costs and what is wrong with it."""
        await self.loaded()
        refresh = partial(self._catalog.refresh, lister=self._list_downstream)
        examination = Examination(self._config, refresh, self._workspace.stderr_log_path, self.mask)
        context = partial(next_session_context, self._config, self._catalog, self.mask)
        return await examine(examination, counter, context, servers=servers, on_progress=on_progress)

    # Inside.

    async def _start_background(self) -> None:
        await self._catalog_loaded.wait()
        assert self._tg is not None
        try:
            # Each its own guarded task, so one failing does not keep the others from running.
            self._tg.start_soon(self._start_eager_servers, name="starting the eager servers")
            self._tg.start_soon(self._warm_up_validation, name="the argument validation warm-up")
            self._tg.start_soon(self._live.watch, self._tg, name="watching config.json")  # after the catalog load
            if self._config.settings.startup_metadata_check:
                due = self._catalog.needs_refresh()
                if due:
                    self._catalog.queue(due)  # now, so no request takes them for servers with no tools
                    self._tg.start_soon(self.refresh, due, name="the startup refresh of the tool lists")
        finally:
            self._waiting.listings_queued()

    async def _warm_up_validation(self) -> None:
        # Abandoned when the gateway stops: the import it runs is finite, and an exit must not wait for it.
        await anyio.to_thread.run_sync(prepare_validation, abandon_on_cancel=True)

    async def _start_eager_servers(self) -> None:
        self._pool.start_eager_servers()  # after the load: the pool recalls each server's protocol from it

    async def _load_catalog(self) -> None:
        try:
            await self._catalog.load()
        except CatalogError as error:
            # Going on without the cache: each server is listed when it is first needed (`status` says why).
            logger.warning("%s; going on without the cached tool lists", error.message)
        finally:
            self._catalog_loaded.set()

    async def _ensure_listed(self, server: str) -> ServerCatalog:
        """The server's catalog entry, fetching it now when there is none (on-demand loading)."""
        await self.loaded()
        entry = self._catalog.entry(server)
        if entry is not None:
            return entry
        return await self._catalog.refresh(server, self._list_downstream)

    async def _resolved_for(
        self,
        tool: str,
        server: str | None,
        origin: Origin | None,
        *,
        patient: bool = True,
        on_progress: ProgressCallback | None = None,
    ) -> tuple[ResolvedTool, ServerCatalog | None]:
        """The tool `tool` names for the session from `origin`, and its server as that session sees it: its own
        process's listing where that is not the catalog's (`process_views`)."""
        await self._trust.sync()
        resolved, view = await self._found_for(tool, server, origin, patient=patient, on_progress=on_progress)
        await self._trust.judged([resolved.server], view)
        self._trust.refuse_held(resolved, view)
        return resolved, view

    async def _found_for(
        self,
        tool: str,
        server: str | None,
        origin: Origin | None,
        *,
        patient: bool,
        on_progress: ProgressCallback | None,
    ) -> tuple[ResolvedTool, ServerCatalog | None]:
        try:
            with self._live.naming_the_problem():
                resolved = await self._resolver.tool(tool, server, patient=patient, on_progress=on_progress)
        except UnknownToolError:
            named = self._resolver.named_server(tool, server)
            if named is None:
                raise
            own = await self._views.own_listing(named, origin)
            found = None if own is None else own.tool(_bare(tool, named, server))
            if found is None or not self._catalog.allowed(named, found.name):
                raise
            return ResolvedTool(named, found), own
        view = await self._views.listed_for_session(resolved.server, origin)
        if view is None or view is self._catalog.entry(resolved.server):
            return resolved, view
        found = view.tool(resolved.tool.name)
        if found is None:
            raise UnknownToolError(
                Message.of(f"No tool named '{resolved.qualified}' on this session's '{resolved.server}'; ", FIND, ".")
            )
        return ResolvedTool(resolved.server, found), view

    def _server_instructions(self, server: str, view: ServerCatalog | None = None) -> str | None:
        """A server's own instructions as the model reads them, from the session's `view` of it if given (cache.json
        from before they were masked and bounded when listed may still hold them whole)."""
        entry = view if view is not None else self._catalog.entry(server)
        text = entry.instructions if entry is not None else None
        return None if text is None else self._secrets.mask_clipped(text, MAX_SERVER_INSTRUCTIONS_CHARS)

    async def _list_downstream(self, server: str) -> Listing:
        """Ask the server itself for its tools now (starting it if need be); the catalog is not touched."""
        return await self._pool.list_tools(server)

    async def _list_process(self, server: str, process: str | None) -> Listing:
        """`_list_downstream` on the process of key `process` (a server's news came from it), if it runs."""
        return await self._pool.list_tools(server, process=process)

    async def _close_audit(self) -> None:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(self._audit.trail.close)

    async def background_failures(self) -> list[GatewayProblem]:
        """What failed in the background of this gateway and of the others running on this workspace."""
        return await anyio.to_thread.run_sync(self._journal.with_others, list(self._problems))


def _bare(tool: str, server: str, named_by: str | None) -> str:
    """`tool` without the `server.` it may begin with (a server given on its own names none)."""
    return tool.removeprefix(f"{server}.") if named_by is None or tool.startswith(f"{server}.") else tool


def _listed_otherwise(server: str) -> str:
    return (
        f"'{server}' lists other tools for other projects or environments, so its tools are not searched here; "
        f"list_tools with server '{server}' shows this session's."
    )


def mask_error_texts(result: JsonObject, secrets: SecretMask) -> JsonObject:
    """A copy of a `CallToolResult` whose text content items are masked; everything else is kept as sent."""
    content = result.get("content")
    if not isinstance(content, list):
        return result
    return {**result, "content": [_masked_item(item, secrets) for item in cast(list[object], content)]}


def _masked_item(item: object, secrets: SecretMask) -> object:
    if not isinstance(item, dict):
        return item
    fields = cast(JsonObject, item)
    text = fields.get("text")
    return {**fields, "text": secrets.mask(text)} if isinstance(text, str) else fields
