"""The seam every client importer fits: `ClientFormat`, and the per-entry pipeline they share.

A client format knows where its files are (`candidates`), how to read one into a `ClientReading`, the
shape of the gateway's own entry in that client (`render_entry` shows it exactly as written), and how to
rewrite the file so that the imported servers are replaced by that one entry (`rewrite`). Converting one
entry is the same everywhere (`convert_entry`): the gateway's own entry is recognised and never
imported, the client-specific reader builds a gateway entry, the client's variable syntax is translated,
and the gateway's model has the last word.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Protocol

from mcp_gateway.config.jsonfile import as_list
from mcp_gateway.importing.clients.entries import check_entry, entry_object, switched_off
from mcp_gateway.importing.clients.model import (
    GATEWAY_DISTRIBUTION,
    GATEWAY_NAME,
    NO_CREDENTIALS,
    ClientReading,
    ImportedServer,
    JsonObject,
    Scope,
    Skip,
    Where,
)
from mcp_gateway.importing.clients.oauth_block import secret_as_reference
from mcp_gateway.importing.clients.variables import Context, Syntax, translate_entry

PORTABLE_NAME = re.compile(r"[A-Za-z0-9_-]+")
_ABSOLUTE = re.compile(r"[/~$\\]|[A-Za-z]:[\\/]")
_GATEWAY_PROGRAMS = frozenset({"mcp-gateway", "mcp-meta-gateway"})
_UV_PROGRAMS = frozenset({"uvx", "uv"})


@dataclass(frozen=True)
class Launch:
    """How a client starts the gateway: the command, its arguments and environment."""

    command: str
    args: tuple[str, ...]
    env: Mapping[str, str]
    needed: tuple[str, ...] = ()
    """Variables the gateway's servers read from the client's environment; clients that filter the
    environment (Codex, Gemini) are told to pass them on."""


class ClientFormat(Protocol):
    """One client's config format; see the module docstring."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def gui(self) -> bool:
        """A GUI app that does not inherit the shell's PATH: the gateway command must be absolute."""
        ...

    @property
    def scopes(self) -> tuple[Scope, ...]:
        """The scopes it has; the first is the default."""
        ...

    @property
    def filters_environment(self) -> bool:
        """It starts servers with only the variables their entry names (`Launch.needed` goes into the entry)."""
        ...

    def candidates(self, where: Where, scope: Scope) -> list[Path]: ...
    def read(self, path: Path, scope: Scope, where: Where) -> ClientReading: ...
    def render_entry(self, launch: Launch) -> str: ...
    def rewrite(self, reading: ClientReading, launch: Launch) -> str: ...


@dataclass
class EntryContext:
    """What a client-specific entry reader may need, and where it leaves warnings."""

    client: str
    """The client's title, for messages."""
    where: Where
    scope: Scope
    document: Mapping[str, object] = field(default_factory=dict[str, object])
    """The whole client document, for settings kept outside the entry (Gemini's `mcp.excluded`)."""
    warnings: list[str] = field(default_factory=list[str])
    oauth: JsonObject | None = None
    """The reader's `read_oauth` of the entry's OAuth block: the imported remote entry gets it as its `oauth`."""
    turned_off: Mapping[str, str] = field(default_factory=dict[str, str])
    """Servers the client keeps turned off by a setting outside their entries (Claude Code's
    `disabledMcpServers`, Gemini's `mcp.excluded`), each with where it says so: imported disabled."""


EntryReader = Callable[[str, Mapping[str, object], EntryContext], JsonObject]


