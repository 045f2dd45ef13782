"""The sessions: each configuration of one client in its own scratch HOME, its first request kept.

Every session uses the end-to-end harness as the tests do (`clients.sessions`): the real CLI, the mock model
API answering at once, the client's exit and its processes' end awaited. The servers' own `instructions`
come from an SDK client connected to each server, and to the gateway on the imported workspace.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from clients.clis import ClaudeCode, ClientCli, UserServer
from clients.conversation import as_dict
from clients.mock_api import MockApi, running_mock_api
from clients.places import Place
from clients.script import AnswerAtOnce
from clients.sessions import ClientRun, moved_in, run_client
from clients.tour import PROMPT
from e2e_gateway import GATEWAY_BIN
from gateway_testing import peer
from mcp import StdioServerParameters

from benchmarks.client_context.mcp_share import McpShare, mcp_share
from benchmarks.gateway_session import gateway_environment, stdio_session
from benchmarks.tokens import count_tokens

INSTRUCTIONS_SECONDS = 60.0
"""Upper bound for connecting an SDK client to one server (an npm server's cold start on a busy machine)."""
NO_SERVERS = "no servers"
DIRECT = "direct"
DIRECT_DEFERRED = "direct, Claude Code's defaults"
GATEWAY = "gateway"


class MeasureError(RuntimeError):
    """A session did not give a request to measure."""


@dataclass(frozen=True)
class Measured:
    client: str
    configuration: str
    share: McpShare
    seconds: float
    """How long the client ran."""
    first_request_after: float
    """Seconds from the client's start to its first request that carries the session."""
    tried_to_reach: tuple[str, ...]
    """The proxy requests the client made (what it would have fetched from the internet)."""
    request: dict[str, Any]
    """The first request's body, as the client sent it."""


def user_servers(shared: Path) -> list[UserServer]:
    """The three published servers, as a user lists them; `shared` is the filesystem server's root."""
    return [
        UserServer("everything", str(peer("mcp-server-everything"))),
        UserServer("filesystem", str(peer("mcp-server-filesystem")), [str(shared)]),
        UserServer("memory", str(peer("mcp-server-memory")), [], {"MEMORY_FILE_PATH": str(shared / "memory.jsonl")}),
    ]


async def instructions_of(command: str, args: Sequence[str], env: dict[str, str], errlog: Path) -> str:
    """A server's `instructions`, from its `initialize` result; its stderr goes to `errlog`, not the report."""
    params = StdioServerParameters(command=command, args=list(args), env=gateway_environment() | env)
    with anyio.fail_after(INSTRUCTIONS_SECONDS), errlog.open("a") as log:
        async with stdio_session(params, log) as client:
            return client.instructions or ""


Prepare = Callable[[Place, MockApi], Awaitable[None]]


async def _first_request(
    client: ClientCli, place: Place, prepare: Prepare
) -> tuple[str, dict[str, Any], ClientRun, MockApi, float]:
    """The first request's path and body, the client's run, the mock, and when the request came after the start."""
    async with running_mock_api(AnswerAtOnce()) as mock:
        await prepare(place.make(), mock)
        run = await run_client(client, place, client.command(place, PROMPT), mock)
    conversation = mock.conversation()
    if run.returncode != 0 or not conversation:
        raise MeasureError(f"{client.name} gave no request to measure: {mock.summary()}\n{run.output()}")
    first = conversation[0]
    body = as_dict(first.call.body)
    if not body:
        raise MeasureError(f"{client.name} sent a request body that is not a JSON object")
    return first.call.path, body, run, mock, first.at - run.started


async def measure_client(client: ClientCli, scratch: Path) -> list[Measured]:
    """Every configuration of one client, in turn; the counts need the no-servers request first."""
    shared = scratch / "shared"
    shared.mkdir(parents=True, exist_ok=True)
    servers = user_servers(shared)
    errlog = scratch / "servers.stderr.log"
    instructions = [await instructions_of(s.command, s.args, dict(s.env), errlog) for s in servers]

    async def none(place: Place, mock: MockApi) -> None:
        client.write_config(place, [], mock.base_url)

    async def direct(place: Place, mock: MockApi) -> None:
        client.write_config(place, servers, mock.base_url)
        client.wait_for_every_server(place)

    async def deferred(place: Place, mock: MockApi) -> None:
        client.write_config(place, servers, mock.base_url)

    async def gateway(place: Place, mock: MockApi) -> None:
        await moved_in(client, place, servers, mock.base_url, mock.proxy_url, refresh=True)

    configurations: list[tuple[str, Prepare]] = [(DIRECT, direct), (GATEWAY, gateway)]
    if isinstance(client, ClaudeCode):
        configurations.insert(1, (DIRECT_DEFERRED, deferred))
    path, body, run, mock, after = await _first_request(client, Place(scratch / NO_SERVERS.replace(" ", "-")), none)
    baseline = set(mcp_share(path, body, (), (), count_tokens).tool_names)
    share = mcp_share(path, body, baseline, (), count_tokens)
    results = [Measured(client.name, NO_SERVERS, share, run.seconds, after, (), body)]
    for name, prepare in configurations:
        place = Place(scratch / name.replace(" ", "-").replace(",", "").replace("'", ""))
        path, body, run, mock, after = await _first_request(client, place, prepare)
        said = instructions
        if name == GATEWAY:
            said = [await instructions_of(str(GATEWAY_BIN), ["--home", str(place.workspace)], {}, errlog)]
        share = mcp_share(path, body, baseline, said, count_tokens)
        results.append(Measured(client.name, name, share, run.seconds, after, tuple(mock.proxied), body))
    return results
