"""A downstream server's changes reach the gateway's catalog, and the ones a client can see reach the client. The real
`mcp-gateway` process, driven by the SDK client, in front of the fixture server started with `FAKE_MCP_CHANGES` (its
`add_tool` registers a tool at runtime and sends `notifications/tools/list_changed`; its `announce` sends any
list_changed notification, as often as asked). A tool added at runtime is held for review (new on a server already
approved) and, once trusted at the shell, becomes searchable, callable and cached; a storm of notifications costs a
bounded number of listings; prompts and resources changes reach the client in both protocol eras, tools changes do
not; a server whose tools changed between sessions is noticed when it is next started for a call. Behind it also run
a 2026-07-28 server whose tools change (it announces them only on a listen stream the gateway opens) and
`@modelcontextprotocol/server-everything`, whose `gzip-file-as-resource` adds a resource at runtime and says so.
"""

from __future__ import annotations

import base64
import json
import math
import sys
import time
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from e2e_gateway import (
    SESSION_SECONDS,
    execute,
    gateway_params,
    ranked_tools,
    read_lines,
    run_cli_async,
    search,
    text_of,
    wait_for,
)
from gateway_testing import ROOT
from mcp import Client
from mcp.client.session import IncomingMessage
from workspaces import cached_everything, fake_server, refreshed_workspace

from mcp_gateway.service.changes import RELIST_INTERVAL_SECONDS

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

CHANGE_SECONDS = 20.0
"""Upper bound for a change to be listed again and indexed: one listing interval plus a listing, many times over."""
BURST = 2000
"""Notifications in one burst: each one listed would be thousands of listings."""
STORM = 300
"""Notifications in a sustained storm, 10 ms apart: a listing after each one would be hundreds of listings."""
TIDES = "forecast_tides"
MODERN_SERVER = {"command": sys.executable, "args": [str(ROOT / "fixtures" / "modern_changing_server.py")]}


def _cached_tools(home: Path, server: str) -> set[str]:
    document = json.loads((home / "cache.json").read_text())
    return {tool["name"] for tool in document["servers"][server]["tools"]}


async def _until_found(client: Client, query: str, tool: str) -> list[str]:
    """Search until `tool` (server.tool) is among the hits (the listing after a change runs in the background)."""
    with anyio.fail_after(CHANGE_SECONDS):
        while True:
            ranked = ranked_tools(await search(client, query))
            if tool in ranked:
                return ranked
            await anyio.sleep(0.05)


async def _approved(home: Path, server: str, tool: str) -> None:
    """A tool added at runtime is new on a server already approved, so it is held for review (issue 26) until a
    person trusts it at the shell; the daemon takes the decision in at its next request."""

    async def awaiting() -> bool:
        review = await run_cli_async("review", "--json", home=home)
        return any(item["name"] == tool for item in json.loads(review.stdout)["awaiting"])

    def pinned() -> bool:  # a server listed anew before its first listing was pinned: that listing is its first
        path = home / "pins.json"
        servers: dict[str, dict[str, Any]] = json.loads(path.read_text())["servers"] if path.exists() else {}
        return any(tool in resolution.get("tool", {}) for resolution in servers.get(server, {}).values())

    with anyio.fail_after(CHANGE_SECONDS):
        while True:
            if pinned():
                return
            if await awaiting():
                break
            await anyio.sleep(0.1)
    trusted = await run_cli_async("trust", server, tool, home=home)
    assert trusted.returncode == 0, trusted.stderr


async def _listed_once(client: Client, server: str) -> None:
    """Until the modern server says its tools were listed once (by the gateway, after this session started it)."""
    with anyio.fail_after(CHANGE_SECONDS):
        while True:
            counted = await execute(client, f"{server}.listings")
            if counted.structured_content == {"result": 1}:
                return
            await anyio.sleep(0.05)


@asynccontextmanager
async def _heard_session(home: Path, *, mode: str = "legacy") -> AsyncGenerator[tuple[Client, list[str]]]:
    """A gateway session that records the method of every notification its client receives, in order."""
    heard: list[str] = []

    async def record(message: IncomingMessage) -> None:
        if isinstance(message, types.ServerNotification):
            heard.append(message.method)

    async with Client(gateway_params(home), mode=mode, cache=None, message_handler=record) as client:
        yield client, heard


