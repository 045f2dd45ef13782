"""What the catalog knows: each downstream tool as its server listed it, grouped per server.

A `ToolRecord` keeps every field of the listed tool. The named fields are the ones the gateway reads;
`extra` holds the rest (icons, execution, fields from newer protocol revisions) so that
`describe_tool` can hand the model the whole definition and nothing is lost on a round trip through
`cache.json`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

JsonObject = dict[str, Any]
_T = TypeVar("_T")

_NAMED_FIELDS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta")


@dataclass(frozen=True)
class ToolRecord:
    name: str
    description: str = ""
    input_schema: JsonObject = field(default_factory=lambda: {"type": "object"})
    title: str | None = None
    output_schema: JsonObject | None = None
    annotations: JsonObject | None = None
    meta: JsonObject | None = None
    extra: JsonObject = field(default_factory=dict[str, Any])

    @classmethod
    def from_wire(cls, tool: Mapping[str, Any]) -> ToolRecord:
        """Build a record from a `tools/list` entry (camelCase wire keys).

        Raises:
            ValueError: the entry has no string `name`.
        """
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError("tool entry has no name")
        schema = tool.get("inputSchema")
        return cls(
            name=name,
            description=_str_or(tool.get("description"), ""),
            input_schema=cast(JsonObject, schema) if isinstance(schema, dict) else {"type": "object"},
            title=_str_or(tool.get("title"), None),
            output_schema=_dict_or_none(tool.get("outputSchema")),
            annotations=_dict_or_none(tool.get("annotations")),
            meta=_dict_or_none(tool.get("_meta")),
            extra={key: value for key, value in tool.items() if key not in _NAMED_FIELDS},
        )

    def to_wire(self) -> JsonObject:
        """The tool as its server listed it."""
        wire: JsonObject = {"name": self.name}
        if self.title is not None:
            wire["title"] = self.title
        wire["description"] = self.description
        wire["inputSchema"] = self.input_schema
        if self.output_schema is not None:
            wire["outputSchema"] = self.output_schema
        if self.annotations is not None:
            wire["annotations"] = self.annotations
        if self.meta is not None:
            wire["_meta"] = self.meta
        wire.update(self.extra)
        return wire

    @property
    def parameter_names(self) -> tuple[str, ...]:
        properties = self.input_schema.get("properties")
        if not isinstance(properties, dict):
            return ()
        return tuple(str(key) for key in cast(JsonObject, properties))


@dataclass(frozen=True)
class ServerCatalog:
    """One server's tools as last fetched, with what is needed to judge whether they are still valid."""

    server: str
    fingerprint: str
    fetched_at: float
    tools: tuple[ToolRecord, ...]
    protocol_version: str | None = None
    server_name: str | None = None
    server_version: str | None = None
    instructions: str | None = None

    def is_fresh(self, fingerprint: str, ttl_days: float, now: float | None = None) -> bool:
        """Valid when it was fetched for the same connection config and is younger than the TTL (0 = forever)."""
        if fingerprint != self.fingerprint:
            return False
        if ttl_days <= 0:
            return True
        age = (time.time() if now is None else now) - self.fetched_at
        return 0 <= age < ttl_days * 86_400

    def tool(self, name: str) -> ToolRecord | None:
        for record in self.tools:
            if record.name == name:
                return record
        return None


def _str_or(value: Any, default: _T) -> str | _T:
    return value if isinstance(value, str) else default


def _dict_or_none(value: Any) -> JsonObject | None:
    return cast(JsonObject, value) if isinstance(value, dict) else None


@dataclass(frozen=True)
class Listing:
    """One server's answer to `tools/list` (every page) and what its handshake said."""

    tools: list[JsonObject]
    protocol_version: str | None
    server_name: str | None
    server_version: str | None
    instructions: str | None
