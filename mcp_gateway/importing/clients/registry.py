"""The clients `import` knows, finding a client's file for a scope, and detecting which clients have one.

The clients' names and aliases are in `mcp_gateway.client_names`, which the command line reads without
importing this package; `CLIENTS` lists the clients in the same order. A client may keep its file in several
places (an older location, an editor variant, a `.jsonc` and a `.json`); the first one that holds servers
wins, else the first that exists. Detection looks at every client's default scope and reports each file with
its server count, so `import` without `--client` can proceed when exactly one client has servers and
otherwise ask which one. `files_with_backups` looks in the same places for the backups `--restore` and
`--backups` work on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mcp_gateway.client_names import canonical_client
from mcp_gateway.importing.backups import Backup, history_of
from mcp_gateway.importing.clients import (
    claude_code,
    claude_desktop,
    cline,
    codex,
    cursor,
    gemini,
    opencode,
    roo,
    servers_json,
    vscode,
    windsurf,
    zed,
)
from mcp_gateway.importing.clients.client import ClientFormat
from mcp_gateway.importing.clients.model import ClientConfigError, ClientReading, Scope, Where

CLIENTS: tuple[ClientFormat, ...] = (
    claude_code.CLIENT,
    claude_desktop.CLIENT,
    opencode.CLIENT,
    cursor.CLIENT,
    vscode.CLIENT,
    windsurf.CLIENT,
    codex.CLIENT,
    gemini.CLIENT,
    zed.CLIENT,
    cline.CLIENT,
    roo.CLIENT,
    servers_json.CLIENT,
)


class NoClientFileError(ClientConfigError):
    """None of the client's files exist; the message lists where it looked."""


def find_client(name: str) -> ClientFormat | None:
    """The client `name` stands for: its canonical name or an alias (`mcp_gateway.client_names`), any case."""
    wanted = canonical_client(name)
    return next((client for client in CLIENTS if client.name == wanted), None)


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
    first: ClientReading | None = None
    for path in existing:
        reading = client.read(path, scope, where)
        if reading.servers:
            return reading
        first = first or reading
    assert first is not None
    return first


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


def files_with_backups(
    where: Where, *, client: ClientFormat | None = None, scope: Scope | None = None, source: Path | None = None
) -> dict[Path, list[Backup]]:
    """Each client file with kept versions (`backups.history_of`), oldest first: `source` only, else every file
    of `client` (every client's when None) in `scope` (every scope when None)."""
    files: dict[Path, None] = {}
    if source is not None:
        files[source.absolute()] = None
    else:
        for each in [client] if client is not None else CLIENTS:
            for wanted in [scope] if scope else each.scopes:
                if wanted in each.scopes:
                    files.update(dict.fromkeys(each.candidates(where, wanted)))
    return {path: history for path in files if (history := history_of(path))}
