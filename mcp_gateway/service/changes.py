"""Following what downstream servers say changed: re-listing them, and telling the client what it can see change.

The pool reports two kinds of news per server (`downstream/changes.py`): it said a list of its changed
(`notifications/tools/list_changed`, or the prompts and resources ones), or it was started afresh. Either way
the server is listed again through the catalog's own refresh, so cache.json, the search index and every read
agree at once, and a tool a server added is searchable and callable as soon as that listing ends.

- One follower task per server at a time, in the gateway's background tasks (a failure there is logged and
  reported by `status`, never fatal): news heard while it runs is gathered and answered by one more listing,
  so a burst of notifications costs one listing, and a listing under way when the news came (which may predate
  the change) is waited for and followed by a fresh one.
- Listings for news are at least `RELIST_INTERVAL_SECONDS` apart per server: a server that announces changes
  in a loop costs one listing per interval, not a loop.
- A start is news too: tools can change between sessions (an upgrade, an edited config file of the server's
  own). A server started for a call is listed in the background once it is up, on the connection the call
  uses, so the call never waits for it. A start made for a listing needs no second one.
- What a listing for a start or for tools news finds is compared with the catalog (`same_offer`), and cache.json
  is written only when they differ: some servers announce a change at every start (server-everything adds tools
  once its client is initialized). Prompts and resources news is always stored, as `same_offer` compares tools.
- Prompts and resources news is passed on to every listener (`subscribe`: the MCP server forwards it to its
  client) once the server has been listed again, so a client re-fetching meets the new lists. Tools news is
  not: the client sees the gateway's four tools, which never change.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

import anyio

from mcp_gateway.background import BackgroundTasks
from mcp_gateway.catalog import Catalog, Lister, Listing, same_offer
from mcp_gateway.downstream.changes import ServerChange
from mcp_gateway.errors import DownstreamError

logger = logging.getLogger(__name__)

RELIST_INTERVAL_SECONDS = 2.0
"""The least time between two listings of one server for its news. A listing of a local server takes a few
milliseconds to a few hundred (an npm server with a hundred tools), so a server announcing changes in a loop
costs at most about a tenth of one core, while a real change is searchable within this long."""
LISTENER_SECONDS = 5.0
"""How long one listener may take to pass one change on (a client that stopped reading must not stall the
follower of every later change): a notification is one short line on the client's pipe."""

ClientChange = Literal["prompts", "resources"]
"""A change the client can see: the gateway's own prompts or resources lists."""
ChangeListener = Callable[[ClientChange], Awaitable[None]]
FORWARDED: tuple[ClientChange, ...] = ("prompts", "resources")


ProcessLister = Callable[[str, str | None], Awaitable[Listing]]
"""Lists a server on the process of this key (`Pool.process_key`; None: any)."""
OtherProcess = Callable[[str, Listing], Awaitable[bool]]
"""Told of a listing made on another process than the catalog's entry was listed on (`ProcessViews.heard`)."""


@dataclass
class _Following:
    heard: set[ServerChange] = field(default_factory=set[ServerChange])
    processes: set[str] = field(default_factory=set[str])
    """The processes the news came from."""
    running: bool = False
    listed_at: float = -math.inf


