"""The `cache.json` format, version 1: parsing and serializing, pure (no I/O).

    {"version": 1, "servers": {"<server>": {"fingerprint": str, "fetchedAt": float (epoch seconds),
     "protocolVersion": str|null, "serverName": str|null, "serverVersion": str|null,
     "instructions": str|null, "tools": [<tool exactly as listed by tools/list>],
     "skipped": [str] (optional: why listed entries were left out),
     "serverTitle": str, "serverDescription": str (optional: what `serverInfo` says the server is),
     "surface": {"prompts": [..], "resources": [..], "resourceTemplates": [..], "completions": bool,
                 "subscribe": bool, "skipped": [str]} (optional: absent in entries an older gateway listed,
                 which load, serve their tools and are stale; see `catalog/surface.py`),
     "listedFor": str, "varies": true (optional: the key of the process it was listed on, and that another
                 resolution of the server listed otherwise; see `ServerCatalog`)}}}

Parsing is tolerant per entry and strict per value: a server entry that is structurally unsound (a wrong
type, a tool without a name) is dropped on its own and the others kept, so one bad entry costs one
refetch, not the whole catalog. A file that is not JSON, not an object, or of an older version is reported
as unusable (`ParsedCache.unusable`) for the store to set aside. A newer version (`ParsedCache.newer_version`)
is another gateway's file this one cannot read: the store leaves it alone, so that two gateway versions on
one workspace never destroy each other's catalog. Only what `tools/list` and the handshake returned is
stored, never config values.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mcp_gateway.catalog.records import ServerCatalog, ToolRecord
from mcp_gateway.catalog.surface import Surface

CACHE_VERSION = 1


class _CacheFile(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")

    version: Literal[1]
    servers: dict[str, Any]


class _ServerEntry(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", allow_inf_nan=False)

    fingerprint: str
    fetched_at: float = Field(alias="fetchedAt")
    protocol_version: str | None = Field(default=None, alias="protocolVersion")
    server_name: str | None = Field(default=None, alias="serverName")
    server_version: str | None = Field(default=None, alias="serverVersion")
    instructions: str | None = None
    tools: list[dict[str, Any]]
    skipped: list[str] = Field(default_factory=list[str])
    server_title: str | None = Field(default=None, alias="serverTitle")
    server_description: str | None = Field(default=None, alias="serverDescription")
    surface: dict[str, Any] | None = None
    listed_for: str | None = Field(default=None, alias="listedFor")
    varies: bool = False


@dataclass(frozen=True)
class ParsedCache:
    servers: dict[str, ServerCatalog]
    dropped: tuple[str, ...] = ()
    """Servers whose entries were structurally unsound and left out."""
    unusable: str | None = None
    """Why the whole file cannot be used, as a file-name tag: `corrupt` or `foreign-v<N>`; else None."""
    newer_version: int | None = None
    """The file's format version when a newer mcp-gateway wrote it (nothing else is read from it)."""


def parse_cache(data: bytes) -> ParsedCache:
    """Read a `cache.json` image; never raises on bad content."""
    try:
        raw: Any = json.loads(data)
    except (ValueError, RecursionError):  # ValueError covers bad JSON and bad UTF-8
        return ParsedCache({}, unusable="corrupt")
    if not isinstance(raw, dict):
        return ParsedCache({}, unusable="corrupt")
    version = cast(dict[str, Any], raw).get("version")
    if type(version) is int and version > CACHE_VERSION:
        return ParsedCache({}, newer_version=version)
    if type(version) is int and version != CACHE_VERSION:
        return ParsedCache({}, unusable=f"foreign-v{version}")
    try:
        envelope = _CacheFile.model_validate(raw)
    except ValidationError:
        return ParsedCache({}, unusable="corrupt")
    servers: dict[str, ServerCatalog] = {}
    dropped: list[str] = []
    for name, value in envelope.servers.items():
        entry = _parse_entry(name, value)
        if entry is None:
            dropped.append(name)
        else:
            servers[name] = entry
    return ParsedCache(servers, dropped=tuple(dropped))


def serialize_cache(servers: Iterable[ServerCatalog]) -> bytes:
    """The file image for these entries: compact JSON (catalogs run to megabytes), servers sorted by key."""
    entries = {catalog.server: _entry_json(catalog) for catalog in sorted(servers, key=lambda c: c.server)}
    document = {"version": CACHE_VERSION, "servers": entries}
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _parse_entry(name: str, value: Any) -> ServerCatalog | None:
    try:
        entry = _ServerEntry.model_validate(value)
        tools = tuple(ToolRecord.from_wire(tool) for tool in entry.tools)
    except (ValidationError, ValueError):
        return None
    return ServerCatalog(
        server=name,
        fingerprint=entry.fingerprint,
        fetched_at=entry.fetched_at,
        tools=tools,
        protocol_version=entry.protocol_version,
        server_name=entry.server_name,
        server_version=entry.server_version,
        instructions=entry.instructions,
        skipped=tuple(entry.skipped),
        server_title=entry.server_title,
        server_description=entry.server_description,
        surface=None if entry.surface is None else Surface.from_json(entry.surface),
        listed_for=entry.listed_for,
        varies=entry.varies,
    )


def _entry_json(catalog: ServerCatalog) -> dict[str, Any]:
    return {
        "fingerprint": catalog.fingerprint,
        "fetchedAt": catalog.fetched_at,
        "protocolVersion": catalog.protocol_version,
        "serverName": catalog.server_name,
        "serverVersion": catalog.server_version,
        "instructions": catalog.instructions,
        "tools": [tool.to_wire() for tool in catalog.tools],
        **({"skipped": list(catalog.skipped)} if catalog.skipped else {}),
        **({"serverTitle": catalog.server_title} if catalog.server_title is not None else {}),
        **({"serverDescription": catalog.server_description} if catalog.server_description is not None else {}),
        **({"surface": catalog.surface.to_json()} if catalog.surface is not None else {}),
        **({"listedFor": catalog.listed_for} if catalog.listed_for is not None else {}),
        **({"varies": True} if catalog.varies else {}),
    }
