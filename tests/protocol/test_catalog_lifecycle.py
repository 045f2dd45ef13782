"""How the catalog is built and kept: in the background at start, on demand, and across gateway processes."""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
import pytest
from gateway_testing import load, write_workspace
from inprocess_fakes import FakeDownstream, InProcessConnector
from mcp import Client

from mcp_gateway.catalog import Catalog
from mcp_gateway.paths import Workspace
from mcp_gateway.server.app import build_server
from mcp_gateway.service.gateway import Gateway

pytestmark = pytest.mark.anyio

WAIT_SECONDS = 5.0
SHORT_WAIT_SECONDS = 0.2
"""The gateway's wait for a listing, where a test needs it to pass (the real one is 10 s)."""
ROUND_TRIPS = 5
"""Requests the gateway answers while a search waits: a search that did not wait would have answered first."""
# The loops below poll what a client can observe (search notes, listings made) under `fail_after`; the
# gateway offers no event for "the background refresh finished", and a test must not add one to it.


@asynccontextmanager
async def serving(
    workspace: Workspace, *downstreams: FakeDownstream, background: bool = True, listing_wait_seconds: float = 10.0
) -> AsyncGenerator[Client]:
    connector = InProcessConnector(*downstreams)
    async with Gateway(
        workspace, load(workspace), connector=connector, listing_wait_seconds=listing_wait_seconds
    ) as gateway:
        if background:
            gateway.start_background()
        async with Client(build_server(gateway), mode="legacy", cache=None) as client:
            yield client


def workspace_for(
    home: Path, *downstreams: FakeDownstream, settings: dict[str, Any] | None = None, **fields: Any
) -> Workspace:
    return write_workspace(home, {d.name: {"command": "in-process", **fields} for d in downstreams}, settings)


async def search(client: Client, query: str, **extra: Any) -> dict[str, Any]:
    result = await client.call_tool("search_tools", {"query": query, **extra})
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return json.loads(first.text)


async def test_a_search_while_tools_load_past_the_wait_says_which_servers_are_still_loading(tmp_path: Path) -> None:
    slow = FakeDownstream("slow", list_gate=anyio.Event())
    workspace = workspace_for(tmp_path, slow)
    with anyio.fail_after(WAIT_SECONDS):
        async with serving(workspace, slow, listing_wait_seconds=SHORT_WAIT_SECONDS) as client:
            early = await search(client, "echo a message")
            assert slow.list_gate is not None
            slow.list_gate.set()
            while True:
                later = await search(client, "echo a message")
                if later["results"]:
                    break
                await anyio.sleep(0.01)
    assert early["results"] == []
    assert any("Still loading the tools of: slow" in note for note in early["notes"])
    assert later["results"][0]["tool"] == "slow.echo"


async def test_with_startup_check_off_nothing_is_listed_until_a_server_is_named(tmp_path: Path) -> None:
    downstream = FakeDownstream()
    workspace = workspace_for(tmp_path, downstream, settings={"startupMetadataCheck": False})
    with anyio.fail_after(WAIT_SECONDS):
        async with serving(workspace, downstream) as client:
            unnamed = await search(client, "echo a message")
            listings_before = downstream.listings
            named = await search(client, "echo a message", server="fake")
    assert listings_before == 0
    assert unnamed["results"] == []
    assert any("startupMetadataCheck is off" in note and "fake" in note for note in unnamed["notes"])
    assert named["results"][0]["tool"] == "fake.echo"
    assert downstream.listings == 1


async def test_a_valid_cache_is_not_refetched_unless_refresh_on_startup_is_set(tmp_path: Path) -> None:
    plain, forced = FakeDownstream("plain"), FakeDownstream("forced")
    home = tmp_path / "home"
    write_workspace(
        home, {"plain": {"command": "in-process"}, "forced": {"command": "in-process", "refreshOnStartup": True}}
    )
    workspace = Workspace.from_environment(home)
    with anyio.fail_after(WAIT_SECONDS):
        async with serving(workspace, plain, forced) as client:
            while (await search(client, "echo")).get("notes"):  # noqa: ASYNC110
                await anyio.sleep(0.01)
        assert (plain.listings, forced.listings) == (1, 1)
        async with serving(workspace, plain, forced) as client:
            while forced.listings < 2:  # noqa: ASYNC110
                await anyio.sleep(0.01)
            await search(client, "echo")
    assert plain.listings == 1
    assert forced.listings == 2


