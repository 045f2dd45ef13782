"""A 2026-07-28 client's resource subscriptions, named on its `subscriptions/listen` stream, through the real gateway.

At 2026-07-28 there is no `resources/subscribe`: the client names the URIs it wants updates for on a listen
stream, and the gateway holds a downstream subscription for each while the stream is open. Behind the gateway:
server-everything and the fake server (handshake-era servers, subscribed with `resources/subscribe`; they share
a URI, so the client knows each by its `mcp-gateway://server/...` form), and a 2026-07-28 SDK server
(`fixtures/modern_resource_server.py`, subscribed with a listen stream of the gateway's own). Updates must reach
the client under its own URIs, and each hold must be let go when the client's stream ends, even a stream
cancelled while its server was still starting.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from e2e_gateway import POLL_SECONDS, SESSION_SECONDS, execute, gateway_params, text_of, wait_for
from gateway_testing import ROOT, peer
from mcp import Client
from mcp.client.subscriptions import ResourceUpdated, Subscription
from workspaces import fake_server, refreshed_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

MODERN = "2026-07-28"
SHARED_DOCUMENT = "demo://resource/static/document/architecture.md"
NOTE_URI = "notes://today"
MODERN_SERVER = {"command": sys.executable, "args": [str(ROOT / "fixtures" / "modern_resource_server.py")]}
RELEASE_SECONDS = 20.0
"""Upper bound for a hold to be let go on its server once the client's stream ended: one request, many times over."""
SLOW_HANDSHAKE_SECONDS = 3.0
"""A handshake slow enough that a stream is surely cancelled before it ends (the cancel follows the spawn within
milliseconds), well within the gateway's start timeout."""


async def _updates(stream: Subscription, wanted: set[str]) -> set[str]:
    """The URIs of the stream's resource updates, until every one of `wanted` was heard."""
    heard: set[str] = set()
    async for event in stream:
        if isinstance(event, ResourceUpdated):
            heard.add(event.uri)
            if wanted <= heard:
                break
    return heard


async def _open_streams(client: Client) -> int:
    counted = await execute(client, "modern.open_streams")
    assert not counted.is_error, text_of(counted)
    said: dict[str, object] = counted.structured_content or {}
    result = said.get("result")
    assert isinstance(result, int), counted.structured_content
    return result


async def _until_open_streams(client: Client, count: int) -> None:
    with anyio.fail_after(RELEASE_SECONDS):
        while True:
            if await _open_streams(client) == count:
                return
            await anyio.sleep(POLL_SECONDS)  # the server can only be asked: its streams end on its own time


