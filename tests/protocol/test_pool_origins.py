"""The pool keyed by resolved definition, in-process: who shares a connection, what a background listing
uses, what a config edit retires, and the per-process view `status` shows.

The servers are in-process SDK servers; a recording connector notes the definition each was started with.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import pytest
from gateway_testing import load, write_workspace
from inprocess_fakes import FakeDownstream, InProcessConnector

from mcp_gateway.config import ServerConfig, StdioServer
from mcp_gateway.downstream.connect import ConnectOptions
from mcp_gateway.downstream.connection import OpenedClient
from mcp_gateway.downstream.pool import Pool
from mcp_gateway.origin import Origin

pytestmark = pytest.mark.anyio

DAEMON = {"HOME": "/home/me", "PATH": "/usr/bin"}
"""The daemon's own environment: neither variable the config reads is set in it."""


class Recording:
    """Connects in-process, noting each start's `env` and the environment it was started for."""

    def __init__(self, *downstreams: FakeDownstream) -> None:
        self._inner = InProcessConnector(*downstreams)
        self.started: list[tuple[dict[str, str], str | None]] = []

    async def __call__(self, server: ServerConfig, options: ConnectOptions, stack: AsyncExitStack) -> OpenedClient:
        assert isinstance(server.spec, StdioServer)
        self.started.append((dict(server.spec.env), options.environ.get("MARK")))
        return await self._inner(server, options, stack)


def session(number: int, tmp_path: Path, **environ: str) -> Origin:
    return Origin.of({**DAEMON, **environ}, str(tmp_path), f"session-{number}")


def pool_for(tmp_path: Path, env: dict[str, str], connector: Recording) -> Pool:
    workspace = write_workspace(tmp_path / "home", {"fake": {"command": "in-process", "env": env}})
    config = load(workspace)
    return Pool(config.servers, config.settings, workspace, environ=DAEMON, connector=connector)


async def echo(pool: Pool, origin: Origin | None) -> None:
    result = await pool.call_tool("fake", "echo", {"message": "hi"}, origin=origin)
    assert result["content"] == [{"type": "text", "text": "hi"}]


async def test_sessions_share_a_connection_only_where_their_definitions_are_equal(tmp_path: Path) -> None:
    connector = Recording(downstream := FakeDownstream())
    one, two, three = (session(1, tmp_path, MARK="a"), session(2, tmp_path, MARK="b"), session(3, tmp_path, MARK="a"))
    async with pool_for(tmp_path, {"M": "${MARK}"}, connector) as pool:
        for origin in (one, two, three, one):
            await echo(pool, origin)

        assert connector.started == [({"M": "a"}, "a"), ({"M": "b"}, "b")]
        views = sorted(pool.processes()["fake"], key=lambda view: sorted(view.sessions))
        assert [dict(view.sessions) for view in views] == [{"session-1": 2, "session-3": 1}, {"session-2": 1}]
        status = pool.status("fake")
        assert status.running
        assert status.in_flight == 0
    assert downstream.connections == 2


async def test_a_background_listing_uses_a_running_connection_of_any_session(tmp_path: Path) -> None:
    connector = Recording(FakeDownstream())
    async with pool_for(tmp_path, {"M": "${MARK}"}, connector) as pool:
        await echo(pool, session(1, tmp_path, MARK="a"))

        listing = await pool.list_tools("fake")

        assert [tool["name"] for tool in listing.tools][:1] == ["echo"]
        assert connector.started == [({"M": "a"}, "a")], "listed on the session's connection, none started"


async def test_without_an_origin_the_pool_starts_a_server_as_loaded(tmp_path: Path) -> None:
    connector = Recording(FakeDownstream())
    async with pool_for(tmp_path, {"M": "${MARK:-loaded}"}, connector) as pool:
        await echo(pool, None)
        await pool.list_tools("fake")

        assert connector.started == [({"M": "loaded"}, None)]
        assert [dict(view.sessions) for view in pool.processes()["fake"]] == [{"gateway": 2}]


async def test_an_edit_retires_the_connections_it_resolves_differently_for_their_session(tmp_path: Path) -> None:
    connector = Recording(FakeDownstream())
    marked, unmarked = session(1, tmp_path, MARK="a"), session(2, tmp_path)
    async with pool_for(tmp_path, {"M": "${MARK}"}, connector) as pool:
        await echo(pool, marked)
        await echo(pool, unmarked)
        edited = load(write_workspace(tmp_path / "home", {"fake": {"command": "in-process", "env": {"M": "${OTHER}"}}}))

        pool.reconfigure(edited.servers, edited.settings)  # the daemon's own resolution did not change

        assert [dict(view.sessions) for view in pool.processes()["fake"]] == [{"session-2": 1}]
        await echo(pool, marked)
        await echo(pool, unmarked)
        assert connector.started == [({"M": "a"}, "a"), ({"M": ""}, None), ({"M": ""}, "a")]
