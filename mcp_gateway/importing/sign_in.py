"""Does a remote server that sends no credentials sign in with OAuth in its client? Ask it once.

A client's config rarely says: Claude Code, for one, keeps the sign-in elsewhere, and the gateway cannot
reuse that sign-in. So each imported remote entry without headers or a bearer token gets one unauthenticated
request (one whose client's own config has an OAuth block is marked already: `oauth_block`). HTTP 401 or
403 means it wants a sign-in: it is imported marked `"oauth": {}` (needs a sign-in), with
a note, and the import tells the person to run `mcp-gateway login NAME` for it (`needs_login`); until they
do, a call to it says the same. Any other answer means it works without one. No answer at all (offline, a DNS
failure, a timeout) decides nothing: the entry stays imported with a note saying it could not be checked.

The question is asked through a `Probe` the caller passes in: `http_status` is the real one, and tests
answer from a table instead of reaching the network. It reaches the network even in a dry run, so the
import says which urls it asked (`probe_targets`), and `--no-probe` skips it (`skip_sign_ins`): each such
server is then imported with a note that nobody asked.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace

import anyio
import httpx2

from mcp_gateway.config import expand_text
from mcp_gateway.importing.clients import NO_CREDENTIALS, ClientReading, ImportedServer, JsonObject
from mcp_gateway.wire import bare_initialize

PROBE_SECONDS = 5.0
SIGN_IN_STATUSES = frozenset({401, 403})
HTTP_REDIRECT = 300
_INITIALIZE = bare_initialize("mcp-gateway-import")

Probe = Callable[[str, str], Awaitable[int | str]]
"""(transport, url) → the HTTP status the server answered, or why there was no answer."""


def needs_login(entry: JsonObject | None) -> bool:
    """An imported entry the gateway can reach only after `mcp-gateway login` (marked `oauth`); a disabled one
    is never reached, so its sign-in waits until it is enabled (a call to it then says to sign in)."""
    return entry is not None and entry.get("oauth") is not None and entry.get("disabled") is not True


def needs_probe(server: ImportedServer) -> bool:
    entry = server.entry
    if entry is None or entry.get("type") not in ("http", "sse") or entry.get("oauth") is not None:
        return False  # marked oauth already: its client's own block said it signs in
    if entry.get("disabled") is True:
        return False  # turned off in its client: the gateway contacts it no more than it starts it
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
    targets = probe_targets(reading, environ)
    answers: dict[str, int | str] = {}

    async def ask(server: ImportedServer, url: str) -> None:
        assert server.entry is not None
        answers[server.name] = "it did not answer in time"
        with anyio.move_on_after(PROBE_SECONDS * 2):
            answers[server.name] = await probe(str(server.entry["type"]), url)

    async with anyio.create_task_group() as probes:
        for server in reading.servers:
            target = targets.get(server.name)
            if isinstance(target, Unexpanded):
                answers[server.name] = f"its url uses {', '.join(target.unset)}, which is not set here"
            elif target is not None:
                probes.start_soon(ask, server, target)
    if not answers:
        return reading
    servers = tuple(_judged(server, answers.get(server.name), client) for server in reading.servers)
    return replace(reading, servers=servers)


@dataclass(frozen=True)
class Unexpanded:
    """A url that cannot be asked: it uses variables not set in the import's environment."""

    unset: tuple[str, ...]


def probe_targets(reading: ClientReading, environ: Mapping[str, str]) -> dict[str, str | Unexpanded]:
    """Each server the sign-in check asks, by name: the url it requests (variables expanded), or why not."""
    targets: dict[str, str | Unexpanded] = {}
    for server in reading.servers:
        if needs_probe(server):
            assert server.entry is not None
            url, unset = expand_text(str(server.entry.get("url", "")), dict(environ))
            targets[server.name] = Unexpanded(tuple(unset)) if unset else url
    return targets


def skip_sign_ins(reading: ClientReading, client: str) -> ClientReading:
    """`reading` without the check (`--no-probe`): each server it would ask says that nobody asked it."""
    note = (
        f"{NO_CREDENTIALS}, and it was not asked whether it needs a sign-in (--no-probe); if it signs in with "
        f'OAuth in {client}, the gateway cannot reuse that sign-in: add "oauth": {{}} to it and run mcp-gateway login'
    )
    servers = tuple(
        replace(server, warnings=(*_without_credentials_notes(server), note)) if needs_probe(server) else server
        for server in reading.servers
    )
    return replace(reading, servers=servers)


def _without_credentials_notes(server: ImportedServer) -> tuple[str, ...]:
    return tuple(warning for warning in server.warnings if not warning.startswith(NO_CREDENTIALS))


def _judged(server: ImportedServer, answer: int | str | None, client: str) -> ImportedServer:
    if answer is None:
        return server  # not asked: it has credentials, or is not remote
    kept = _without_credentials_notes(server)
    if isinstance(answer, int) and answer in SIGN_IN_STATUSES:
        assert server.entry is not None  # only entries are asked
        note = (
            f"it signs in with OAuth (without credentials it answered HTTP {answer}); the gateway cannot reuse "
            f"{client}'s sign-in, so it is imported as needing its own sign-in (`login`, below)"
        )
        return replace(server, entry={**server.entry, "oauth": {}}, warnings=(*kept, note))
    if isinstance(answer, int) and answer < HTTP_REDIRECT:
        note = f"{NO_CREDENTIALS} and answered without them: no sign-in needed"
    elif isinstance(answer, int):
        note = f"{NO_CREDENTIALS}, and without them it answered HTTP {answer}; check its url"
    else:
        note = (
            f"{NO_CREDENTIALS}, and asking whether it needs a sign-in failed ({answer}); if it signs in "
            f"with OAuth in {client}, the gateway cannot reuse that sign-in: run mcp-gateway login for it"
        )
    return replace(server, warnings=(*kept, note))
