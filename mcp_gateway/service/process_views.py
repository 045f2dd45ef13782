"""What a session sees of a server whose tools depend on how the server is resolved for it.

A daemon serves sessions of several projects and environments, and a server is resolved per session
(`downstream/definitions.py`): one without a `cwd` runs in each project, one that reads `${VAR}`s gets each
session's values. Most such servers list the same tools whatever runs them, so the catalog keeps one listing
per server, shared by every session, and searching starts nothing. Some do not (a server whose tools come from
the project it runs in, or from an environment variable). The catalog's entry remembers the process it was
listed on (`ServerCatalog.listed_for`), and when a process of another resolution lists otherwise (its start is
listed, as every start is: `service/changes.py`), the entry is marked `varies`, for good, in cache.json. From
then on what the entry holds is shown only to sessions that resolve the server as it was listed; every other
session gets its own process's listing (kept here, in memory: `listed_for_session` lists it on first need):
- `search_tools` leaves out the tools the session's own process may not have, and says so;
- `list_tools`, `describe_tool` and `execute_tool` answer from the session's own listing, its own server
  instructions included;
- the instructions every session gets say only what the config says of the server (`catalog/summary.py`).
A tool named that the catalog does not know is looked for on the session's own process before it is called
unknown, when that process is not the one listed: a session's own tools are always callable, even before
anyone knew the server varies.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable

from mcp_gateway.catalog import Catalog, Listing, ServerCatalog, same_offer, tool_records
from mcp_gateway.downstream.pool import Origin, Pool

MAX_VIEWS_PER_SERVER = 16
"""Listings kept per server, the least recently used dropped first: one per project or environment in use; a
dropped one is listed again when next needed."""


class ProcessViews:
    def __init__(self, catalog: Catalog, pool: Pool, mark_varies: Callable[[str], Awaitable[None]]) -> None:
        self._catalog = catalog
        self._pool = pool
        self._mark_varies = mark_varies
        self._views: dict[str, OrderedDict[str, ServerCatalog]] = {}

    async def heard(self, server: str, listing: Listing) -> bool:
        """A listing of `server` on a process other than the one its entry was listed on: kept for the sessions
        of that process if it differs (the entry then marked as varying); whether it differed."""
        entry = self._catalog.entry(server)
        if entry is None or listing.process is None or listing.process == entry.listed_for:
            return False
        self._keep(server, listing.process, listing)
        if same_offer(entry, listing):
            return False
        await self._mark_varies(server)
        return True

    async def entry_for(self, server: str, origin: Origin | None) -> ServerCatalog | None:
        """What `server` is for the session from `origin`: the catalog's entry unless it varies and the session
        resolves the server otherwise; then the session's own listing, None while there is none yet."""
        entry = self._catalog.entry(server)
        if origin is None or entry is None or not entry.varies:
            return entry
        key = await self._pool.process_key(server, origin)
        if key == entry.listed_for:
            return entry
        views = self._views.get(server, OrderedDict[str, ServerCatalog]())
        if key in views:
            views.move_to_end(key)
        return views.get(key)

    async def listed_for_session(self, server: str, origin: Origin | None) -> ServerCatalog | None:
        """`entry_for`, listing the session's own process now when it has no listing yet (starting it)."""
        view = await self.entry_for(server, origin)
        entry = self._catalog.entry(server)
        if view is not None or entry is None or origin is None:
            return view
        await self.heard(server, await self._pool.list_tools(server, origin=origin))
        return await self.entry_for(server, origin)

    async def own_listing(self, server: str, origin: Origin | None) -> ServerCatalog | None:
        """The session's own listing of `server` when its process is not the one the catalog listed (listing it
        now if need be), for a tool the catalog does not know; None when it is the one listed."""
        entry = self._catalog.entry(server)
        if origin is None or entry is None or entry.listed_for is None:
            return None
        if await self._pool.process_key(server, origin) == entry.listed_for:
            return None
        listing = await self._pool.list_tools(server, origin=origin)
        await self.heard(server, listing)
        return await self.entry_for(server, origin)

    async def hidden(self, servers: Iterable[str], origin: Origin | None) -> list[str]:
        """Of `servers`, those whose catalog entry is not for the session from `origin` (it varies, and the
        session resolves it otherwise): their cached tools are not this session's to search."""
        if origin is None:
            return []
        hidden: list[str] = []
        for server in dict.fromkeys(servers):
            entry = self._catalog.entry(server)
            if entry is not None and entry.varies and await self._pool.process_key(server, origin) != entry.listed_for:
                hidden.append(server)
        return hidden

    def forget(self, server: str) -> None:
        """The server's definition changed (a live edit): what its processes listed is no one's any more."""
        self._views.pop(server, None)

    def _keep(self, server: str, key: str, listing: Listing) -> None:
        entry = self._catalog.entry(server)
        assert entry is not None
        view = ServerCatalog(
            server=server,
            fingerprint=entry.fingerprint,
            fetched_at=entry.fetched_at,
            tools=tuple(tool_records(listing.tools)),
            protocol_version=listing.protocol_version,
            server_name=listing.server_name,
            server_version=listing.server_version,
            instructions=listing.instructions,
            skipped=listing.skipped,
            server_title=listing.server_title,
            server_description=listing.server_description,
            surface=listing.surface,
            listed_for=key,
        )
        views = self._views.setdefault(server, OrderedDict[str, ServerCatalog]())
        views[key] = view
        views.move_to_end(key)
        while len(views) > MAX_VIEWS_PER_SERVER:
            views.popitem(last=False)
