"""The live catalog: what every configured server's tools are, kept in step with cache.json and the index.

One object answers "which tools exist" for the whole gateway. It starts from `cache.json` alone (no
server is started to answer a search), says per server whether its entry is fresh, stale, missing, being
loaded (queued or listed right now, and since when) or failed, refreshes entries through a lister it is
given (the pool, in practice), writes them
back to the shared file (merging with other gateway processes), and keeps the search index in step one
server at a time, including when another process wrote the file.

An entry whose TTL expired but whose config fingerprint still matches is served while it is refreshed:
stale tools beat no tools. An entry fetched for a different connection config is never served.

The event loop never reads, parses or indexes: cache.json is read in a worker thread, and the search engine
has one owner, a worker thread holding `_engine_owner`, which both re-indexes and runs queries. A catalog of
thousands of tools then costs the loop nothing while it is re-read, and a query never meets a half-built
index. What is known per server (`_entries`) changes on the loop, before the index follows it; only the
first load fills it in the owner thread, before anything else reads the catalog.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

import anyio
import anyio.to_thread

from mcp_gateway.catalog.records import Listing, ServerCatalog, ToolRecord, fingerprint, tool_allowed, tool_records
from mcp_gateway.catalog.store import CacheSignature, CacheStore
from mcp_gateway.catalog.summary import ServerSummary
from mcp_gateway.config import GatewayConfig
from mcp_gateway.errors import CatalogError, DownstreamError

if TYPE_CHECKING:  # the search package loads with the session: the daemon's hello path imports the catalog's face
    from mcp_gateway.search import SearchEngine, SearchResult, ToolEntry

EntryState = Literal["fresh", "stale", "missing", "loading", "failed", "disabled"]


Lister = Callable[[str], Awaitable[Listing]]
ListingStep = Literal["starting", "done"]
"""A server's turn to be listed has come / its listing is over (listed or failed: see `failure`)."""


