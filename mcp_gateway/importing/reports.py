"""What `ImportService` is asked and what it answers for an import, and how a report comes to hold no secret.

Nothing printed may show a secret: a dry run is the kind of output people paste into issues. Entries are masked
where they go in (`mask_json`), a config entry of any client's shape: what is a secret is decided by the shared
rules of `mcp_gateway.masking` (env values by name or looks, `--api-key X`, a token alone in the args or inside
an `sh -c '…'` string, `Authorization: X`, `?key=X`, `user:password@`); here is only where they sit in a
client's entry. A header is a secret by its name or when its value looks generated, so `X-Client: my-app` is
shown as it is: hiding it hides what a person checks a preview for. A value made only of `${VAR}` references
(`Bearer ${API_TOKEN}`) names a secret without holding one and is shown. Free text (a sign-in check's error
naming the url it asked, a launch check quoting the command's output, a client's note) passes through a
`SecretMask` of the same secrets (`secrets_in`) as the report leaves the service (`ImportReport.masked`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from mcp_gateway.config import as_list, as_object
from mcp_gateway.importing.clients import ClientFormat, Detected, JsonObject, Scope
from mcp_gateway.importing.launch import Launcher
from mcp_gateway.masking import (
    MASK,
    VARIABLE_REFERENCE,
    Redact,
    SecretMask,
    looks_like_token,
    redact_args,
    redact_env,
    redact_header,
    redact_url,
)


@dataclass(frozen=True)
class AskingForSignIns:
    """Progress: the sign-in check is about to ask `servers` remote servers (it may take a few seconds)."""

    servers: int


Progress = Callable[[AskingForSignIns], None]


@dataclass(frozen=True)
class ImportRequest:
    client: str
    """A client's name or alias (`claude-code`, `claude`, …)."""
    scope: Scope | None = None
    """None: the client's first scope."""
    source: Path | None = None
    """A file in the client's format to read instead of the client's own."""
    dry_run: bool = False
    write_client_config: bool = False
    launcher: Launcher = "auto"
    """How the client is to start the gateway; `auto` decides by how this gateway was installed."""
    replace: bool = False
    """A server the gateway already has with a different definition takes the client's definition."""
    probe: bool = True
    """Ask each remote server without credentials whether it needs a sign-in (one unauthenticated request)."""


ServerStatus = Literal["added", "updated", "unchanged", "conflict", "skipped", "gateway"]
"""What became of one client entry; `gateway` is the gateway's own entry, never imported, and `conflict` a
server the gateway already has under that name with another definition: it stays in the client."""
IMPORTED: frozenset[ServerStatus] = frozenset({"added", "updated", "unchanged"})


@dataclass(frozen=True)
class ServerOutcome:
    name: str
    status: ServerStatus
    entry: JsonObject | None = None
    """The entry as the gateway config holds it, masked; None when not imported."""
    changed: tuple[str, ...] = ()
    """For `updated` and `conflict`: the connection fields in which the client's definition differs."""
    reason: str | None = None
    """For `skipped`, `conflict` and `gateway`: why it was not imported."""
    notes: tuple[str, ...] = ()

    @property
    def imported(self) -> bool:
        return self.status in IMPORTED


@dataclass(frozen=True)
class NeededVariable:
    """A variable the imported servers use, which the client used to supply and the gateway now needs."""

    name: str
    set_here: bool
    """Whether it is set (and not empty) in the environment the import ran in."""


@dataclass(frozen=True)
class ClientEntry:
    """The gateway's entry as write-back puts it into the client file, and what it replaces there."""

    path: Path
    block: tuple[str, ...]
    replaced: int
    """Imported servers the entry takes the place of."""
    kept: int
    """Servers that could not be imported and stay."""
    text: str
    """The entry exactly as written, masked."""
    launcher: Literal["uvx", "path"]
    why: str
    start_problem: str | None = None
    """Why the entry's command did not start the gateway when it was tried; None: it started."""
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class GatewayRefresh:
    """Another client's gateway entry for this workspace, brought up to date with the variables it now needs."""

    client: str
    """The client's title."""
    path: Path
    missing: tuple[str, ...]
    """The variables the entry did not pass on, which the workspace's servers now use."""
    backup: Path | None = None
    """None in a dry run, or when the rewrite failed."""
    failure: str | None = None


@dataclass(frozen=True)
class ClientWrite:
    path: Path
    backup: Path | None
    """None when the file already held exactly this entry."""
    kept: int
    """Servers left in it besides the gateway."""
    versions: int = 0
    """How many versions of it are kept beside it, this backup included."""


ConfigWrite = Literal["written", "unchanged"]