async def test_a_config_change_to_a_server_invalidates_only_its_cached_tools(tmp_path: Path) -> None:
    first, second = FakeDownstream("first"), FakeDownstream("second")
    home = tmp_path / "home"
    write_workspace(home, {"first": {"command": "in-process"}, "second": {"command": "in-process"}})
    workspace = Workspace.from_environment(home)
    with anyio.fail_after(WAIT_SECONDS):
        async with serving(workspace, first, second) as client:
            while (await search(client, "echo")).get("notes"):  # noqa: ASYNC110
                await anyio.sleep(0.01)
        write_workspace(
            home,
            {
                "first": {"command": "in-process", "args": ["--changed"]},
                "second": {"command": "in-process", "aliases": ["2nd"]},
            },
        )
        async with serving(workspace, first, second) as client:
            while first.listings < 2:  # noqa: ASYNC110
                await anyio.sleep(0.01)
    assert first.listings == 2  # its connection config changed
    assert second.listings == 1  # only gateway-side metadata (aliases) changed


async def test_a_gateway_sees_tools_another_gateway_process_listed(tmp_path: Path) -> None:
    alpha, beta = FakeDownstream("alpha"), FakeDownstream("beta")
    home = tmp_path / "home"
    write_workspace(
        home, {"alpha": {"command": "in-process"}, "beta": {"command": "in-process"}}, {"startupMetadataCheck": False}
    )
    workspace = Workspace.from_environment(home)
    with anyio.fail_after(WAIT_SECONDS):
        async with serving(workspace, alpha, beta) as first_client, serving(workspace, alpha, beta) as second_client:
            await first_client.call_tool("list_tools", {"server": "alpha"})
            await second_client.call_tool("list_tools", {"server": "beta"})
            seen_by_first = await search(first_client, "echo a message", limit=5)
    assert {hit["tool"] for hit in seen_by_first["results"]} >= {"alpha.echo", "beta.echo"}
    assert beta.listings == 1  # the first gateway read beta's tools from cache.json, it did not list them again


async def test_a_serving_gateway_answers_before_its_cache_is_read_and_searches_wait_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    downstream = FakeDownstream()
    workspace = workspace_for(tmp_path, downstream)
    async with Gateway(workspace, load(workspace), connector=InProcessConnector(downstream)) as first:
        await first.refresh()  # writes cache.json
    reading, release = threading.Event(), threading.Event()
    original = Catalog.load_now

    def slow_load(self: Catalog) -> None:
        reading.set()
        release.wait(WAIT_SECONDS)
        original(self)

    monkeypatch.setattr(Catalog, "load_now", slow_load)
    connector = InProcessConnector(downstream)
    found: list[dict[str, Any]] = []
    async with Gateway(workspace, load(workspace), connector=connector, load_in_background=True) as gateway:
        gateway.start_background()
        async with Client(build_server(gateway), mode="legacy", cache=None) as client:
            with anyio.fail_after(WAIT_SECONDS / 2):
                listed = await client.list_tools()  # the cache is still unread
            assert len(listed.tools) == 4
            async with anyio.create_task_group() as calls:

                async def search_now() -> None:
                    found.append(await search(client, "echo a message"))

                calls.start_soon(search_now)
                with anyio.fail_after(WAIT_SECONDS):
                    await anyio.to_thread.run_sync(reading.wait)
                for _ in range(ROUND_TRIPS):  # each answered at once, while the search waits for the cache
                    await client.list_tools()
                assert not found, "the search answered before the cache was read"
                release.set()
    [payload] = found
    assert "fake.echo" in [hit["tool"] for hit in payload["results"]]
    assert downstream.listings == 1, "the cached tools were used, nothing was listed again"