def convert_entry(name: str, raw: object, read: EntryReader, syntax: Syntax, context: EntryContext) -> ImportedServer:
    """One client entry through the whole pipeline; never raises for a bad entry."""
    context.warnings, context.oauth = [], None
    try:
        fields = entry_object(raw)
        entry = read(name, fields, context)
    except Skip as skip:
        if name == GATEWAY_NAME:
            return ImportedServer(name, skipped="this is the gateway itself", itself=True)
        return ImportedServer(name, skipped=skip.reason)
    if name == GATEWAY_NAME or is_gateway(entry):
        return ImportedServer(name, skipped="this is the gateway itself", itself=True, gateway=entry)
    if context.oauth is not None and entry.get("type") in ("http", "sse"):
        entry["oauth"] = context.oauth
    off = context.turned_off.get(name) or switched_off(fields)
    if off is not None:
        entry["disabled"] = True
    try:
        entry = translate_entry(entry, syntax, variable_context(context.where, context.scope))
        entry, secret_note = secret_as_reference(name, entry)
        check_entry(entry)
    except Skip as skip:
        return ImportedServer(name, skipped=skip.reason)
    warnings = list(context.warnings) + ([secret_note] if secret_note else [])
    if off is not None:
        warnings.append(
            f"it is turned off in {context.client} ({off}): imported disabled, so the gateway never starts it; "
            f"`mcp-gateway config enable {name}` turns it on"
        )
    cwd = entry.get("cwd")
    if isinstance(cwd, str) and not _ABSOLUTE.match(cwd):
        if context.scope == "user":
            warnings.append(f"its working directory '{cwd}' is relative; the gateway resolves it from where it runs")
        else:
            entry["cwd"] = str(context.where.project / cwd)  # a project file's paths are relative to the project
    warnings += _remote_notes(entry, context.client)
    if not PORTABLE_NAME.fullmatch(name):
        warnings.append(
            "its name has characters other than letters, digits, '-' and '_'; qualified tool names get awkward"
        )
    return ImportedServer(name, entry=entry, warnings=tuple(warnings))


def _remote_notes(entry: JsonObject, client: str) -> list[str]:
    """What to know of a remote entry's sign-in: the gateway can never reuse the client's own."""
    if entry.get("oauth") is not None:
        return [
            f"it signs in with OAuth in {client}; the gateway cannot reuse that sign-in, so it is imported as "
            "needing its own (`login`, below)"
        ]
    if entry.get("type") in ("http", "sse") and not entry.get("headers"):
        return [f"{NO_CREDENTIALS}; if it signs in (OAuth) in {client}, the gateway cannot reuse that"]
    return []


def variable_context(where: Where, scope: Scope) -> Context:
    """Editor variables: `${workspaceFolder}` is known only for a project's own file."""
    project = str(where.project) if scope != "user" else None
    return Context(home=str(where.home), project=project, windows=where.windows)


def is_gateway(entry: Mapping[str, object]) -> bool:
    """Whether a stdio entry starts this gateway (`mcp-gateway`, `uvx --from mcp-meta-gateway …`)."""
    command = entry.get("command")
    if not isinstance(command, str):
        return False
    args = list(_strings(entry.get("args")))
    program = _program(command)
    if program in _GATEWAY_PROGRAMS:
        return True
    if program.startswith("python") and args[:2] == ["-m", "mcp_gateway"]:
        return True
    if program in _UV_PROGRAMS:
        packages = [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == "--from"]
        packages += [arg.split("=", 1)[1] for arg in args if arg.startswith("--from=")]
        positional = [
            arg for i, arg in enumerate(args) if not arg.startswith("-") and (i == 0 or args[i - 1] != "--from")
        ]
        packages += positional[:1] if program == "uvx" else positional[1:2]
        return any(re.split(r"[=<>~!\[@ ]", package, maxsplit=1)[0] == GATEWAY_DISTRIBUTION for package in packages)
    return False


def _program(command: str) -> str:
    path = PureWindowsPath(command) if "\\" in command else PurePosixPath(command)
    name = path.name.lower()
    return name.removesuffix(".exe").removesuffix(".cmd")


def _strings(value: object) -> Sequence[str]:
    return [item for item in as_list(value) or [] if isinstance(item, str)]
