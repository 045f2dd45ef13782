"""Following a server's change news (`service/changes.py`): coalesced, rate-bound, written only when it differs.

A real `Catalog` over a real cache.json, with a lister standing in for the pool; the follower runs in a task
group the test owns, so leaving it waits for every listing the news caused.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from gateway_testing import load, write_workspace

from mcp_gateway.background import BackgroundProblems, BackgroundTasks
from mcp_gateway.catalog import CacheStore, Catalog, Listing, ServerCatalog, ToolRecord, same_offer
from mcp_gateway.downstream.changes import ServerChange
from mcp_gateway.search import SearchEngine
from mcp_gateway.service.changes import ChangeFollower, ClientChange

pytestmark = pytest.mark.anyio

SERVER = "weather"
INTERVAL_SECONDS = 0.2
"""Short, so the tests are quick; long enough to tell listings spaced by it from listings back to back."""
TEST_SECONDS = 10.0


def tool(name: str, description: str = "A tool.") -> dict[str, Any]:
    return {"name": name, "description": description, "inputSchema": {"type": "object"}}


def listing(*tools: dict[str, Any], instructions: str | None = None) -> Listing:
    return Listing(
        tools=list(tools),
        protocol_version="2025-11-25",
        server_name="weather-server",
        server_version="1.0",
        instructions=instructions,
    )


class Lister:
    """What the server offers now; records when each listing began, and can hold listings until released."""

    def __init__(self, offered: Listing) -> None:
        self.offered = offered
        self.began: list[float] = []
        self.first_began = anyio.Event()
        self.release: anyio.Event | None = None

    async def __call__(self, server: str, process: str | None = None) -> Listing:
        self.began.append(anyio.current_time())
        self.first_began.set()
        if self.release is not None:
            await self.release.wait()
        return self.offered


async def catalog_for(tmp_path: Path, cached: Listing) -> Catalog:
    workspace = write_workspace(tmp_path, {SERVER: {"command": "weather-server"}})
    catalog = Catalog(load(workspace), CacheStore.for_workspace(workspace), SearchEngine())
    await catalog.load()
    await catalog.refresh(SERVER, Lister(cached))
    return catalog


@asynccontextmanager
async def following(catalog: Catalog, lister: Lister) -> AsyncGenerator[tuple[ChangeFollower, list[ClientChange]]]:
    """A follower whose tasks all end before this context does; with what its listener was told, in order."""
    told: list[ClientChange] = []

    async def listener(kind: ClientChange) -> None:
        told.append(kind)

    with anyio.fail_after(TEST_SECONDS):
        async with anyio.create_task_group() as group:
            tasks = BackgroundTasks(group, BackgroundProblems())
            follower = ChangeFollower(catalog, lister, lambda: tasks, interval_seconds=INTERVAL_SECONDS)
            follower.subscribe(listener)
            yield follower, told


def test_same_offer_ignores_order_and_sees_a_tool_or_the_words_changed() -> None:
    cached = listing(tool("a"), tool("b"), instructions="Use a.")
    catalog_entry = _entry(cached)
    assert same_offer(catalog_entry, listing(tool("b"), tool("a"), instructions="Use a."))
    assert not same_offer(catalog_entry, listing(tool("a"), tool("b"), tool("c"), instructions="Use a."))
    assert not same_offer(catalog_entry, listing(tool("a"), tool("b", "Another."), instructions="Use a."))
    assert not same_offer(catalog_entry, listing(tool("a"), tool("b"), instructions="Use b."))
    assert not same_offer(None, cached)


def _entry(offered: Listing) -> ServerCatalog:
    return ServerCatalog(
        server=SERVER,
        fingerprint="fp",
        fetched_at=0.0,
        tools=tuple(ToolRecord.from_wire(raw) for raw in offered.tools),
        protocol_version=offered.protocol_version,
        server_name=offered.server_name,
        server_version=offered.server_version,
        instructions=offered.instructions,
    )


@pytest.mark.parametrize("news", ["started", "tools"])
async def test_news_of_a_server_offering_what_is_cached_lists_once_and_writes_nothing(
    tmp_path: Path, news: ServerChange
) -> None:
    offered = listing(tool("forecast"))
    catalog = await catalog_for(tmp_path, offered)
    cache = tmp_path / "cache.json"
    written = (cache.stat().st_mtime_ns, cache.read_bytes())
    lister = Lister(offered)
    async with following(catalog, lister) as (follower, told):
        follower.heard(SERVER, news)
    assert len(lister.began) == 1
    assert (cache.stat().st_mtime_ns, cache.read_bytes()) == written
    assert told == []


async def test_a_start_offering_other_tools_updates_the_catalog_and_cache(tmp_path: Path) -> None:
    catalog = await catalog_for(tmp_path, listing(tool("forecast")))
    lister = Lister(listing(tool("forecast"), tool("tides")))
    async with following(catalog, lister) as (follower, _):
        follower.heard(SERVER, "started")
    assert [record.name for record in catalog.tools(SERVER)] == ["forecast", "tides"]
    assert '"tides"' in (tmp_path / "cache.json").read_text()


async def test_a_start_made_for_a_listing_is_not_listed_twice(tmp_path: Path) -> None:
    catalog = await catalog_for(tmp_path, listing(tool("forecast")))
    lister = Lister(listing(tool("forecast"), tool("tides")))
    catalog.queue([SERVER])  # a listing has been asked for: it lists the process just started
    async with following(catalog, lister) as (follower, _):
        follower.heard(SERVER, "started")
    assert lister.began == []


async def test_a_burst_heard_during_a_listing_costs_one_more_listing_an_interval_later(tmp_path: Path) -> None:
    catalog = await catalog_for(tmp_path, listing(tool("forecast")))
    lister = Lister(listing(tool("forecast"), tool("tides")))
    lister.release = anyio.Event()
    async with following(catalog, lister) as (follower, _):
        follower.heard(SERVER, "tools")
        await lister.first_began.wait()
        for _ in range(500):
            follower.heard(SERVER, "tools")
        lister.release.set()
    assert len(lister.began) == 2
    assert lister.began[1] - lister.began[0] >= INTERVAL_SECONDS


async def test_news_waits_for_a_listing_under_way_then_lists_afresh(tmp_path: Path) -> None:
    catalog = await catalog_for(tmp_path, listing(tool("forecast")))
    old = Lister(listing(tool("forecast")))
    old.release = anyio.Event()
    fresh = Lister(listing(tool("forecast"), tool("tides")))
    async with following(catalog, fresh) as (follower, _), anyio.create_task_group() as refreshing:
        refreshing.start_soon(catalog.refresh, SERVER, old)
        await old.first_began.wait()
        follower.heard(SERVER, "tools")  # the listing under way began before the change
        old.release.set()
    assert len(fresh.began) == 1
    assert "tides" in [record.name for record in catalog.tools(SERVER)]


async def test_prompts_and_resources_news_is_told_after_the_listing_and_tools_news_is_not(tmp_path: Path) -> None:
    catalog = await catalog_for(tmp_path, listing(tool("forecast")))
    lister = Lister(listing(tool("forecast")))
    async with following(catalog, lister) as (follower, told):
        follower.heard(SERVER, "tools")
    assert told == []
    async with following(catalog, lister) as (follower, told):
        follower.heard(SERVER, "prompts")
        follower.heard(SERVER, "resources")
    assert sorted(told) == ["prompts", "resources"]
    assert len(lister.began) == 2  # one for the tools news, one for both of the others: heard together


async def test_news_before_the_gateway_serves_starts_nothing(tmp_path: Path) -> None:
    catalog = await catalog_for(tmp_path, listing(tool("forecast")))
    lister = Lister(listing(tool("forecast")))
    follower = ChangeFollower(catalog, lister, lambda: None)
    follower.heard(SERVER, "tools")
    await anyio.lowlevel.checkpoint()
    assert lister.began == []
