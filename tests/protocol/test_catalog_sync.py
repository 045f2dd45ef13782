"""A serving gateway picking up a cache.json another process wrote: reading, parsing and indexing it never
holds up the event loop, so requests that do not need the catalog keep being answered meanwhile.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
import pytest
from gateway_testing import load, write_workspace
from inprocess_fakes import InProcessConnector
from mcp import Client

from mcp_gateway.catalog import CacheStore, CacheView, ServerCatalog, ToolRecord, fingerprint
from mcp_gateway.server.app import build_server
from mcp_gateway.service.gateway import Gateway

pytestmark = pytest.mark.anyio

SERVERS = 160
TOOLS_PER_SERVER = 25
"""4,000 tools, about 4 MB of cache.json: a few hundred milliseconds to read, parse and index."""
WAIT_SECONDS = 60.0
PING_INTERVAL_SECONDS = 0.005
MAX_STALL_SHARE = 0.5
"""The slowest cheap request may take at most this share of the sync; a loop blocked by it takes ~all of it."""


def tool(server: int, index: int) -> dict[str, Any]:
    words = " ".join(f"word{server}x{index}y{n}" for n in range(25))
    properties = {
        f"param{n}": {"type": "string", "description": f"parameter {n} of tool {index}: {words}"} for n in range(4)
    }
    return {
        "name": f"tool_{index}",
        "description": f"Tool {index} of server {server} does something: {words}",
        "inputSchema": {"type": "object", "properties": properties},
    }


async def test_a_cache_written_by_another_process_is_read_without_stalling_other_requests(tmp_path: Path) -> None:
    names = [f"server{n}" for n in range(SERVERS)]
    workspace = write_workspace(
        tmp_path, {name: {"command": "in-process"} for name in names}, {"startupMetadataCheck": False}
    )
    config = load(workspace)
    entries = [
        ServerCatalog(
            name,
            fingerprint(config.servers[name].identity),
            time.time(),
            tuple(ToolRecord.from_wire(tool(n, i)) for i in range(TOOLS_PER_SERVER)),
        )
        for n, name in enumerate(names)
    ]
    pings: list[float] = []
    sync_seconds: list[float] = []
    results: list[types.CallToolResult] = []

    with anyio.fail_after(WAIT_SECONDS):
        async with (
            Gateway(workspace, config, connector=InProcessConnector()) as gateway,
            Client(build_server(gateway), mode="legacy", cache=None) as client,
        ):
            # What another gateway process does: write the whole catalog while this one serves (from nothing).
            store = CacheStore.for_workspace(workspace)
            await anyio.to_thread.run_sync(store.save_many, entries)
            assert store.path.stat().st_size > 3_000_000
            syncing = anyio.Event()

            async def ping_until_synced() -> None:
                while not syncing.is_set():
                    started = time.perf_counter()
                    listed = await client.list_tools()
                    pings.append(time.perf_counter() - started)
                    assert len(listed.tools) == 4
                    await anyio.sleep(PING_INTERVAL_SECONDS)

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(ping_until_synced)
                started = time.perf_counter()
                results.append(await client.call_tool("search_tools", {"query": "word7x3y1", "limit": 1}))
                sync_seconds.append(time.perf_counter() - started)
                syncing.set()
            first = results[0].content[0]
            assert isinstance(first, types.TextContent)
            assert [hit["tool"] for hit in json.loads(first.text)["results"]] == ["server7.tool_3"]
    assert len(pings) >= 3, "the cheap requests were not answered while the cache was read"
    assert max(pings) < MAX_STALL_SHARE * sync_seconds[0], (max(pings), sync_seconds)


async def test_concurrent_requests_after_another_process_wrote_share_one_read_of_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = write_workspace(tmp_path, {"alpha": {"command": "in-process"}}, {"startupMetadataCheck": False})
    config = load(workspace)
    entry = ServerCatalog(
        "alpha", fingerprint(config.servers["alpha"].identity), time.time(), (ToolRecord.from_wire(tool(0, 0)),)
    )
    reads: list[CacheView] = []
    entered, release = threading.Event(), threading.Event()
    original = CacheStore.load

    def gated_load(store: CacheStore) -> CacheView:
        entered.set()
        release.wait(WAIT_SECONDS)
        reads.append(original(store))
        return reads[-1]

    with anyio.fail_after(WAIT_SECONDS):
        async with Gateway(workspace, config, connector=InProcessConnector()) as gateway:
            await anyio.to_thread.run_sync(CacheStore.for_workspace(workspace).save_server, entry)
            monkeypatch.setattr(CacheStore, "load", gated_load)
            found: list[list[str]] = []

            async def search() -> None:
                report = await gateway.search("word0x0y1", limit=1)
                found.append([hit.tool.qualified for hit in report.hits])

            async with anyio.create_task_group() as searches:
                for _ in range(5):
                    searches.start_soon(search)
                assert await anyio.to_thread.run_sync(entered.wait, WAIT_SECONDS)
                await anyio.wait_all_tasks_blocked()  # every other search now waits for that read
                release.set()
    assert len(reads) == 1
    assert found == [["alpha.tool_0"]] * 5