@dataclass(frozen=True)
class ImportReport:
    client: ClientFormat
    scope: Scope
    path: Path
    """The client file that was read."""
    servers: tuple[ServerOutcome, ...]
    """Every entry of the client, in its order."""
    notes: tuple[str, ...]
    gateway_config: Path
    variables: tuple[NeededVariable, ...]
    client_entry: ClientEntry
    dry_run: bool
    config_write: ConfigWrite | None = None
    """None: the gateway config was not written (a dry run, nothing imported, or the write failed)."""
    client_write: ClientWrite | None = None
    """None: the client file was not rewritten (not asked, or the write failed)."""
    write_failure: str | None = None
    """A write that failed, and that the file is unchanged; nothing after it was attempted."""
    refreshed: tuple[GatewayRefresh, ...] = ()
    """Other clients' gateway entries for this workspace that missed a variable (to do, in a dry run)."""
    contacted: tuple[str, ...] = ()
    """The urls the sign-in check requested (masked), a dry run's included."""
    not_contacted: tuple[str, ...] = ()
    """The urls it would have requested, had the probe not been skipped (masked)."""

    @property
    def imported(self) -> bool:
        return any(server.imported for server in self.servers)

    @property
    def has_gateway(self) -> bool:
        return any(server.status == "gateway" for server in self.servers)

    def count(self, status: ServerStatus) -> int:
        return sum(1 for server in self.servers if server.status == status)

    def masked(self, mask: SecretMask) -> ImportReport:
        """This report with every free-text field through `mask`; the entries in it are masked already."""

        def each(texts: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(mask.mask(text) for text in texts)

        def maybe(text: str | None) -> str | None:
            return None if text is None else mask.mask(text)

        entry = self.client_entry
        return replace(
            self,
            servers=tuple(replace(s, reason=maybe(s.reason), notes=each(s.notes)) for s in self.servers),
            notes=each(self.notes),
            client_entry=replace(
                entry,
                text=mask.mask(entry.text),
                start_problem=maybe(entry.start_problem),
                warnings=each(entry.warnings),
            ),
            refreshed=tuple(replace(r, failure=maybe(r.failure)) for r in self.refreshed),
            write_failure=maybe(self.write_failure),
            contacted=each(self.contacted),
            not_contacted=each(self.not_contacted),
        )


@dataclass(frozen=True)
class Detection:
    found: tuple[Detected, ...]

    @property
    def with_servers(self) -> tuple[Detected, ...]:
        return tuple(detected for detected in self.found if detected.servers)

    @property
    def chosen(self) -> ClientFormat | None:
        """The client to import from when none was named: the only one with servers, if there is one."""
        candidates = self.with_servers
        return candidates[0].client if len(candidates) == 1 else None


# Masking.

_AUTH_SCHEMES = frozenset({"", "bearer", "basic", "token"})
_ENV_KEYS = frozenset({"env", "environment", "envs"})
_HEADER_KEYS = frozenset({"headers", "http_headers", "httpHeaders"})
_ARG_KEYS = frozenset({"args", "command"})


def mask_json(value: object) -> object:
    """A copy of a config entry (any client's shape) with every secret hidden (`_shown`)."""
    return _walk(value, "", _shown)


def secrets_in(value: object) -> list[str]:
    """Every secret value `mask_json` would hide in `value` (references to variables are none)."""
    found: list[str] = []

    def collect(secret: str) -> str:
        if not _only_references(secret):
            found.append(secret)
        return secret

    _walk(value, "", collect)
    return found


def _walk(value: object, parent: str, redact: Redact) -> object:
    mapping = as_object(value)
    if mapping is not None:
        return _walk_mapping(mapping, parent, redact)
    items = as_list(value)
    if items is not None:
        strings = [item for item in items if isinstance(item, str)]
        if parent in _ARG_KEYS and len(strings) == len(items):
            return redact_args(strings, redact)
        return [_walk(item, parent, redact) for item in items]
    if isinstance(value, str):
        if "://" in value:
            return redact_url(value, redact)
        return redact(value) if looks_like_token(value) else value
    return value


def _walk_mapping(mapping: dict[str, object], parent: str, redact: Redact) -> dict[str, object]:
    if parent in _HEADER_KEYS:
        return {k: redact_header(k, v, redact) if isinstance(v, str) else v for k, v in mapping.items()}
    if parent in _ENV_KEYS:
        return {k: redact_env(k, v, redact) if isinstance(v, str) else v for k, v in mapping.items()}
    return {key: _walk(item, key, redact) for key, item in mapping.items()}


def _shown(secret: str) -> str:
    """What a preview shows for a secret: the secret's `${VAR}` references, else `***`."""
    return secret if _only_references(secret) else MASK


def _only_references(value: str) -> bool:
    """`${VAR}` references and at most an auth scheme word: the value names a secret, holds none."""
    return bool(VARIABLE_REFERENCE.search(value)) and VARIABLE_REFERENCE.sub("", value).strip().lower() in _AUTH_SCHEMES
