"""Waiting, boundedly, for servers whose tools are being listed: a first session must not find nothing.

On an empty cache a gateway lists every server in the background as it starts, and a model's first
`search_tools` usually arrives before the first listing is done. Answering "nothing known yet, search again"
makes models give up, so a read (search, list, describe, and a call of a tool nobody has listed) waits for
the listings it depends on, and answers with what is known once they end or the wait is over, naming the
servers still loading.

The wait is bounded per listing, not per request: a listing is waited for until `LISTING_WAIT_SECONDS` after
it was asked for. A server that hangs at start therefore costs the first request that meets it at most that
long, and the requests after it nothing. Servers that still have tools from cache.json (stale, being
refreshed) are never waited for: stale tools beat waiting. When the client's request carried a progress
token, progress notifications say which servers are awaited and when each is done.

Only listings already asked for are waited for here; whoever asks for a new one decides how long to wait.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

import anyio

from mcp_gateway.catalog import Catalog
from mcp_gateway.downstream.connection import ProgressCallback
from mcp_gateway.errors import StillLoadingError
from mcp_gateway.wording import Action, Message, Step

LISTING_WAIT_SECONDS = 10.0
"""How long after a server's listing was asked for a request still waits for it. On the 2-CPU development
machine `mcp-gateway doctor` started and listed server-everything in 0.75 to 1.3 s and mcp-server-time (a
Python server) in 1.4 to 2.3 s, in parallel; 10 s leaves room for a slow first start (npx or uvx fetching a
package) and stays far under the 60 s a TypeScript-SDK client (most AI clients) gives a request."""


class ListingWait:
    def __init__(self, catalog: Catalog, seconds: float = LISTING_WAIT_SECONDS) -> None:
        self._catalog = catalog
        self._seconds = seconds
        self._queued: anyio.Event | None = None

    def expect_listings(self) -> None:
        """Listings are about to be queued (the startup refresh, once cache.json is read): until
        `listings_queued()`, a request waits for that instead of taking no listing for none to come."""
        self._queued = anyio.Event()

    def listings_queued(self) -> None:
        if self._queued is not None:
            self._queued.set()

    async def settle(
        self, servers: Collection[str] | None = None, on_progress: ProgressCallback | None = None
    ) -> list[str]:
        """Return once no server in `servers` (None: any) with no tools known is being listed, or once each
        listing has been waited for long enough; the servers still being listed then, in the order asked."""
        if self._queued is not None:
            await self._queued.wait()
        awaited: list[str] = []
        reported = -1
        while True:
            ended = self._catalog.next_listing_end()  # taken before looking, so no end is missed
            now = anyio.current_time()
            listing = {
                name: since
                for name, since in self._catalog.listing_since().items()
                if (servers is None or name in servers) and self._catalog.entry(name) is None
            }
            open_until = {name: since + self._seconds for name, since in listing.items() if since + self._seconds > now}
            awaited += [name for name in open_until if name not in awaited]
            done = [name for name in awaited if name not in listing]
            if on_progress is not None and awaited and len(done) > reported:
                reported = len(done)
                await on_progress(float(len(done)), float(len(awaited)), _progress_message(done, list(open_until)))
            if not open_until:
                return list(listing)
            with anyio.move_on_after(min(open_until.values()) - now):
                await ended.wait()

    def still_loading(self, server: str, action: Action, tool: str | None = None) -> StillLoadingError:
        """The error for a request (`action`, about `server` or its `tool`) whose listing outlasted the wait."""
        since = self._catalog.listing_since().get(server)
        seconds = 0.0 if since is None else anyio.current_time() - since
        return StillLoadingError(
            Message.of(
                f"'{server}' is still starting and listing its tools ({seconds:.0f} s so far); ",
                Step(action, server=server, tool=tool, again=True),
                " in a moment.",
            ),
            server=server,
        )


@dataclass(frozen=True)
class MissingServers:
    """Enabled servers whose tools an answer may lack, because they are not listed."""

    loading: tuple[str, ...]
    """Being listed (or queued) still, past the wait."""
    failed: Mapping[str, str]
    """Listing them failed, and why (masked)."""
    unlisted: tuple[str, ...]
    """Nobody asked to list them (startupMetadataCheck is off)."""


def missing_servers(catalog: Catalog, mask: Callable[[str], str], *, only: str | None = None) -> MissingServers:
    """The enabled servers an answer lacks the tools of; `only`: of that server alone (a search limited to it
    is not about the others, so their troubles are not its notes)."""
    config = catalog.config
    enabled = [name for name, server in config.servers.items() if not server.spec.disabled and only in (None, name)]
    unlisted = enabled if not config.settings.startup_metadata_check else []
    return MissingServers(
        loading=tuple(name for name in catalog.loading() if catalog.entry(name) is None and name in enabled),
        failed={
            name: mask(message)
            for name in enabled
            if (message := catalog.failure(name)) and catalog.entry(name) is None
        },
        unlisted=tuple(name for name in unlisted if catalog.state(name) == "missing"),
    )


def _progress_message(done: list[str], waiting: list[str]) -> str:
    if not waiting:
        return f"Listed the tools of {', '.join(done)}."
    message = f"Waiting for the tools of {', '.join(waiting)}"
    return f"{message} (listed: {', '.join(done)})." if done else f"{message}."