class ChangeFollower:
    def __init__(
        self,
        catalog: Catalog,
        lister: ProcessLister,
        tasks: Callable[[], BackgroundTasks | None],
        *,
        other_process: OtherProcess | None = None,
        interval_seconds: float = RELIST_INTERVAL_SECONDS,
    ) -> None:
        """`lister`: asks the server itself, on a given process (the pool); `tasks`: where followers run once the
        gateway is entered; `other_process`: told of a listing of a process other than the one the catalog's entry
        was listed on, instead of the catalog (`ProcessViews`); `interval_seconds`: see `RELIST_INTERVAL_SECONDS`
        (a seam for tests)."""
        self._catalog = catalog
        self._lister = lister
        self._other_process = other_process
        self._tasks = tasks
        self._interval = interval_seconds
        self._servers: dict[str, _Following] = {}
        self._listeners: list[ChangeListener] = []

    def subscribe(self, listener: ChangeListener) -> Callable[[], None]:
        """Have `listener` told of each prompts or resources change; returns what unsubscribes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    @property
    def listeners(self) -> int:
        """How many listeners are subscribed now (each serving session has one, until it ends)."""
        return len(self._listeners)

    def heard(self, server: str, change: ServerChange, process: str | None = None) -> None:
        """The pool's news of `server`, from the process of key `process` (on the event loop, from the
        connection's reader: returns at once)."""
        following = self._servers.setdefault(server, _Following())
        following.heard.add(change)
        if process is not None:
            following.processes.add(process)
        if following.running:
            return  # the running follower takes it on its next turn
        tasks = self._tasks()
        if tasks is None:
            return  # not serving yet (or any more): nothing is listed for it
        following.running = True
        tasks.start_soon(self._follow, server, following, name=f"following the changes of '{server}'")

    async def _follow(self, server: str, following: _Following) -> None:
        try:
            while following.heard:
                # Spacing the listings out is the point here: this waits for no one, it only bounds the rate.
                await anyio.sleep(max(0.0, following.listed_at + self._interval - anyio.current_time()))
                changes, following.heard = following.heard, set[ServerChange]()
                processes, following.processes = following.processes, set[str]()
                listed = False
                for process in sorted(processes) or [None]:
                    listed = await self._relist(server, changes, process) or listed
                if listed:
                    following.listed_at = anyio.current_time()
                for kind in FORWARDED:
                    if kind in changes:
                        await self._tell(kind)
        finally:
            following.running = False

    async def _relist(self, server: str, changes: set[ServerChange], process: str | None) -> bool:
        """List `server` again for `changes`, on the process of key `process` (None: any); whether a listing was
        made. A process of another resolution than the catalog's entry was listed on is the views' to judge."""
        try:
            if changes == {"started"} and server in self._catalog.loading():
                return False  # a listing asked for is under way or queued: it lists this very start
            await self._after_listings_under_way(server)
            listing = await self._lister(server, process)
            entry = self._catalog.entry(server)
            other = entry is not None and entry.listed_for not in (None, listing.process)
            if other and self._other_process is not None:
                await self._other_process(server, listing)
                return True
            if not changes & {"prompts", "resources"} and same_offer(entry, listing):
                return True  # as cached: cache.json is not written (a server may announce at every start)
            await self._catalog.refresh(server, _given(listing))
            logger.info("'%s' was listed again: %s", server, _said(changes))
        except DownstreamError as error:
            # Its cached tools stay served; the next news (or refresh) lists it again.
            logger.warning("listing '%s' again after its news failed: %s", server, error.message)
        return True

    async def _after_listings_under_way(self, server: str) -> None:
        """Until no listing of `server` is under way or queued: one begun before the news may predate the change,
        and the catalog would hand its result to a new refresh. Each listing is bounded by the request timeout."""
        while True:
            ended = self._catalog.next_listing_end()
            if server not in self._catalog.loading():
                return
            await ended.wait()

    async def _tell(self, kind: ClientChange) -> None:
        for listener in list(self._listeners):
            try:
                with anyio.move_on_after(LISTENER_SECONDS):
                    await listener(kind)
            except Exception:  # a listener's failure must not end the following of later changes
                logger.exception("telling a listener that the %s changed failed", kind)


def _given(listing: Listing) -> Lister:
    async def lister(server: str) -> Listing:
        return listing

    return lister


def _said(changes: set[ServerChange]) -> str:
    kinds = sorted(change for change in changes if change != "started")
    return f"it said its {' and '.join(kinds)} changed" if kinds else "it started and offers other tools than cached"
