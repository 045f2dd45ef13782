"""Prompts, resources, resource templates and completions of every server, through the gateway.

Contract:
- `prompts/list`, `resources/list` and `resources/templates/list` are answered from the catalog (each server's
  `Surface`, listed and cached with its tools): no process is started. A listing under way is waited for as a
  search waits for one (`listing_wait`). Enabled servers only, in config order, in pages of `PAGE_SIZE`.
- Prompts are named `<server>__<prompt>` (`prompt_names`), URIs pass unchanged unless several servers share
  their scheme (`resource_uris`); the originals are kept in each entry's `_meta` (`ORIGIN_META`).
- `prompts/get`, `resources/read`, `completion/complete` and `resources/(un)subscribe` go to the owning server
  through the pool (started lazily, with the pool's timeouts, backoff and errors); their results pass through
  as the server sent them, except that a read's `contents[].uri` is what the client knows the resource by.
- A prompt or resource template held for review (new on a known server, changed since approved, or flagged:
  `service/trust.py`) is left out of its listing, and `prompts/get` or a completion of a held prompt is refused
  naming `mcp-gateway review`, before its server is asked. So is a read of a URI its server does not list whose
  every template of that server that could expand to it is held (and a completion of a held template): such a URI
  can only come from a template the user has not approved; one that a trusted template matches too is served.
- What cannot be served is a `RequestError` (a JSON-RPC error, one sentence): an unknown prompt or URI, a
  disabled server, a server that does not support what was asked. A downstream failure stays the pool's
  `DownstreamError` (masked there), which the server layer turns into a JSON-RPC error too.
- A subscription is held on its server (`Pool.subscribe`) while anyone holds it: a handshake-era session
  (`subscribe` until `unsubscribe`, or until it ends: `release`) or a 2026-07-28 client's listen streams
  (`listening`, for the stream's life), one downstream subscription per resource whoever holds it.
- `resources/updated` from a server is forwarded, with the URI subscribed to, to each holder of that
  subscription and no one else: a daemon serves many sessions, and one never hears of another's resources.
- Each request and subscription carries the `Origin` of the session that made it (None: the gateway's own), so
  the pool serves it from that session's resolution of the server (`downstream/definitions.py`). A subscription
  is held per process, not per server name: sessions whose resolutions are equal share one (held once, whoever
  holds it), a session resolving the server otherwise (another project, another environment) holds its own on
  its own process, and an update reaches only the holders of the process that sent it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, cast

import anyio
import mcp_types as types

from mcp_gateway.audit import Auditor
from mcp_gateway.bounds import MAX_ECHOED_NAME_CHARS, clip
from mcp_gateway.catalog import Catalog, Surface
from mcp_gateway.downstream.pool import Pool
from mcp_gateway.errors import GatewayError, RequestError
from mcp_gateway.json_object import JsonObject
from mcp_gateway.origin import Origin
from mcp_gateway.service.listing_wait import ListingWait
from mcp_gateway.service.offerings.prompt_names import PromptNames, PromptRef
from mcp_gateway.service.offerings.resource_uris import Route, UriMap, matches, uri_map
from mcp_gateway.service.trust import TrustKeeper

logger = logging.getLogger(__name__)

PAGE_SIZE = 500
"""Entries per page of a listing. Clients differ in whether they follow `nextCursor`: a page this large holds
every prompt and resource of a usual setup (server-everything lists 4 prompts and 7 resources), while a server
listing thousands of resources still costs the client one bounded answer at a time."""
ORIGIN_META = "io.github.mcp-gateway/origin"
"""The `_meta` member of a listed prompt, resource or template naming its server and its own name or URI."""

Sink = Callable[[str], Awaitable[None]]
"""Sends the client `notifications/resources/updated` for a client-facing URI."""
_Key = tuple[str, str, str]
"""A subscription's server, the key of the process it is held on (`Pool.process_key`), and the server's URI."""


@dataclass
class _Subscription:
    client_uri: str
    """The URI the client subscribed with."""
    release: anyio.Event
    """Set, the pool's holder unsubscribes on the server and lets its connection go idle."""
    holders: dict[object, Sink] = field(default_factory=dict[object, Sink])
    """Who holds it (a session, a listen stream), and where each hears its updates."""


