"""Several gateway processes on one workspace (one per AI client session): cache.json loses nothing.

Each gateway lists a different server at the same moment; the cross-process lock and merge must keep every
server's entry, and each gateway must then find the tools the others listed.
"""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from e2e_gateway import SESSION_SECONDS, gateway_session, payload_of, ranked_tools, run_cli_async, search, text_of
from mcp import Client
from workspaces import fake_server, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

GATEWAYS = 4
ROUNDS = 3


async def test_four_gateways_listing_different_servers_at_once_keep_every_entry_and_see_each_other(
    tmp_path: Path,
) -> None:
    servers = {f"server{index}": fake_server(name=f"fake-{index}", init_delay="0.2") for index in range(GATEWAYS)}
    home = tmp_path / "home"
    # Listing is on demand only, so each serving gateway writes exactly the server it is asked about.
    write_workspace(home, servers, {"startupMetadataCheck": False})
    go = anyio.Event()

    async def list_one(client: Client, server: str) -> None:
        await go.wait()
        result = await client.call_tool("list_tools", {"server": server})
        assert not result.is_error, text_of(result)
        assert "echo" in {tool["name"] for tool in payload_of(result)["tools"]}

    with anyio.fail_after(SESSION_SECONDS * 2):
        async with AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(gateway_session(home)) for _ in range(GATEWAYS)]
            async with anyio.create_task_group() as listings:
                for index, client in enumerate(clients):
                    listings.start_soon(list_one, client, f"server{index}")
                go.set()
            assert set(cached_servers(home)) == set(servers)
            seen = [ranked_tools(await search(client, "echo the message", limit=GATEWAYS)) for client in clients]
    expected = {f"server{index}.echo" for index in range(GATEWAYS)}
    assert all(set(ranking) == expected for ranking in seen), seen


async def test_four_refresh_processes_at_once_keep_every_entry_round_after_round(tmp_path: Path) -> None:
    servers = {f"server{index}": fake_server(name=f"fake-{index}") for index in range(GATEWAYS)}
    home = tmp_path / "home"
    write_workspace(home, servers)
    previous: dict[str, Any] = {}
    with anyio.fail_after(SESSION_SECONDS * 2):
        for _ in range(ROUNDS):
            async with anyio.create_task_group() as refreshes:
                for name in servers:
                    refreshes.start_soon(refresh_one, home, name)
            cached = cached_servers(home)
            assert set(cached) == set(servers)
            fetched = {name: entry["fetchedAt"] for name, entry in cached.items()}
            assert all(fetched[name] != previous.get(name) for name in servers), "every refresh was written"
            previous = fetched


async def refresh_one(home: Path, server: str) -> None:
    done = await run_cli_async("refresh", server, home=home)
    assert done.returncode == 0, done.stderr


def cached_servers(home: Path) -> dict[str, Any]:
    return cast(dict[str, Any], json.loads((home / "cache.json").read_text())["servers"])
