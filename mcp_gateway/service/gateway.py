"""The gateway's application layer: search, list, describe, execute, refresh and status.

The four meta-tools (`server/`) and the command line (`cli/`) both call this, so a search in the terminal
is the search the model gets. It owns the lifetime of the catalog, the pool and the background refresh:
entering it reads cache.json and reaps what a killed predecessor left behind, and starts nothing else;
`start_background()` begins the startup metadata check once the caller is ready to answer its client.
Nothing it runs in the background can end it: a failure there is logged and reported by
`background_problems()` (see `mcp_gateway.background`), and the gateway serves on.

`secrets` is the one `SecretMask` of this gateway (built from the config and environment), shared by the pool
(errors, errors.json, stderr logs) and used here on whatever else carries a server's words to the model or a
terminal: failures in `status` and search notes, and the text of tool results that are errors.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from types import TracebackType
from typing import cast

import anyio
import anyio.to_thread

from mcp_gateway.background import BackgroundProblems, BackgroundTasks, background_tasks
from mcp_gateway.catalog.catalog import Catalog
from mcp_gateway.catalog.records import JsonObject, Listing, ServerCatalog, ToolRecord
from mcp_gateway.catalog.store import CacheStore
from mcp_gateway.config import GatewayConfig
from mcp_gateway.downstream.connect import Connector, open_client
from mcp_gateway.downstream.connection import ProgressCallback
from mcp_gateway.downstream.pool import Pool, ServerStatus
from mcp_gateway.downstream.process_records import ProcessRecords, reap_stale_groups
from mcp_gateway.errors import (
    CatalogError,
    DownstreamError,
    InvalidArgumentsError,
    ToolCallError,
    UnknownToolError,
)
from mcp_gateway.masking import SecretMask
from mcp_gateway.paths import Workspace
from mcp_gateway.search import SearchEngine, SearchHit
from mcp_gateway.service.arguments import ArgumentChecker
from mcp_gateway.service.arguments import prepare as prepare_validation
from mcp_gateway.service.background_journal import BackgroundJournal, GatewayProblem
from mcp_gateway.service.directory import CatalogDirectory
from mcp_gateway.service.names import ResolvedTool, resolve_server_name, resolve_tool

logger = logging.getLogger(__name__)

LOADING_WAIT_SECONDS = 15.0
"""How long a call for a tool nobody has listed yet waits for servers still loading."""

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Found:
    hit: SearchHit
    tool: ToolRecord


@dataclass(frozen=True)
class SearchReport:
    query: str
    found: tuple[Found, ...]
    notes: tuple[str, ...]
    focused_server: str | None
    loading: tuple[str, ...]
    failed: Mapping[str, str] = field(default_factory=dict[str, str])
    unlisted: tuple[str, ...] = ()
    """Enabled servers with no cached tools that nobody has asked to load (startupMetadataCheck off)."""


@dataclass(frozen=True)
class ToolPage:
    server: str
    tools: tuple[ToolRecord, ...]
    total: int
    offset: int
    instructions: str | None


@dataclass(frozen=True)
class ServerReport:
    name: str
    transport: str
    lifecycle: str
    state: str
    tool_count: int
    fetched_at: float | None
    protocol_version: str | None
    runtime: ServerStatus
    failure: str | None
    skipped: tuple[str, ...] = ()
    """Entries of the server's last listing that were left out as unusable, and why."""