class Offerings:
    def __init__(
        self,
        catalog: Catalog,
        pool: Pool,
        waiting: ListingWait,
        loaded: Callable[[], Awaitable[None]],
        *,
        audit: Auditor,
        trust: TrustKeeper,
    ):
        """`audit`: what each `prompts/get` and `resources/read` is recorded in (logs/audit.jsonl); `trust`: which
        prompts and templates are held for review."""
        self._catalog = catalog
        self._trust = trust
        self._audit = audit
        self._pool = pool
        self._waiting = waiting
        self._loaded = loaded
        self._subscribed: dict[_Key, _Subscription] = {}
        """(server, its process's key, its URI) → the subscription held there."""
        self._joining: dict[_Key, _Subscription] = {}
        """(server, its process's key, its URI) → who waits for its first subscribe: an update may come at once."""

    # Listings, from the catalog.

    async def list_prompts(self, cursor: str | None) -> JsonObject:
        await self._ready()
        names = self._prompt_names()
        prompts = [
            _with_origin({**prompt, "name": names.name(PromptRef(server, str(prompt["name"])))}, server, prompt, "name")
            for server, surface in self._surfaces()
            for held in [self._trust.withheld(server, "prompt")]
            for prompt in surface.prompts
            if str(prompt["name"]) not in held
        ]
        return _page("prompts", prompts, cursor)

    async def list_resources(self, cursor: str | None) -> JsonObject:
        await self._ready()
        uris = self._uri_map()
        resources = [
            _with_origin({**item, "uri": uris.client_uri(server, str(item["uri"]))}, server, item, "uri")
            for server, surface in self._surfaces()
            for item in surface.resources
        ]
        return _page("resources", resources, cursor)

    async def list_templates(self, cursor: str | None) -> JsonObject:
        await self._ready()
        uris = self._uri_map()
        templates = [
            _with_origin(
                {**item, "uriTemplate": uris.client_uri(server, str(item["uriTemplate"]))}, server, item, "uriTemplate"
            )
            for server, surface in self._surfaces()
            for held in [self._trust.withheld(server, "template")]
            for item in surface.templates
            if str(item.get("name")) not in held
        ]
        return _page("resourceTemplates", templates, cursor)

    # Requests, routed to the owning server.

    async def get_prompt(
        self, name: str, arguments: dict[str, str] | None, *, origin: Origin | None = None
    ) -> JsonObject:
        with self._audit.call("prompt", name, dict(arguments or {}), origin) as audited:
            await self._ready()
            ref = self._prompt(name)
            audited.server, audited.name = ref.server, ref.prompt
            self._refuse_held(name, ref)
            request = types.GetPromptRequest(params=types.GetPromptRequestParams(name=ref.prompt, arguments=arguments))
            audited.result = await self._pool.request(ref.server, request, origin=origin)
            return audited.result

    async def read_resource(self, uri: str, *, origin: Origin | None = None) -> JsonObject:
        with self._audit.call("resource", uri, None, origin) as audited:
            await self._ready()
            uris = self._uri_map()
            route = self._route(uris, uri)
            audited.server, audited.name = route.server, route.uri
            self._refuse_held_template(uri, route)
            request = types.ReadResourceRequest(params=types.ReadResourceRequestParams(uri=route.uri))
            result = await self._pool.request(route.server, request, origin=origin)
            contents: Any = result.get("contents")
            if isinstance(contents, list):  # what the client knows each item by (unchanged unless the scheme is shared)
                result["contents"] = [_known_as(uris, route.server, item) for item in cast(list[object], contents)]
            audited.result = result
            return result

    async def complete(self, params: JsonObject, *, origin: Origin | None = None) -> JsonObject:
        """`completion/complete` for a prompt's argument (`ref/prompt`) or a template's (`ref/resource`)."""
        await self._ready()
        ref = cast(JsonObject, params.get("ref") or {})
        if ref.get("type") == "ref/prompt":
            prompt = self._prompt(str(ref.get("name")))
            self._refuse_held(str(ref.get("name")), prompt)
            server, own_ref = prompt.server, {**ref, "name": prompt.prompt}
        else:
            route = self._route(self._uri_map(), str(ref.get("uri")))
            self._refuse_held_template(str(ref.get("uri")), route)
            server, own_ref = route.server, {**ref, "uri": route.uri}
        surface = self._surface(server)
        if surface is None or not surface.completions:
            return {"completion": {"values": [], "hasMore": False}}  # it offers none: nothing to suggest
        own = types.CompleteRequestParams.model_validate({**params, "ref": own_ref})
        return await self._pool.request(server, types.CompleteRequest(params=own), origin=origin)

    async def subscribe(self, uri: str, sink: Sink, holder: object, *, origin: Origin | None = None) -> None:
        """Forward `resources/subscribe` of the session `holder` and keep it (`downstream/subscriptions.py`);
        the server's `resources/updated` for it then reach `sink`, until `unsubscribe` or `release`."""
        await self._ready()
        route = self._subscribable(uri)
        await self._hold(route, uri, holder, sink, origin)

    async def unsubscribe(self, uri: str, holder: object) -> None:
        await self._ready()
        route = self._subscribable(uri)
        for key in [key for key in self._subscribed if key[::2] == (route.server, route.uri)]:
            self._let_go_of(key, holder)  # never subscribed: nothing to undo

    def release(self, holder: object) -> int:
        """Let go of every subscription `holder` holds (its session ended without unsubscribing); how many."""
        held = [key for key, subscription in self._subscribed.items() if holder in subscription.holders]
        for key in held:
            self._let_go_of(key, holder)
        return len(held)

    def holders(self) -> int:
        """How many distinct holders hold a subscription now (for the tests of sessions that leave)."""
        return len({holder for subscription in self._subscribed.values() for holder in subscription.holders})

    @asynccontextmanager
    async def listening(
        self, uris: Sequence[str], sink: Sink, *, origin: Origin | None = None
    ) -> AsyncGenerator[list[str]]:
        """Hold a subscription to each of `uris` (a 2026-07-28 client's listen stream) while inside; yields those
        held, in their order. One that cannot be held (unknown, its server does not support subscriptions or
        failed) is left out and logged, as the stream's acknowledgment leaves it out for the client."""
        await self._ready()
        holder = object()
        held: dict[str, _Key] = {}

        async def hold(uri: str) -> None:
            try:
                route = self._subscribable(uri)
                held[uri] = await self._hold(route, uri, holder, sink, origin)
            except GatewayError as error:  # unknown, not subscribable, or its server failed
                logger.warning("a listen stream's subscription to %s is not held: %s", uri, error.message)

        try:
            async with anyio.create_task_group() as holding:  # each may start its server: side by side
                for uri in dict.fromkeys(uris):
                    holding.start_soon(hold, uri)
            yield [uri for uri in dict.fromkeys(uris) if uri in held]
        finally:
            for key in held.values():
                self._let_go_of(key, holder)

    def _let_go_of(self, key: _Key, holder: object) -> None:
        subscription = self._subscribed.get(key)
        if subscription is None or holder not in subscription.holders:
            return
        del subscription.holders[holder]
        if not subscription.holders:
            del self._subscribed[key]
            subscription.release.set()

    async def _hold(self, route: Route, uri: str, holder: object, sink: Sink, origin: Origin | None) -> _Key:
        key = (route.server, await self._pool.process_key(route.server, origin), route.uri)
        if key not in self._subscribed:  # else subscribed already: one subscription per resource, as for a server
            joining = self._joining.setdefault(key, _Subscription(uri, anyio.Event()))
            joining.holders[holder] = sink
            try:
                release = await self._pool.subscribe(route.server, route.uri, origin=origin)
            finally:
                joining.holders.pop(holder, None)
                if not joining.holders:
                    self._joining.pop(key, None)
            if key in self._subscribed:
                release.set()  # another holder subscribed meanwhile: theirs serves both
            else:
                self._subscribed[key] = _Subscription(uri, release)
        self._subscribed[key].holders[holder] = sink
        return key

    async def notified(self, server: str, process: str, notification: types.ServerNotification) -> None:
        """A notification of the `server` process whose key is `process` (the pool's `on_notification`):
        `resources/updated` goes to each holder of that process's subscription (none: nobody asked to hear)."""
        if not isinstance(notification, types.ResourceUpdatedNotification):
            return
        key = (server, process, notification.params.uri)
        subscribed = self._subscribed.get(key) or self._joining.get(key)
        if subscribed is None:
            return
        for sink in list(subscribed.holders.values()):
            try:
                await sink(subscribed.client_uri)
            except Exception:  # that client went away: its session's end releases what it held (`release`)
                logger.debug("could not forward resources/updated for %s", subscribed.client_uri, exc_info=True)

    # Inside.

    async def _ready(self) -> None:
        await self._loaded()
        await self._catalog.sync_from_disk()
        await self._waiting.settle(None)
        await self._trust.sync()  # what was listed meanwhile is pinned; a decision at the shell is taken in
        await self._trust.judged(name for name, _ in self._surfaces())

    def _refuse_held(self, name: str, ref: PromptRef) -> None:
        reason = self._trust.withheld(ref.server, "prompt").get(ref.prompt)
        if reason is not None:
            raise RequestError(
                f"The prompt '{clip(name, MAX_ECHOED_NAME_CHARS)}' was not served: {reason}; ask the user to run "
                "`mcp-gateway review` in a terminal to see what changed and approve it."
            )

    def _refuse_held_template(self, uri: str, route: Route) -> None:
        """Refuse `uri` (a resource's, or a template's for a completion) when it is not a resource its server lists
        and only templates held for review could have made it."""
        held = self._trust.withheld(route.server, "template")
        surface = self._surface(route.server)
        if not held or surface is None or any(item.get("uri") == route.uri for item in surface.resources):
            return
        makers = [
            item
            for item in surface.templates
            if item.get("uriTemplate") == route.uri or matches(str(item.get("uriTemplate")), route.uri)
        ]
        names = [str(item.get("name")) for item in makers]
        if names and all(name in held for name in names):
            raise RequestError(
                f"The resource '{clip(uri, MAX_ECHOED_NAME_CHARS)}' was not served: its template "
                f"'{clip(names[0], MAX_ECHOED_NAME_CHARS)}' is held for review ({held[names[0]]}); ask the user to run "
                "`mcp-gateway review` in a terminal to see what changed and approve it."
            )

    def _surfaces(self) -> Iterator[tuple[str, Surface]]:
        """Each enabled server's surface, in config order (servers not listed yet have none)."""
        for name, server in self._catalog.config.servers.items():
            surface = self._surface(name)
            if not server.spec.disabled and surface is not None:
                yield name, surface

    def _surface(self, server: str) -> Surface | None:
        entry = self._catalog.entry(server)
        return None if entry is None else entry.surface

    def _prompt_names(self) -> PromptNames:
        return PromptNames(
            PromptRef(server, str(prompt["name"])) for server, surface in self._surfaces() for prompt in surface.prompts
        )

    def _uri_map(self) -> UriMap:
        return uri_map(
            (
                server,
                (str(item["uri"]) for item in surface.resources),
                (str(item["uriTemplate"]) for item in surface.templates),
            )
            for server, surface in self._surfaces()
        )

    def _prompt(self, name: str) -> PromptRef:
        ref = self._prompt_names().ref(name)
        if ref is not None:
            return ref
        quoted = clip(name, MAX_ECHOED_NAME_CHARS)
        for server, config in self._catalog.config.servers.items():
            if config.spec.disabled and name.startswith(f"{server}__"):
                raise RequestError(
                    f"The prompt '{quoted}' belongs to the server '{server}', which is disabled; "
                    "enable it in the gateway's config.json to use its prompts."
                )
        raise RequestError(f"No server offers the prompt '{quoted}'; list the prompts again to see their names.")

    def _route(self, uris: UriMap, uri: str) -> Route:
        route = uris.route(uri)
        if isinstance(route, Route):
            return route
        quoted = clip(uri, MAX_ECHOED_NAME_CHARS)
        disabled = [name for name, server in self._catalog.config.servers.items() if server.spec.disabled]
        if any(uri.startswith(f"mcp-gateway://{name}/") for name in disabled):
            raise RequestError(f"The resource '{quoted}' belongs to a disabled server; enable it in config.json.")
        raise RequestError(
            f"The gateway cannot tell which server has the resource '{quoted}' ({route}); "
            "list the resources or templates again and use a URI from there."
        )

    def _subscribable(self, uri: str) -> Route:
        route = self._route(self._uri_map(), uri)
        surface = self._surface(route.server)
        if surface is None or not surface.subscribe:
            raise RequestError(
                f"The server '{route.server}' does not support resource subscriptions; "
                "read the resource again to see whether it changed."
            )
        return route