async def test_a_tool_added_at_runtime_is_searchable_callable_and_cached(tmp_path: Path) -> None:
    list_log = tmp_path / "lists.log"
    await refreshed_workspace(tmp_path, {"fake": fake_server(changes="1", list_log=str(list_log))})
    assert TIDES not in _cached_tools(tmp_path, "fake")
    listed_before = len(read_lines(list_log))
    with anyio.fail_after(SESSION_SECONDS):
        async with _heard_session(tmp_path) as (client, heard):
            # Started by a call, the server is listed once in the background: that listing is over before the
            # tool is added, so only its notification can make the gateway list it again.
            await execute(client, "fake.echo", {"message": "start"})
            await wait_for(lambda: len(read_lines(list_log)) > listed_before, CHANGE_SECONDS)
            added = await execute(
                client, "fake.add_tool", {"name": TIDES, "description": "Predict the ocean tides of a harbour."}
            )
            assert not added.is_error, text_of(added)
            held = await client.call_tool("execute_tool", {"tool": f"fake.{TIDES}", "arguments": {"message": "x"}})
            assert held.is_error, "new on an approved server: held until trusted"
            await _approved(tmp_path, "fake", TIDES)
            ranked = await _until_found(client, "ocean tides harbour", f"fake.{TIDES}")
            assert ranked[0] == f"fake.{TIDES}", ranked
            called = await execute(client, f"fake.{TIDES}", {"message": "Brest"})
            assert not called.is_error, text_of(called)
            assert text_of(called) == f"{TIDES}: Brest"
            # Indexed first, then written: cache.json follows within moments.
            await wait_for(lambda: TIDES in _cached_tools(tmp_path, "fake"), CHANGE_SECONDS)
    # The gateway's own four tools never change: a downstream's tools change is not the client's news.
    assert "notifications/tools/list_changed" not in heard, heard


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_prompts_and_resources_changes_reach_the_client_and_tools_changes_do_not(
    tmp_path: Path, mode: str
) -> None:
    await refreshed_workspace(tmp_path, {"fake": fake_server(changes="1")})
    with anyio.fail_after(SESSION_SECONDS):
        async with _heard_session(tmp_path, mode=mode) as (client, heard):
            if mode == "legacy":
                await _announce_and_wait(client, heard)
            else:
                # At 2026-07-28 change notifications ride only a `subscriptions/listen` stream the client opens.
                async with client.listen(prompts_list_changed=True, resources_list_changed=True) as stream:
                    await _announce_and_wait(client, heard)
                    events: list[Any] = []
                    async for event in stream:
                        events.append(event)
                        if len(events) == 2:
                            break
                    assert {type(event).__name__ for event in events} == {
                        "PromptsListChanged",
                        "ResourcesListChanged",
                    }
    assert "notifications/tools/list_changed" not in heard, heard


async def _announce_and_wait(client: Client, heard: list[str]) -> None:
    """Announce tools, then prompts, then resources; wait for the last two to reach the client.

    The three are followed in order by one follower (one server), so a tools change that reached the client would
    have arrived before the prompts one: checking for it once the others are in is no race.
    """
    for kind in ("tools", "prompts", "resources"):
        announced = await execute(client, "fake.announce", {"kind": kind})
        assert not announced.is_error, text_of(announced)
    wanted = {"notifications/prompts/list_changed", "notifications/resources/list_changed"}
    await wait_for(lambda: wanted <= set(heard), CHANGE_SECONDS)


async def test_a_notification_storm_costs_a_bounded_number_of_listings(tmp_path: Path) -> None:
    list_log = tmp_path / "lists.log"
    await refreshed_workspace(tmp_path, {"fake": fake_server(changes="1", list_log=str(list_log))})
    before = len(read_lines(list_log))
    with anyio.fail_after(SESSION_SECONDS):
        async with _heard_session(tmp_path) as (client, _):
            started = time.monotonic()
            # A burst, then a sustained storm: listed each time, either would keep a listing always running.
            burst = await execute(client, "fake.announce", {"kind": "tools", "times": BURST})
            assert not burst.is_error, text_of(burst)
            async with anyio.create_task_group() as storm:
                storm.start_soon(execute, client, "fake.announce", {"kind": "tools", "times": STORM, "every": 0.01})
                # The gateway serves meanwhile, and a real change amid the storm is picked up.
                added = await execute(client, "fake.add_tool", {"name": TIDES, "description": "Tides of a harbour."})
                assert not added.is_error, text_of(added)
                await _approved(tmp_path, "fake", TIDES)
                await _until_found(client, "tides harbour", f"fake.{TIDES}")
            elapsed = time.monotonic() - started
    listings = len(read_lines(list_log)) - before
    # One listing for the start (the call started the server), then at most one per interval.
    bound = 2 + math.ceil(elapsed / RELIST_INTERVAL_SECONDS)
    assert 1 <= listings <= bound, (listings, bound, elapsed)