class Gateway:
    def __init__(
        self,
        workspace: Workspace,
        config: GatewayConfig,
        *,
        environ: Mapping[str, str] | None = None,
        connector: Connector = open_client,
        load_in_background: bool = False,
    ) -> None:
        """`load_in_background`: read cache.json after entering, not before; every operation waits for it.

        A serving gateway does this so that its client's `initialize` is answered at once: reading and
        indexing thousands of cached tools takes about a second, and `initialize` and `tools/list` need none
        of them.
        """
        self.workspace = workspace
        self.config = config
        self._environ = dict(os.environ if environ is None else environ)
        self.secrets = SecretMask.for_servers(config.servers.values(), self._environ)
        self.catalog = Catalog(config, CacheStore.for_workspace(workspace), SearchEngine())
        self._directory = CatalogDirectory(self.catalog)
        self._records = ProcessRecords(workspace.process_records_dir)
        self._journal = BackgroundJournal(workspace.background_problems_path)
        self._problems = BackgroundProblems(persist=self._journal.record, mask=self.secrets.mask)
        self._arguments = ArgumentChecker()
        self.pool = Pool(
            config.servers,
            config.settings,
            workspace,
            environ=self._environ,
            protocol_memory=self.catalog,
            records=self._records,
            connector=connector,
            problems=self._problems,
            secrets=self.secrets,
        )
        self._stack = AsyncExitStack()
        self._tg: BackgroundTasks | None = None
        self._load_in_background = load_in_background
        self._catalog_loaded = anyio.Event()
        self.workspace_problems: tuple[str, ...] = ()
        """What does not work in this workspace (a `logs` that is a file, …), one sentence each."""

    async def __aenter__(self) -> Gateway:
        self.workspace_problems = await anyio.to_thread.run_sync(self.workspace.ensure)
        for problem in self.workspace_problems:
            logger.warning("%s", problem)
        await anyio.to_thread.run_sync(reap_stale_groups, self.workspace.process_records_dir)
        if not self._load_in_background:
            await self._load_catalog()
        await self._stack.__aenter__()
        try:
            await self._stack.enter_async_context(self.pool)
            self._tg = await self._stack.enter_async_context(background_tasks(self._problems))
        except BaseException:
            await self._stack.aclose()
            raise
        if self._load_in_background:
            self._tg.start_soon(self._load_catalog, name="reading the cached tool lists")
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        if self._tg is not None:
            self._tg.cancel()
        try:
            return await self._stack.__aexit__(exc_type, exc, tb)
        finally:
            self._records.close()

    def start_background(self) -> None:
        """Once the catalog is loaded: refresh invalid entries (bounded parallelism) and start `eager` servers."""
        assert self._tg is not None
        self._tg.start_soon(self._start_background, name="the startup work")

    async def _start_background(self) -> None:
        await self._catalog_loaded.wait()
        assert self._tg is not None
        # Each its own guarded task, so one failing does not keep the others from running.
        self._tg.start_soon(self._start_eager_servers, name="starting the eager servers")
        self._tg.start_soon(anyio.to_thread.run_sync, prepare_validation, name="the argument validation warm-up")
        if self.config.settings.startup_metadata_check:
            due = self.catalog.needs_refresh()
            if due:
                self._tg.start_soon(self.refresh_servers, due, name="the startup refresh of the tool lists")

    async def _start_eager_servers(self) -> None:
        self.pool.start_eager_servers()  # after the load: the pool recalls each server's protocol from it

    async def _load_catalog(self) -> None:
        try:
            await self.catalog.load()
        except CatalogError as error:
            # Going on without the cache: each server is listed when it is first needed (`status` says why).
            print(f"mcp-gateway: {error.message}; going on without the cached tool lists", file=sys.stderr)
        finally:
            self._catalog_loaded.set()

    async def loaded(self) -> None:
        """Return once cache.json has been read and indexed."""
        await self._catalog_loaded.wait()

    # Operations.

    async def search(self, query: str, *, server: str | None = None, limit: int | None = None) -> SearchReport:
        await self.loaded()
        await self.catalog.sync_from_disk()
        notes: list[str] = []
        if server:
            target = await self.catalog.resolve_hint(server)
            named = target or self._configured_name(server)
            if named is not None and self.catalog.entry(named) is None:
                try:
                    await self.ensure_listed(named)
                except DownstreamError as error:
                    notes.append(self.secrets.mask(error.message))
        result = await self.catalog.search(query, server=server, limit=limit or self.config.settings.tool_search_limit)
        found = tuple(
            Found(hit, tool) for hit in result.hits if (tool := self.catalog.find(hit.server, hit.tool)) is not None
        )
        enabled = [name for name, spec in self.config.servers.items() if not spec.spec.disabled]
        failed = {
            name: self.secrets.mask(message)
            for name in enabled
            if (message := self.catalog.failure(name)) and self.catalog.entry(name) is None
        }
        unlisted = tuple(
            name
            for name in enabled
            if self.catalog.state(name) == "missing" and not self.config.settings.startup_metadata_check
        )
        return SearchReport(
            query=query,
            found=found,
            notes=(*notes, *result.notes),
            focused_server=result.focused_server,
            loading=tuple(self.catalog.loading()),
            failed=failed,
            unlisted=unlisted,
        )

    def resolve_server(self, server: str) -> str:
        """The configured server a name or alias means; `UnknownServerError` when none."""
        return resolve_server_name(self._directory, server)

    async def list_tools(self, server: str, *, limit: int | None = None, offset: int = 0) -> ToolPage:
        await self.loaded()
        name = resolve_server_name(self._directory, server)
        entry = await self.ensure_listed(name)
        tools = self.catalog.tools(name)
        end = len(tools) if limit is None else offset + limit
        return ToolPage(name, tuple(tools[offset:end]), len(tools), offset, entry.instructions)

    async def describe(self, tool: str, *, server: str | None = None) -> ResolvedTool:
        return await self._resolve(tool, server)

    async def execute(
        self,
        tool: str,
        arguments: JsonObject,
        *,
        server: str | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> JsonObject:
        """Call the downstream tool and return its `CallToolResult` exactly as the server sent it.

        Raises:
            ToolCallError: unknown/ambiguous/filtered tool, invalid arguments, or a downstream failure.
        """
        resolved = await self._resolve(tool, server)
        check = await self._arguments.check(resolved.tool.input_schema_json, arguments)
        if check.unchecked is not None:
            logger.log(
                logging.DEBUG if check.schema_at_fault else logging.WARNING,
                "server '%s', tool '%s': arguments sent unchecked because %s",
                resolved.server,
                resolved.tool.name,
                check.unchecked,
            )
        if check.problems:
            problems = list(check.problems)
            raise InvalidArgumentsError(
                f"The arguments for '{resolved.qualified}' do not match its input schema: {'; '.join(problems)}. "
                "Fix them and call execute_tool again.",
                problems,
            )
        annotations = resolved.tool.annotations or {}
        retry_safe = annotations.get("readOnlyHint") is True or annotations.get("idempotentHint") is True
        result = await self.pool.call_tool(
            resolved.server, resolved.tool.name, arguments, on_progress=on_progress, retry_safe=retry_safe
        )
        if result.get("isError") is True:
            # An error is the server's words about what went wrong, which may quote its own credential; a
            # successful result is data the model asked for and passes through untouched.
            return await anyio.to_thread.run_sync(mask_error_texts, result, self.secrets)
        return result

    async def refresh_servers(self, servers: list[str] | None = None) -> None:
        await self.loaded()
        names = servers if servers is not None else [n for n, s in self.config.servers.items() if not s.spec.disabled]
        await self.catalog.refresh_many(
            names, self.list_downstream, concurrency=self.config.settings.refresh_concurrency
        )

    async def ensure_listed(self, server: str) -> ServerCatalog:
        """The server's catalog entry, fetching it now when there is none (on-demand loading)."""
        await self.loaded()
        entry = self.catalog.entry(server)
        if entry is not None:
            return entry
        return await self.catalog.refresh(server, self.list_downstream)

    async def status(self) -> list[ServerReport]:
        await self.loaded()
        await self.catalog.sync_from_disk()
        reports: list[ServerReport] = []
        for name, server in self.config.servers.items():
            entry = self.catalog.entry(name)
            reports.append(
                ServerReport(
                    name=name,
                    transport=server.spec.type,
                    lifecycle=server.spec.lifecycle,
                    state=self.catalog.state(name),
                    tool_count=len(self.catalog.tools(name)),
                    fetched_at=entry.fetched_at if entry is not None else None,
                    protocol_version=self.catalog.recall(name),
                    runtime=self.pool.status(name),
                    failure=self._failure(name),
                    skipped=entry.skipped if entry is not None else (),
                )
            )
        return reports

    async def background_problems(self) -> list[GatewayProblem]:
        """What failed in the background of this gateway and of the others running on this workspace."""
        own = [GatewayProblem(os.getpid(), problem) for problem in self._problems]
        recorded = await anyio.to_thread.run_sync(self._journal.read)
        others = [found for found in recorded if found.gateway_pid != os.getpid()]
        return sorted(own + others, key=lambda found: found.problem.at)

    async def list_downstream(self, server: str) -> Listing:
        """Ask the server itself for its tools now (starting it if need be); the catalog is not touched."""
        return await self.pool.list_tools(server)

    # Helpers.

    def _failure(self, server: str) -> str | None:
        failure = self.catalog.failure(server)
        return self.secrets.mask(failure) if failure is not None else None

    async def _resolve(self, tool: str, server: str | None) -> ResolvedTool:
        await self.loaded()
        await self.catalog.sync_from_disk()
        named = self._named_server(tool, server)
        if named is not None and self.catalog.entry(named) is None and not self.config.servers[named].spec.disabled:
            await self.ensure_listed(named)
        try:
            return resolve_tool(self._directory, tool, server)
        except UnknownToolError:
            if not self.catalog.loading():
                raise
        with anyio.move_on_after(LOADING_WAIT_SECONDS):
            while self.catalog.loading():
                await self.catalog.wait_loaded()
        return resolve_tool(self._directory, tool, server)

    def _named_server(self, tool: str, server: str | None) -> str | None:
        """The configured server a call names explicitly or by prefix, if any."""
        if server:
            return self._configured_name(server)
        for name in sorted(self.config.servers, key=len, reverse=True):
            if tool.startswith(name + "."):
                return name
        return None

    def _configured_name(self, server: str) -> str | None:
        try:
            return resolve_server_name(self._directory, server)
        except ToolCallError:
            return None


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
