"""Does a remote server that sends no credentials sign in with OAuth in its client? Ask it once.

A client's config rarely says: Claude Code, for one, keeps the sign-in elsewhere. Importing such a server
and then pointing the client at the gateway would take a working server away from the user, since the
gateway cannot sign in for them. So each imported remote entry without headers or a bearer token gets one
unauthenticated request. HTTP 401 or 403 means it wants a sign-in: it is skipped and stays in the client.
Any other answer means it works without one. No answer at all (offline, a DNS failure, a timeout) decides
nothing: the entry stays imported with a note saying it could not be checked.

The question is asked through a `Probe` the caller passes in: `http_status` is the real one, and tests
answer from a table instead of reaching the network.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace

import anyio
import httpx2

from mcp_gateway.config.expand import expand_text
from mcp_gateway.importers.model import NO_CREDENTIALS, ClientReading, ImportedServer

PROBE_SECONDS = 5.0
SIGN_IN_STATUSES = frozenset({401, 403})
HTTP_REDIRECT = 300
_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "mcp-gateway-import", "version": "1"},
    },
}

Probe = Callable[[str, str], Awaitable[int | str]]
"""(transport, url) → the HTTP status the server answered, or why there was no answer."""


def needs_probe(server: ImportedServer) -> bool:
    entry = server.entry
    if entry is None or entry.get("type") not in ("http", "sse"):
        return False
    return not entry.get("headers") and not entry.get("bearerTokenEnv")


async def http_status(transport: str, url: str) -> int | str:
    """One unauthenticated request the way an MCP client would start: POST initialize, or GET the stream."""
    try:
        async with httpx2.AsyncClient(timeout=PROBE_SECONDS) as client:
            if transport == "http":
                headers = {"Accept": "application/json, text/event-stream"}
                async with client.stream("POST", url, json=_INITIALIZE, headers=headers) as response:
                    return response.status_code
            async with client.stream("GET", url, headers={"Accept": "text/event-stream"}) as response:
                return response.status_code
    except (httpx2.HTTPError, OSError, ValueError) as exc:
        return str(exc) or type(exc).__name__


async def screen_sign_ins(
    reading: ClientReading, client: str, *, probe: Probe, environ: Mapping[str, str]
) -> ClientReading:
    """`reading` with credential-less remote servers that demand a sign-in turned into skipped ones.

    `environ` expands the variables of each url; `client` is the client's title, for the reasons.
    """
    variables = dict(environ)
    answers: dict[str, int | str] = {}

    async def ask(server: ImportedServer) -> None:
        assert server.entry is not None
        url, unset = expand_text(str(server.entry.get("url", "")), variables)
        if unset:
            answers[server.name] = f"its url uses {', '.join(unset)}, which is not set here"
            return
        answers[server.name] = "it did not answer in time"
        with anyio.move_on_after(PROBE_SECONDS * 2):
            answers[server.name] = await probe(str(server.entry["type"]), url)

    async with anyio.create_task_group() as probes:
        for server in reading.servers:
            if needs_probe(server):
                probes.start_soon(ask, server)
    if not answers:
        return reading
    servers = tuple(_judged(server, answers.get(server.name), client) for server in reading.servers)
    return replace(reading, servers=servers)


def _judged(server: ImportedServer, answer: int | str | None, client: str) -> ImportedServer:
    if answer is None:
        return server  # not asked: it has credentials, or is not remote
    if isinstance(answer, int) and answer in SIGN_IN_STATUSES:
        return ImportedServer(
            server.name,
            skipped=(
                f"it signs in with OAuth (without credentials it answered HTTP {answer}), and the gateway cannot "
                f"reuse {client}'s sign-in"
            ),
        )
    kept = tuple(warning for warning in server.warnings if not warning.startswith(NO_CREDENTIALS))
    if isinstance(answer, int) and answer < HTTP_REDIRECT:
        note = f"{NO_CREDENTIALS} and answered without them: no sign-in needed"
    elif isinstance(answer, int):
        note = f"{NO_CREDENTIALS}, and without them it answered HTTP {answer}; check its url"
    else:
        note = (
            f"{NO_CREDENTIALS}, and asking whether it needs a sign-in failed ({answer}); if it signs in "
            f"with OAuth in {client}, keep it there: the gateway cannot reuse that sign-in"
        )
    return replace(server, warnings=(*kept, note))
