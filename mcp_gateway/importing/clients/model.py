"""The values every client format produces and takes: what one client entry became, where it was read from,
and how the client is to start the gateway.

A skipped entry is left in the client untouched on write-back, so its reason must say what the person would
have to do to move it by hand. `ClientReading` keeps the file's exact text: write-back edits that text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from mcp_gateway.errors import ConfigError

Scope = Literal["user", "project", "local"]
GATEWAY_NAME = "mcp-gateway"
"""The key the gateway's own entry has in every client."""
GATEWAY_DISTRIBUTION = "mcp-meta-gateway"
"""The PyPI name: `mcp-gateway` on PyPI is another project, so `uvx` needs `--from` (reference §0.1)."""

JsonObject = dict[str, object]
NO_CREDENTIALS = "it sends no credentials"
"""How the warning on a remote entry without headers or a token begins (the sign-in check replaces it)."""
VSCODE_FAMILY = ("Code", "Code - Insiders", "Cursor", "Windsurf", "VSCodium")
"""Editors whose user data folders hold VS Code extension storage (Cline and Roo live there)."""


class ClientConfigError(ConfigError):
    """A client's config file cannot be read or edited as a whole (unreadable, not JSON/TOML)."""


class Skip(Exception):  # noqa: N818 - a signal, not an error: the entry is reported as skipped
    """Raised while reading one entry: it cannot be imported, for `reason`."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ImportedServer:
    """One client entry: `entry` (the gateway's camelCase form) when it can run behind the gateway, else
    `skipped` with the reason."""

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
    """Everything file locations depend on, passed in so tests run against a scratch HOME: paths start from
    here, never from the real home or environment, and so do the variables clients honour (`CLAUDE_CONFIG_DIR`,
    `CODEX_HOME`, `XDG_CONFIG_HOME`, `APPDATA`, …)."""

    home: Path
    project: Path
    environ: Mapping[str, str] = field(default_factory=dict[str, str])
    platform: str = "linux"
    """`sys.platform`."""

    @property
    def windows(self) -> bool:
        return self.platform == "win32"

    @property
    def macos(self) -> bool:
        return self.platform == "darwin"

    def env_path(self, name: str) -> Path | None:
        value = self.environ.get(name)
        return Path(value).expanduser() if value else None

    def config_home(self) -> Path:
        """`$XDG_CONFIG_HOME`, else `~/.config`: Linux apps and several CLIs on every OS."""
        xdg = self.environ.get("XDG_CONFIG_HOME")
        return Path(xdg) if xdg and not self.windows else self.home / ".config"

    def app_data(self, variable: str = "APPDATA", default: str = "Roaming") -> Path:
        """Windows `%APPDATA%` (or `%LOCALAPPDATA%`, with "Local")."""
        value = self.environ.get(variable)
        return Path(value) if value else self.home / "AppData" / default

    def app_support(self, app: str) -> Path:
        """An Electron app's user data folder: the place VS Code-family editors and Claude Desktop use."""
        if self.macos:
            return self.home / "Library" / "Application Support" / app
        return self.app_data() / app if self.windows else self.config_home() / app

    def vscode_user_dirs(self, editors: Sequence[str] = VSCODE_FAMILY) -> list[Path]:
        return [self.app_support(editor) / "User" for editor in editors]


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


@dataclass(frozen=True)
class Launch:
    """How a client starts the gateway: the command, its arguments and environment."""

    command: str
    args: tuple[str, ...]
    env: Mapping[str, str]
    needed: tuple[str, ...] = ()
    """Variables the gateway's servers read from the client's environment; clients that filter the
    environment (Codex, Gemini) are told to pass them on."""


@dataclass(frozen=True, kw_only=True)
class ClientFormat:
    """One client's config format: where its files are, how one reads, and how it is rewritten so that the
    imported servers are replaced by the gateway's entry (`render_entry` shows that entry exactly as written)."""

    name: str
    title: str
    gui: bool
    """A GUI app that does not inherit the shell's PATH: the gateway command must be absolute."""
    scopes: tuple[Scope, ...]
    """The first is the default."""
    locate: Callable[[Where, Scope], list[Path]]
    filters_environment: bool = False
    """It starts servers with only the variables their entry names (`Launch.needed` goes into the entry)."""

    def candidates(self, where: Where, scope: Scope) -> list[Path]:
        return self.locate(where, scope)

    def read(self, path: Path, scope: Scope, where: Where) -> ClientReading:
        raise NotImplementedError

    def render_entry(self, launch: Launch) -> str:
        raise NotImplementedError

    def rewrite(self, reading: ClientReading, launch: Launch) -> str:
        raise NotImplementedError
