"""Scripted sessions through one real client, after the user's servers were moved into the gateway.

The user had servers in the client (`@modelcontextprotocol/server-everything`, or our fixture server);
`import --write-client-config` moved them into a gateway workspace; the client then runs one prompt against
the mock model API, which plays a script. `run_tour` plays `GatewayTour` (search, execute a sum, execute
an image, execute with a wrong argument, answer); `first_requests` runs a client several times on a prompt
answered at once. Everything the client sent is in `Tour.mock`; its exit and leftovers are in `Tour.run`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gateway_testing import peer

from clients.clis import ClientCli, UserServer
from clients.conversation import ModelRequest
from clients.mock_api import MockApi, running_mock_api
from clients.places import Place
from clients.script import AnswerAtOnce, GatewayTour, Script
from clients.sessions import ClientRun, moved_in, run_client

PROMPT = "Use the MCP gateway's tools to add 2 and 3, then show me the tiny test image."
EVERYTHING = "everything"


def everything() -> UserServer:
    return UserServer(EVERYTHING, str(peer("mcp-server-everything")))


@dataclass(frozen=True)
class Tour:
    client: ClientCli
    place: Place
    mock: MockApi
    run: ClientRun
    imported: str
    """What `mcp-gateway import` printed."""


async def run_session(
    client: ClientCli, root: Path, servers: Sequence[UserServer], script: Script, *, refresh: bool = True
) -> Tour:
    """`servers` moved into the gateway, then one prompt through the client with the model playing `script`."""
    place = Place(root)
    async with running_mock_api(script) as mock:
        imported = await moved_in(client, place, servers, mock.base_url, mock.proxy_url, refresh=refresh)
        run = await run_client(client, place, client.command(place, PROMPT), mock)
    return Tour(client, place, mock, run, imported)


async def run_tour(client: ClientCli, root: Path, *, refresh: bool = True) -> Tour:
    return await run_session(client, root, [everything()], GatewayTour(), refresh=refresh)


@dataclass(frozen=True)
class FirstRequests:
    place: Place
    requests: list[ModelRequest]
    """The first conversation request of each run, in order."""
    asked_after: list[float]
    """Seconds from each run's start to its first conversation request."""
    runs: list[ClientRun]


async def first_requests(client: ClientCli, root: Path, runs: int) -> FirstRequests:
    """Import server-everything with the client's entry exactly as `import` writes it (an empty catalog, as
    on a first day), then run the client `runs` times on a prompt the model answers at once."""
    place = Place(root)
    requests: list[ModelRequest] = []
    asked_after: list[float] = []
    finished: list[ClientRun] = []
    async with running_mock_api(AnswerAtOnce()) as mock:
        await moved_in(client, place, [everything()], mock.base_url, mock.proxy_url, refresh=False)
        for number in range(runs):
            since = len(mock.recorded)
            argv = client.command(place, PROMPT)
            run = await run_client(client, place, argv, mock, label=f"first-{number}")
            first = mock.conversation(since)
            assert first, f"{client.name} sent no conversation request: {mock.summary()}\n{run.output()}"
            assert first[0].request is not None
            requests.append(first[0].request)
            asked_after.append(first[0].at - run.started)
            finished.append(run)
    return FirstRequests(place, requests, asked_after, finished)
