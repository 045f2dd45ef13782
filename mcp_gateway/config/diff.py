"""What a new `config.json` changes for a running gateway: the servers to start, stop, restart or re-read.

A live reload applies the difference between the config being served and the one just loaded, and the pool,
the catalog and the log all read it from here, so they cannot disagree about what changed. A server counts
only while it is enabled: one disabled is `removed`, one enabled again is `added`. An enabled server is
`changed` when its resolved definition differs (the connection fields after `${VAR}` expansion: command,
args, env, cwd, inheritEnv, url, headers, bearerTokenEnv), since only that is what its running process was
started with; it is `updated` when only what the gateway itself reads differs (aliases, filters, lifecycle,
timeouts, description, protocol), which needs no new process.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mcp_gateway.config.gateway_config import GatewayConfig, ServerConfig
from mcp_gateway.config.models import CONNECTION_FIELDS, Settings


@dataclass(frozen=True)
class ConfigChanges:
    added: tuple[str, ...] = ()
    """Enabled now and not before: new in the file, or enabled again."""
    removed: tuple[str, ...] = ()
    """Enabled before and not now: gone from the file, disabled, or rejected as invalid."""
    changed: tuple[str, ...] = ()
    """Enabled in both, started differently now: its process is replaced on its next call."""
    updated: tuple[str, ...] = ()
    """Enabled in both, started the same way, read differently by the gateway (aliases, filters, timeouts…)."""
    settings: tuple[str, ...] = ()
    """The gateway settings whose value differs, by their name in config.json."""

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.updated or self.settings)

    def summary(self) -> str:
        """One line for a log: each kind of change with its servers, or that nothing changed."""
        parts = [
            f"{label}: {', '.join(names)}"
            for label, names in (
                ("added", self.added),
                ("removed", self.removed),
                ("restarted on their next call", self.changed),
                ("updated", self.updated),
                ("settings", self.settings),
            )
            if names
        ]
        return "; ".join(parts) if parts else "nothing that affects the servers"


def resolved_definition(server: ServerConfig) -> dict[str, object]:
    """What the server's process is started with (or its url reached with), `${VAR}` already expanded."""
    spec = server.spec
    return spec.model_dump(include=set(CONNECTION_FIELDS[spec.type]))


def server_changes(before: Mapping[str, ServerConfig], after: Mapping[str, ServerConfig]) -> ConfigChanges:
    """How the enabled servers of `after` differ from those of `before` (disabled ones count as absent)."""
    old = _enabled(before)
    new = _enabled(after)
    kept = [name for name in new if name in old]
    changed = tuple(name for name in kept if resolved_definition(old[name]) != resolved_definition(new[name]))
    return ConfigChanges(
        added=tuple(name for name in new if name not in old),
        removed=tuple(name for name in old if name not in new),
        changed=changed,
        updated=tuple(name for name in kept if name not in changed and old[name].spec != new[name].spec),
    )


def config_changes(before: GatewayConfig, after: GatewayConfig) -> ConfigChanges:
    """`server_changes` of the two configs, with the settings that differ."""
    servers = server_changes(before.servers, after.servers)
    return ConfigChanges(
        added=servers.added,
        removed=servers.removed,
        changed=servers.changed,
        updated=servers.updated,
        settings=_settings_changed(before.settings, after.settings),
    )


def _enabled(servers: Mapping[str, ServerConfig]) -> dict[str, ServerConfig]:
    return {name: server for name, server in servers.items() if not server.spec.disabled}


def _settings_changed(before: Settings, after: Settings) -> tuple[str, ...]:
    return tuple(
        field.alias or name
        for name, field in Settings.model_fields.items()
        if getattr(before, name) != getattr(after, name)
    )
