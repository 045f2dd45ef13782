"""Gateway entries in other clients that an import leaves short of a variable, and how to bring them up to date.

Clients that filter the environment (Codex, Gemini CLI) start the gateway with only the variables its entry
names. An import that adds a server using `${GITHUB_TOKEN}` to a workspace makes every such client's
gateway for that workspace need GITHUB_TOKEN too, and an entry written by an earlier import does not name
it: that client's gateway would then start the new server without its token. So after each import, the
gateway entries of this workspace in those clients are found, and each one that misses a variable is
rewritten with the same command, passing the variables it passed plus the missing ones. The client's
other servers stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from mcp_gateway.config.jsonfile import as_list, as_object
from mcp_gateway.errors import ConfigError
from mcp_gateway.importing.clients.client import ClientFormat, Launch
from mcp_gateway.importing.clients.model import ClientReading, ImportedServer, Where
from mcp_gateway.importing.clients.registry import CLIENTS, read_client
from mcp_gateway.paths import HOME_ENV_VAR

_PASSED_ON = re.compile(r"\$\{?(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}?")


@dataclass(frozen=True)
class StaleGateway:
    client: ClientFormat
    reading: ClientReading
    """The client's file, every server but the gateway marked to stay as it is."""
    launch: Launch
    """The entry's own command, now passing every variable the workspace needs."""
    missing: tuple[str, ...]


def stale_gateways(
    where: Where, workspace: Path, needed: Sequence[str], *, besides: Path | None = None
) -> Iterator[StaleGateway]:
    """Every gateway entry for `workspace` in a client that filters the environment and misses one of `needed`.

    `besides`: a client file the caller rewrites itself. A file that cannot be read is passed over: the
    import that needs it reports its problems.
    """
    for client in CLIENTS:
        if not client.filters_environment:
            continue
        for scope in client.scopes:
            try:
                reading = read_client(client, where, scope)
            except ConfigError:
                continue
            if reading.path == besides:
                continue
            stale = _stale(client, reading, workspace, needed)
            if stale is not None:
                yield stale


def _stale(client: ClientFormat, reading: ClientReading, workspace: Path, needed: Sequence[str]) -> StaleGateway | None:
    entry = next((server.gateway for server in reading.servers if server.itself and server.gateway), None)
    if entry is None:
        return None
    env = {key: value for key, value in (as_object(entry.get("env")) or {}).items() if isinstance(value, str)}
    if env.get(HOME_ENV_VAR) != str(workspace):
        return None
    passed = [name for name, value in env.items() if _passes_on(name, value)]
    missing = tuple(name for name in needed if name not in passed)
    command = entry.get("command")
    if not missing or not isinstance(command, str):
        return None
    args = tuple(arg for arg in as_list(entry.get("args")) or [] if isinstance(arg, str))
    literal = {name: value for name, value in env.items() if not _passes_on(name, value)}
    launch = Launch(command, args, literal, tuple(dict.fromkeys([*passed, *missing])))
    kept = tuple(
        server if server.itself else ImportedServer(server.name, skipped="kept", warnings=server.warnings)
        for server in reading.servers
    )
    return StaleGateway(client, replace(reading, servers=kept), launch, missing)


def _passes_on(name: str, value: str) -> bool:
    """`X: ${X}` (or `$X`): the client hands its own X to the gateway, as `Launch.needed` writes it."""
    match = _PASSED_ON.fullmatch(value)
    return match is not None and match["name"] == name