async def test_a_server_whose_tools_changed_between_sessions_is_noticed_when_a_call_starts_it(
    tmp_path: Path,
) -> None:
    offered = tmp_path / "offered.json"
    offered.write_text(json.dumps([_city_tool("measure_rainfall", "Measure the rainfall of a city.")]))
    await refreshed_workspace(tmp_path, {"fake": fake_server(tools_file=str(offered))})
    assert "measure_rainfall" in _cached_tools(tmp_path, "fake")
    # Between sessions the server changes what it offers (as an upgrade would), with its config unchanged.
    offered.write_text(json.dumps([_city_tool("measure_snowfall", "Measure the snowfall of a city.")]))
    with anyio.fail_after(SESSION_SECONDS):
        async with _heard_session(tmp_path) as (client, _):
            # cache.json is fresh: nothing is listed before this call, which starts the server.
            echoed = await execute(client, "fake.echo", {"message": "hello"})
            assert text_of(echoed) == "hello"
            await _approved(tmp_path, "fake", "measure_snowfall")  # new since the listing pinned: held till then
            await _until_found(client, "snowfall city", "fake.measure_snowfall")
            called = await execute(client, "fake.measure_snowfall", {"city": "Oslo"})
            assert not called.is_error, text_of(called)
            gone = await client.call_tool("execute_tool", {"tool": "fake.measure_rainfall", "arguments": {}})
            assert gone.is_error, text_of(gone)
            await wait_for(lambda: "measure_snowfall" in _cached_tools(tmp_path, "fake"), CHANGE_SECONDS)
    assert "measure_rainfall" not in _cached_tools(tmp_path, "fake")


def _city_tool(name: str, description: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    return {"name": name, "description": description, "inputSchema": schema}


async def test_a_modern_server_s_tool_added_at_runtime_is_heard_on_its_listen_stream(tmp_path: Path) -> None:
    await refreshed_workspace(tmp_path, {"modern": MODERN_SERVER})
    assert json.loads((tmp_path / "cache.json").read_text())["servers"]["modern"]["protocolVersion"] == "2026-07-28"
    with anyio.fail_after(SESSION_SECONDS):
        async with _heard_session(tmp_path) as (client, _):
            # Started by this call, the server is listed once in the background; once that is over, only the
            # event on the listen stream can make the gateway list it again.
            await _listed_once(client, "modern")
            added = await execute(
                client, "modern.add_tool", {"name": TIDES, "description": "Predict the ocean tides of a harbour."}
            )
            assert not added.is_error, text_of(added)
            await _approved(tmp_path, "modern", TIDES)
            await _until_found(client, "ocean tides harbour", f"modern.{TIDES}")
            called = await execute(client, f"modern.{TIDES}", {"message": "Brest"})
            assert not called.is_error, text_of(called)
            assert f"{TIDES}: Brest" in text_of(called)
            await wait_for(lambda: TIDES in _cached_tools(tmp_path, "modern"), CHANGE_SECONDS)


async def test_server_everything_adding_a_resource_reaches_the_client(tmp_path: Path, everything_cache: Path) -> None:
    cached_everything(tmp_path, everything_cache)
    data = "data:text/plain;base64," + base64.b64encode(b"tides of a harbour").decode()
    with anyio.fail_after(SESSION_SECONDS):
        async with _heard_session(tmp_path) as (client, heard):
            made = await execute(client, "everything.gzip-file-as-resource", {"name": "tides.gz", "data": data})
            assert not made.is_error, text_of(made)
            await wait_for(lambda: "notifications/resources/list_changed" in heard, CHANGE_SECONDS)