class Catalog:
    def __init__(self, config: GatewayConfig, store: CacheStore, engine: SearchEngine) -> None:
        self._config = config
        self._store = store
        self._engine = engine
        self._fingerprints = {name: fingerprint(server.identity) for name, server in config.servers.items()}
        self._entries: dict[str, ServerCatalog] = {}
        self._signature: CacheSignature | None = None
        self._loading: dict[str, anyio.Event] = {}
        """Listings running now, each with the event set when it ends (concurrent refreshes share it)."""
        self._pending: dict[str, float] = {}
        """Servers queued or being listed, with when that was asked (`anyio.current_time()`)."""
        self._listing_ended = anyio.Event()
        self._failures: dict[str, str] = {}
        self._protocols: dict[str, str] = {}
        self._engine_owner = anyio.CapacityLimiter(1)
        self._syncing: anyio.Event | None = None
        self._notice: str | None = None
        self.admits: Callable[[ServerCatalog, str], bool] = lambda entry, tool: True
        """Whether a tool of an entry is served at all (the integrity gate's say, `service/trust.py`)."""

    @property
    def config(self) -> GatewayConfig:
        return self._config

    @property
    def notice(self) -> str | None:
        """Why cache.json is not what this gateway serves or cannot be updated, as of the last look; else None."""
        return self._notice

    async def reconfigure(self, config: GatewayConfig) -> None:
        """Serve `config` from now on (a live edit): every server is indexed anew under its aliases, description
        and filters; one removed leaves the index, one whose connection changed has no entry until listed again,
        and one added takes its entry from cache.json when an earlier listing of that definition is there."""
        gone = [name for name in self._config.servers if name not in config.servers]
        self._config = config
        self._fingerprints = {name: fingerprint(server.identity) for name, server in config.servers.items()}
        self._signature = None  # the next look at cache.json reads it whole, for the servers added
        await self._reindex([*gone, *config.servers])
        await self.sync_from_disk()

    # Reading.

    async def load(self) -> None:
        """Read cache.json and index every usable entry (no server is contacted), all in a worker thread.

        Raises:
            CatalogError: cache.json exists but cannot be read (the catalog then starts empty).
        """
        await anyio.to_thread.run_sync(self.load_now, limiter=self._engine_owner)

    def load_now(self) -> None:
        """`load`, in the calling thread: the engine's owner, before anything else reads the catalog."""
        try:
            view = self._store.load()
        except CatalogError as error:
            self._notice = error.message
            raise
        self._notice = view.notice
        self._signature = view.signature
        self._index_now(self._adopt(view.servers))
        self._store.refresh_digest(view)

    async def summaries(self) -> dict[str, ServerSummary]:
        """What the digest beside cache.json says of each configured server it was written for (see `summary`).

        Read from the digest, never from memory, so that what the gateway's instructions say does not depend
        on whether cache.json happened to be loaded yet: a few hundred bytes per server, in a worker thread.
        """
        digest = await anyio.to_thread.run_sync(self._store.load_digest)
        return {
            name: summary
            for name, summary in digest.servers.items()
            if self._fingerprints.get(name) == summary.fingerprint
        }

    async def sync_from_disk(self) -> None:
        """Pick up what another gateway process wrote since we last looked; concurrent callers share one read.

        Costs the event loop one `lstat` when nothing changed; reading, parsing and indexing run in threads.
        """
        if self._syncing is not None:
            await self._syncing.wait()
            return
        try:
            if not self._store.changed_since(self._signature):
                return
        except CatalogError:
            return
        done = self._syncing = anyio.Event()
        try:
            try:
                view = await anyio.to_thread.run_sync(self._store.load)
            except CatalogError as error:
                self._notice = error.message  # unreadable for a moment? keep serving what we have
                return
            self._notice = view.notice
            await self._apply(view.servers, signature=view.signature)
        finally:
            self._syncing = None
            done.set()

    async def search(
        self, query: str, *, alternatives: tuple[str, ...] = (), server: str | None, limit: int
    ) -> SearchResult:
        """The engine's ranking for `query` and its other phrasings, computed by the engine's owner."""
        run = functools.partial(self._engine.search, query, alternatives=alternatives, server=server, limit=limit)
        return await anyio.to_thread.run_sync(run, limiter=self._engine_owner)

    def state(self, server: str) -> EntryState:
        spec = self._config.servers[server].spec
        if spec.disabled:
            return "disabled"
        if server in self._pending:
            return "loading"
        entry = self._entries.get(server)
        if entry is not None and entry.fingerprint == self._fingerprints[server]:
            return "fresh" if entry.is_fresh(entry.fingerprint, self._config.settings.cache_ttl_days) else "stale"
        return "failed" if server in self._failures else "missing"

    def entry(self, server: str) -> ServerCatalog | None:
        """The server's usable entry (fresh or stale), or None."""
        entry = self._entries.get(server)
        if entry is None or entry.fingerprint != self._fingerprints.get(server):
            return None
        return entry

    def failure(self, server: str) -> str | None:
        return self._failures.get(server)

    def loading(self) -> list[str]:
        """Servers queued to be listed or being listed, in the order that was asked."""
        return list(self._pending)

    def listing_since(self) -> dict[str, float]:
        """Each server queued or being listed, with when that was asked (`anyio.current_time()`)."""
        return dict(self._pending)

    def next_listing_end(self) -> anyio.Event:
        """An event set when the next listing ends (or a queued one is dropped); take it before looking."""
        return self._listing_ended

    def queue(self, servers: Iterable[str]) -> None:
        """Say these servers are about to be listed (a batch lists them a few at a time): until each has been,
        `loading()` names it, so nobody takes a server not listed yet for one that has no tools."""
        now = anyio.current_time()
        for name in servers:
            self._pending.setdefault(name, now)

    def _listing_over(self, server: str) -> None:
        if server in self._loading:
            return  # another caller's listing of it is still running
        self._pending.pop(server, None)
        ended, self._listing_ended = self._listing_ended, anyio.Event()
        ended.set()

    def needs_refresh(self) -> list[str]:
        """Enabled servers whose entry is missing, stale, from another config, or forced by `refreshOnStartup`."""
        due: list[str] = []
        for name, server in self._config.servers.items():
            if server.spec.disabled:
                continue
            if server.spec.refresh_on_startup or self.state(name) in ("missing", "stale", "failed"):
                due.append(name)
        return due

    def tools(self, server: str) -> list[ToolRecord]:
        """The server's tools that its include/exclude filters allow."""
        entry = self.entry(server)
        if entry is None or self._config.servers[server].spec.disabled:
            return []
        return [tool for tool in entry.tools if self.allowed(server, tool.name) and self.admits(entry, tool.name)]

    def find(self, server: str, tool: str) -> ToolRecord | None:
        entry = self.entry(server)
        return entry.tool(tool) if entry is not None else None

    def allowed(self, server: str, tool: str) -> bool:
        spec = self._config.servers[server].spec
        return tool_allowed(tool, spec.include_tools, spec.exclude_tools)

    # Protocol memory for the pool.

    def recall(self, server: str) -> str | None:
        if server in self._protocols:
            return self._protocols[server]
        entry = self.entry(server)
        return entry.protocol_version if entry is not None else None

    def remember(self, server: str, protocol_version: str) -> None:
        self._protocols[server] = protocol_version

    # Refreshing.

    async def refresh(self, server: str, lister: Lister) -> ServerCatalog:
        """Fetch one server's tools now; concurrent refreshes of one server share the first.

        Raises:
            DownstreamError: the server could not be started or listed (also recorded as its failure).
        """
        running = self._loading.get(server)
        if running is not None:
            await running.wait()
            entry = self.entry(server)
            if entry is None:
                raise DownstreamError(
                    self._failures.get(server, f"Listing the tools of '{server}' failed."),
                    server=server,
                    phase="list_tools",
                    retryable=True,
                )
            return entry
        done, wanted = anyio.Event(), self._fingerprints[server]  # a live edit may change it meanwhile
        self._loading[server] = done
        self._pending.setdefault(server, anyio.current_time())
        try:
            listing = await lister(server)
            before = self._entries.get(server)
            entry = ServerCatalog(
                server=server,
                fingerprint=wanted,
                fetched_at=time.time(),
                tools=tuple(tool_records(listing.tools)),
                protocol_version=listing.protocol_version,
                server_name=listing.server_name,
                server_version=listing.server_version,
                instructions=listing.instructions,
                skipped=listing.skipped,
                server_title=listing.server_title,
                server_description=listing.server_description,
                surface=listing.surface,
                listed_for=listing.process,
                # Once a server is known to list otherwise per resolution, it stays known so for its definition.
                varies=before is not None and before.fingerprint == wanted and before.varies,
            )
            self._failures.pop(server, None)
            self._entries[server] = entry
            await self._reindex([server])
            await self._persist(entry)
        except DownstreamError as error:
            self._failures[server] = error.message
            raise
        finally:
            del self._loading[server]
            done.set()
            self._listing_over(server)
        return entry

    async def mark_varies(self, server: str) -> None:
        """Another resolution of `server` lists otherwise than its entry (`service/process_views.py`): say so in
        the entry and in cache.json, so every gateway of the workspace shows the entry only to its own sessions."""
        entry = self._entries.get(server)
        if entry is None or entry.varies:
            return
        entry = dataclasses.replace(entry, varies=True)
        self._entries[server] = entry
        await self._persist(entry)

    async def _persist(self, entry: ServerCatalog) -> None:
        try:
            merged = await anyio.to_thread.run_sync(self._store.save_server, entry)
        except CatalogError as error:
            self._notice = error.message  # the entry still serves this process; a later write may persist it
            return
        self._notice = merged.notice
        await self._apply(merged.servers, keep=entry.server, signature=merged.signature)

    async def refresh_many(
        self,
        servers: Iterable[str],
        lister: Lister,
        *,
        on_step: Callable[[str, ListingStep], None] | None = None,
    ) -> None:
        """Refresh servers, `refreshConcurrency` at a time; a failing server never stops the others.

        Every server is queued at once (see `queue`), before the first is listed. `on_step` hears when each
        server's turn comes and when its listing is over, for a person watching.
        """
        limiter = anyio.CapacityLimiter(self._config.settings.refresh_concurrency)
        names = list(servers)
        self.queue(names)

        async def one(name: str) -> None:
            # A failure is recorded in `failure(name)`, which searches report.
            try:
                async with limiter:
                    if on_step is not None:
                        on_step(name, "starting")
                    with contextlib.suppress(DownstreamError):
                        await self.refresh(name, lister)
                    if on_step is not None:
                        on_step(name, "done")
            finally:
                self._listing_over(name)  # also when cancelled before its turn came

        async with anyio.create_task_group() as tg:
            for name in names:
                tg.start_soon(one, name)

    # Keeping the index in step.

    async def _apply(
        self, entries: dict[str, ServerCatalog], *, signature: CacheSignature | None, keep: str | None = None
    ) -> None:
        """Adopt entries read from disk that are newer than ours, as of the file `signature`; re-index them."""
        changed = self._adopt(entries, keep)
        self._signature = signature  # with the adoption, before any await: the two never disagree
        await self._reindex(changed)

    def _adopt(self, entries: dict[str, ServerCatalog], keep: str | None = None) -> list[str]:
        """Take the entries newer than ours; returns the servers whose entry changed.

        The file can lag behind memory (a refresh of another server saved a view read before ours landed),
        so an entry missing or older on disk never replaces or removes the one held here.
        """
        changed: list[str] = []
        for name in self._config.servers:
            incoming = entries.get(name)
            if name == keep or incoming is None:
                continue
            if self._newer(incoming, self._entries.get(name), self._fingerprints[name]):
                self._entries[name] = incoming
                changed.append(name)
        return changed

    async def reindex(self, servers: Sequence[str]) -> None:
        """Index these servers again: what `admits` says of their tools changed."""
        await self._reindex(servers)

    async def _reindex(self, servers: Sequence[str]) -> None:
        """Bring the index in step with `_entries` for these servers, in the engine's thread.

        Shielded: an entry already adopted must reach the index even if the request that read it is
        cancelled; the work is bounded by the catalog's size.
        """
        if not servers:
            return
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(self._index_now, list(servers), limiter=self._engine_owner)

    def _index_now(self, servers: Sequence[str]) -> None:
        if len(servers) == 1:
            self._index(servers[0])
            return
        with self._engine.batch():
            for name in servers:
                self._index(name)

    @staticmethod
    def _newer(incoming: ServerCatalog, current: ServerCatalog | None, fingerprint: str) -> bool:
        if incoming.fingerprint != fingerprint:
            return current is None  # fetched for another config: never served, kept only as a placeholder
        if current is None or current.fingerprint != fingerprint:
            return True
        return incoming.fetched_at > current.fetched_at

    def _index(self, server: str) -> None:
        config = self._config.servers.get(server)
        # Removed by a live edit, or disabled: not a server a search may name (not even as one with no tools).
        tools = self.tools(server) if config is not None and not config.spec.disabled else []
        if config is None or config.spec.disabled or (not tools and self.entry(server) is None):
            self._engine.remove_server(server)
            return
        from mcp_gateway.search import ServerEntry

        spec = config.spec
        entry = ServerEntry(server, tuple(spec.aliases), spec.description)
        self._engine.replace_server(entry, [search_entry(server, tool) for tool in tools])


def search_entry(server: str, tool: ToolRecord) -> ToolEntry:
    from mcp_gateway.search import ToolEntry

    title = tool.title
    if title is None and tool.annotations is not None and isinstance(tool.annotations.get("title"), str):
        title = cast(str, tool.annotations["title"])
    return ToolEntry(server, tool.name, tool.description, title, tuple(_parameters(tool.input_schema)))


def _parameters(schema: dict[str, Any]) -> Iterable[tuple[str, str]]:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for name, value in cast(dict[str, Any], properties).items():
        description = cast(dict[str, Any], value).get("description") if isinstance(value, dict) else None
        yield str(name), description if isinstance(description, str) else ""
