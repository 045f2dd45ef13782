"""The clients `import` knows: finding a client's file for a scope, detecting which clients have one, and
finding the gateway entries an import left short of a variable.

The clients' names and aliases are in `mcp_gateway.client_names`, which the command line reads without
importing this package; `CLIENTS` lists the clients in the same order. A client may keep its file in several
places (an older location, an editor variant, a `.jsonc` and a `.json`): the first one that holds servers wins,
else the first that exists. Detection looks at every client's default scope, so `import` without `--client`
can proceed when exactly one client has servers and otherwise ask which one.

Clients that filter the environment (Codex, Gemini CLI) start the gateway with only the variables its entry
names. An import that adds a server using `${GITHUB_TOKEN}` makes every such client's gateway for that workspace
need GITHUB_TOKEN too, and an entry an earlier import wrote does not name it: `stale_gateways` finds those
entries, each with its own command now passing the variables it passed plus the missing ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from mcp_gateway.client_names import canonical_client
from mcp_gateway.config import as_list, as_object
from mcp_gateway.errors import ConfigError, ImportUsageError
from mcp_gateway.importing.clients.codex import CODEX
from mcp_gateway.importing.clients.json_clients import (
    CLAUDE_CODE,
    CLAUDE_DESKTOP,
    CLINE,
    CURSOR,
    EPOCH,
    GEMINI,
    OPENCODE,
    ROO,
    VSCODE,
    WINDSURF,
    ZED,
)
from mcp_gateway.importing.clients.model import (
    ClientConfigError,
    ClientFormat,
    ClientReading,
    ImportedServer,
    Launch,
    Scope,
    Where,
)
from mcp_gateway.paths import HOME_ENV_VAR

CLIENTS: tuple[ClientFormat, ...] = (
    CLAUDE_CODE,
    CLAUDE_DESKTOP,
    OPENCODE,
    CURSOR,
    VSCODE,
    WINDSURF,
    CODEX,
    GEMINI,
    ZED,
    CLINE,
    ROO,
    EPOCH,
)
_PASSED_ON = re.compile(r"\$\{?(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}?")


class NoClientFileError(ClientConfigError):
    """None of the client's files exist; the message lists where it looked."""


def find_client(name: str) -> ClientFormat | None:
    """The client `name` stands for: its canonical name or an alias (`mcp_gateway.client_names`), any case."""
    wanted = canonical_client(name)
    return next((client for client in CLIENTS if client.name == wanted), None)


def client_named(name: str) -> ClientFormat:
    """`find_client`, or the usage error that lists the clients."""
    client = find_client(name)
    if client is None:
        raise ImportUsageError(f"unknown client '{name}'; use one of: {', '.join(c.name for c in CLIENTS)}")
    return client


def read_client(client: ClientFormat, where: Where, scope: Scope, source: Path | None = None) -> ClientReading:
    """The client's file for `scope` (or `source`), read.

    Raises:
        NoClientFileError: no candidate file exists.
        ClientConfigError: the file cannot be read or parsed.
    """
    if source is not None:
        if not source.is_file():
            raise NoClientFileError(f"{source}: no such file")
        return client.read(source, scope, where)
    candidates = client.candidates(where, scope)
    existing = [path for path in candidates if path.is_file()]
    if not existing:
        looked = ", ".join(str(path) for path in candidates)
        raise NoClientFileError(f"no {client.title} config found ({scope} scope); looked in: {looked}")
    readings = (client.read(path, scope, where) for path in existing)
    first = next(readings)
    return first if first.servers else next((reading for reading in readings if reading.servers), first)


@dataclass(frozen=True)
class Detected:
    client: ClientFormat
    path: Path | None
    servers: int
    """Entries other than the gateway's own."""
    has_gateway: bool
    problem: str | None = None


def detect(where: Where) -> list[Detected]:
    """Every client with a config file in its default scope, and what it holds."""
    found: list[Detected] = []
    for client in CLIENTS:
        try:
            reading = read_client(client, where, client.scopes[0])
        except NoClientFileError:
            continue
        except ClientConfigError as error:
            found.append(Detected(client, None, 0, has_gateway=False, problem=error.message))
            continue
        count = sum(1 for server in reading.servers if not server.itself)
        found.append(Detected(client, reading.path, count, reading.has_gateway))
    return found


def client_files(where: Where, client: ClientFormat | None = None, scope: Scope | None = None) -> list[Path]:
    """Every file of `client` (every client's when None) in `scope` (every scope when None), where it may be."""
    files: dict[Path, None] = {}
    for each in [client] if client is not None else CLIENTS:
        for wanted in [scope] if scope else each.scopes:
            if wanted in each.scopes:
                files.update(dict.fromkeys(each.candidates(where, wanted)))
    return list(files)


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
        for scope in client.scopes if client.filters_environment else ():
            try:
                reading = read_client(client, where, scope)
            except ConfigError:
                continue
            stale = _stale(client, reading, workspace, needed) if reading.path != besides else None
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
