"""The values every importer produces: what one client entry became, and where it was read from.

An importer turns each entry of a client's config into an `ImportedServer`: either a gateway config entry
(a plain JSON object in the gateway's camelCase form, ready to merge into `config.json`) or the reason it
was skipped. A skipped entry is left in the client untouched on write-back, so the reason must say what
the user would have to do to move it by hand. `ClientReading` is one client file as read: its exact text
(write-back edits that text), the JSON path of the server block, and the servers found there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from mcp_gateway.errors import ConfigError

Scope = Literal["user", "project", "local"]
SCOPES: tuple[Scope, ...] = ("user", "project", "local")
GATEWAY_NAME = "mcp-gateway"
"""The key the gateway's own entry has in every client."""
GATEWAY_DISTRIBUTION = "mcp-meta-gateway"
"""The PyPI name: `mcp-gateway` on PyPI is another project, so `uvx` needs `--from` (reference §0.1)."""

JsonObject = dict[str, object]
NO_CREDENTIALS = "it sends no credentials"
"""How the warning on a remote entry without headers or a token begins (the sign-in check replaces it)."""


class ClientConfigError(ConfigError):
    """A client's config file cannot be read or edited as a whole (unreadable, not JSON/TOML)."""


class Skip(Exception):  # noqa: N818 - a signal, not an error: the entry is reported as skipped
    """Raised inside an importer: this entry cannot be imported, for `reason`."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ImportedServer:
    """One client entry: `entry` when it can run behind the gateway, else `skipped` with the reason."""

    name: str
    entry: JsonObject | None = None
    skipped: str | None = None
    warnings: tuple[str, ...] = ()
    itself: bool = False
    """The entry is the gateway's own: never imported, replaced on write-back."""
    gateway: JsonObject | None = None
    """For the gateway's own entry: how it is started (`command`, `args`, `env`), as far as it could be read."""

    @property
    def imported(self) -> bool:
        return self.entry is not None


@dataclass(frozen=True)
class Where:
    """Everything file locations depend on, passed in so tests run against a scratch HOME."""

    home: Path
    project: Path
    environ: Mapping[str, str] = field(default_factory=dict[str, str])
    platform: str = "linux"
    """`sys.platform`: "linux", "darwin" or "win32"."""

    @property
    def windows(self) -> bool:
        return self.platform == "win32"

    @property
    def macos(self) -> bool:
        return self.platform == "darwin"


@dataclass(frozen=True)
class ClientReading:
    """One client config file as read: its exact text and the servers of the chosen scope."""

    client: str
    path: Path
    scope: Scope
    text: str
    block: tuple[str, ...]
    """Where the servers live in the document: `("mcpServers",)`, `("projects", "/repo", "mcpServers")`."""
    servers: tuple[ImportedServer, ...]
    notes: tuple[str, ...] = ()
    """Things worth knowing that concern no single server (other scopes that hold servers, …)."""

    @property
    def imported(self) -> tuple[ImportedServer, ...]:
        return tuple(server for server in self.servers if server.imported)

    @property
    def skipped(self) -> tuple[ImportedServer, ...]:
        return tuple(server for server in self.servers if not server.imported and not server.itself)

    @property
    def has_gateway(self) -> bool:
        return any(server.itself for server in self.servers)
