"""What loading `config.json` produces: settings, usable servers, rejected servers, and diagnostics.

A loaded config is a value: frozen, in file order, and complete even when parts of the file were wrong
(those parts are in `rejected` and `diagnostics`), so the gateway always has something to serve.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_gateway.config.diagnostics import Diagnostic
from mcp_gateway.config.models import HttpServer, Settings, SseServer, StdioServer


@dataclass(frozen=True)
class ServerConfig:
    name: str
    spec: StdioServer | HttpServer | SseServer
    """Validated, with `${VAR}` expanded."""
    identity: Mapping[str, Any]
    """The canonical connection fields before expansion (plain JSON) that the cached catalog is keyed by."""
    misspelt: tuple[str, ...] = ()
    """Unknown keys of its entry that look like fields (`'arg' (did you mean 'args'?)`), ignored: a start that
    times out names them."""


@dataclass(frozen=True)
class GatewayConfig:
    path: Path
    settings: Settings
    servers: Mapping[str, ServerConfig]
    """Every usable server in file order; disabled ones included (`spec.disabled` says so)."""
    rejected: Mapping[str, str]
    """Server name → one-line reason, for entries too broken to use."""
    diagnostics: tuple[Diagnostic, ...]

    def server_names(self) -> list[str]:
        return list(self.servers)

    @property
    def enabled_servers(self) -> list[str]:
        return [name for name, server in self.servers.items() if not server.spec.disabled]

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "warning")
