"""Pair 4: `search_tools` round trips at 2,266 and 5,645 cached tools (bench-data catalogs served from
cache, no server started) through a front and the workspace's shared daemon, interleaved with trivial requests
on the same connection: `tools/list`, and `list_tools` of the smallest server (a tools/call like the search,
with next to nothing to do).

The time to an answered `initialize` and the first search, sent right after it (it waits for the daemon,
started cold by this session's front, to be serving, which comes after the front's early handshake, and for
cache.json to be read and indexed), are reported apart. The daemon is stopped after each catalog's session.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import anyio

from benchmarks.bench_data import DEFAULT_DATA_DIR, BenchServer, load_catalog
from benchmarks.bench_workspace import spawned, write_bench_workspace
from benchmarks.gateway_runtime import Runtime, stop_shared_daemon
from benchmarks.gateway_session import gateway_client, text_of
from benchmarks.latency.failure import BenchError
from benchmarks.latency.sampling import Sample, rotated, sample, timed
from benchmarks.latency.subjects import SESSION_TIMEOUT_SECONDS

CATALOGS = ("catalog.json", "catalog-xl.json")


@dataclass(frozen=True)
class SearchResult:
    catalog: str
    servers: int
    tools: int
    initialized_ms: float
    """From spawning the gateway to its answer to `initialize`."""
    first_search_ms: float
    """Sent as soon as `initialize` was answered: it waits for the session to be served (the gateway answers
    its handshake before importing the SDK) and for cache.json to be read and indexed."""
    search: Sample
    tools_list: Sample
    list_tools: Sample
    list_tools_server: str
    list_tools_count: int
    servers_started: int


async def search_session(
    catalog: str,
    servers: Sequence[BenchServer],
    queries: Sequence[str],
    root: Path,
    runtime: Runtime,
    *,
    errlog: TextIO,
) -> SearchResult:
    home, spawn_log = root / catalog.removesuffix(".json"), root / f"{catalog}.spawns"
    write_bench_workspace(home, servers, spawn_log=spawn_log)
    small = min((server for server in servers if server.tools), key=lambda server: (len(server.tools), server.name))
    series: dict[str, list[float]] = {"search": [], "tools/list": [], "list_tools": []}
    with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
        started = time.perf_counter()
        async with gateway_client(home, errlog, runtime) as gateway:
            initialized_ms = (time.perf_counter() - started) * 1000

            async def step(name: str, query: str) -> object:
                if name == "tools/list":
                    return await gateway.list_tools()
                if name == "search":
                    result = await gateway.call_tool("search_tools", {"query": query})
                else:
                    result = await gateway.call_tool("list_tools", {"server": small.name})
                if result.is_error:
                    raise BenchError(f"{name} failed: {text_of(result)[:300]!r}")
                return result

            first_search_ms = await timed(lambda: step("search", queries[0]))
            for turn, query in enumerate(queries):
                for name in rotated(list(series), turn):
                    series[name].append(await timed(functools.partial(step, name, query)))
    await stop_shared_daemon(runtime, home)
    return SearchResult(
        catalog=catalog,
        servers=len(servers),
        tools=sum(len(server.tools) for server in servers),
        initialized_ms=initialized_ms,
        first_search_ms=first_search_ms,
        search=sample(series["search"]),
        tools_list=sample(series["tools/list"]),
        list_tools=sample(series["list_tools"]),
        list_tools_server=small.name,
        list_tools_count=len(small.tools),
        servers_started=len(spawned(spawn_log)),
    )


async def measure_search(root: Path, runtime: Runtime, queries: Sequence[str], errlog: TextIO) -> list[SearchResult]:
    results: list[SearchResult] = []
    for catalog in CATALOGS:
        servers = load_catalog(DEFAULT_DATA_DIR / catalog)
        results.append(await search_session(catalog, servers, queries, root, runtime, errlog=errlog))
    return results