async def test_updates_of_handshake_era_servers_reach_a_modern_client_s_stream_and_its_end_unsubscribes(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    subscriptions = tmp_path / "subscriptions.log"
    everything_uri, fake_uri = f"mcp-gateway://everything/{SHARED_DOCUMENT}", f"mcp-gateway://fake/{SHARED_DOCUMENT}"
    servers = {
        "everything": {"command": str(peer("mcp-server-everything"))},
        "fake": fake_server(surface="serve", subscription_log=str(subscriptions)),
    }
    with anyio.fail_after(SESSION_SECONDS):
        await refreshed_workspace(home, servers)
        # `auto` asks `server/discover` (a fixed mode would assume the capabilities): what the gateway says it does.
        async with Client(gateway_params(home), mode="auto", cache=None) as client:
            assert client.protocol_version == MODERN
            capabilities = client.server_capabilities
            assert capabilities.resources is not None
            assert capabilities.resources.subscribe is True
            async with client.listen(resource_subscriptions=[everything_uri, fake_uri]) as stream:
                assert stream.honored.resource_subscriptions == [everything_uri, fake_uri]
                # The fake server says at once that its resource changed; server-everything once told to.
                toggled = await execute(client, "everything.toggle-subscriber-updates")
                assert not toggled.is_error, text_of(toggled)
                heard = await _updates(stream, {everything_uri, fake_uri})
            assert heard == {everything_uri, fake_uri}, "each under the URI the client named, nothing else"
            await wait_for(lambda: f"resources/unsubscribe {SHARED_DOCUMENT}" in _lines(subscriptions), RELEASE_SECONDS)
    assert _lines(subscriptions) == [
        f"resources/subscribe {SHARED_DOCUMENT}",
        f"resources/unsubscribe {SHARED_DOCUMENT}",
    ]


async def test_a_modern_server_s_update_reaches_a_modern_client_and_the_gateway_s_stream_ends_with_the_client_s(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    with anyio.fail_after(SESSION_SECONDS):
        await refreshed_workspace(home, {"modern": MODERN_SERVER})
        async with Client(gateway_params(home), mode=MODERN, cache=None) as client:
            # The gateway keeps one stream of its own on a modern server, for its list changes.
            await _until_open_streams(client, 1)
            async with client.listen(resource_subscriptions=[NOTE_URI, "nowhere://at/all"]) as stream:
                assert stream.honored.resource_subscriptions == [NOTE_URI], "an unknown URI is left out of the ack"
                await _until_open_streams(client, 2)
                touched = await execute(client, "modern.touch", {"uri": NOTE_URI})
                assert not touched.is_error, text_of(touched)
                heard = await _updates(stream, {NOTE_URI})
            assert heard == {NOTE_URI}
            await _until_open_streams(client, 1)  # the subscription's stream ended with the client's


async def test_two_streams_naming_one_resource_share_one_hold_until_the_last_ends(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with anyio.fail_after(SESSION_SECONDS):
        await refreshed_workspace(home, {"modern": MODERN_SERVER})
        async with Client(gateway_params(home), mode=MODERN, cache=None) as client:
            await _until_open_streams(client, 1)
            async with client.listen(resource_subscriptions=[NOTE_URI]) as first:
                async with client.listen(resource_subscriptions=[NOTE_URI]) as second:
                    await _until_open_streams(client, 2)  # one downstream stream serves both
                    touched = await execute(client, "modern.touch", {"uri": NOTE_URI})
                    assert not touched.is_error, text_of(touched)
                    assert await _updates(second, {NOTE_URI}) == {NOTE_URI}
                    assert await _updates(first, {NOTE_URI}) == {NOTE_URI}
                assert await _open_streams(client) == 2, "the first stream still holds it"
                touched = await execute(client, "modern.touch", {"uri": NOTE_URI})
                assert not touched.is_error, text_of(touched)
                assert await _updates(first, {NOTE_URI}) == {NOTE_URI}
            await _until_open_streams(client, 1)


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


async def test_a_stream_cancelled_while_its_server_starts_lets_go_of_the_subscription_once_it_is_made(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    spawns, subscriptions = tmp_path / "spawns.log", tmp_path / "subscriptions.log"
    # Its handshake takes this long, so the stream is cancelled while the gateway still waits for it.
    fake = fake_server(
        surface="serve",
        subscription_log=str(subscriptions),
        spawn_log=str(spawns),
        init_delay=str(SLOW_HANDSHAKE_SECONDS),
    )
    with anyio.fail_after(SESSION_SECONDS):
        await refreshed_workspace(home, {"fake": fake})
        spawns.unlink()  # the listing's start: the next one is the subscription's
        async with Client(gateway_params(home), mode=MODERN, cache=None) as client:
            async with anyio.create_task_group() as streams:

                async def listen() -> None:
                    async with client.listen(resource_subscriptions=[SHARED_DOCUMENT]):
                        await anyio.sleep_forever()

                streams.start_soon(listen)
                await wait_for(lambda: bool(_lines(spawns)), SESSION_SECONDS)  # the server is starting for it
                streams.cancel_scope.cancel()
            await wait_for(lambda: f"resources/unsubscribe {SHARED_DOCUMENT}" in _lines(subscriptions), RELEASE_SECONDS)
    assert _lines(subscriptions) == [
        f"resources/subscribe {SHARED_DOCUMENT}",
        f"resources/unsubscribe {SHARED_DOCUMENT}",
    ]