def _known_as(uris: UriMap, server: str, item: object) -> object:
    """A read's content item with the URI the client knows it by (the item itself when it has no URI)."""
    if not isinstance(item, dict):
        return item
    content = cast(JsonObject, item)
    own = content.get("uri")
    return {**content, "uri": uris.client_uri(server, own)} if isinstance(own, str) else content


def _with_origin(entry: JsonObject, server: str, original: JsonObject, key: str) -> JsonObject:
    """`entry` with `_meta` saying which server listed it and under which name or URI."""
    meta = cast(JsonObject, original.get("_meta")) if isinstance(original.get("_meta"), dict) else {}
    return {**entry, "_meta": {**meta, ORIGIN_META: {"server": server, key: original[key]}}}


def _page(key: str, items: Sequence[JsonObject], cursor: str | None) -> JsonObject:
    """One page of `items` from `cursor` (the offset the previous page gave, as text)."""
    start = 0
    if cursor is not None:
        if not cursor.isdigit() or int(cursor) > len(items):
            raise RequestError(
                f"The cursor '{clip(cursor, MAX_ECHOED_NAME_CHARS)}' is not one the gateway gave; "
                "list again from the first page."
            )
        start = int(cursor)
    end = start + PAGE_SIZE
    page: JsonObject = {key: list(items[start:end])}
    if end < len(items):
        page["nextCursor"] = str(end)
    return page
