"""What the catalog knows: each downstream tool as its server listed it, grouped per server.

A `ToolRecord` keeps every field of the listed tool. The named fields are the ones the gateway reads;
`extra` holds the rest (icons, execution, fields from newer protocol revisions) so that
`describe_tool` can hand the model the whole definition and nothing is lost on a round trip through
`cache.json`.

A cached catalog is valid only for the connection config it was fetched with: `fingerprint` hashes the
connection identity the config loader extracts (gateway-side metadata such as aliases, lifecycle, timeouts and
filters already left out) as canonical JSON, so key order never changes the digest, and an omitted `type` hashes
like `"stdio"`, the default. Only the digest reaches `cache.json`, never the config.

Which tools the gateway exposes is `includeTools` / `excludeTools` (`tool_allowed`): a filtered-out tool is
invisible everywhere (search, listing, description) and refused by `execute_tool`; the catalog still keeps it,
so editing a filter never needs a refresh. Globs use `*` and `?` only (no character classes): tool names are
identifiers, and `[` in a name must stay literal.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeVar, cast

from mcp_gateway.catalog.surface import Surface
from mcp_gateway.json_object import JsonObject

_T = TypeVar("_T")

_NAMED_FIELDS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta")


class ToolRecord:
    """One tool as its server listed it; immutable.

    The JSON-valued fields (the schemas, annotations, `_meta` and `extra`) are held as compact JSON text and
    parsed each time they are read, so every reader gets its own copy. A 5,645-tool catalog held as nested
    dicts took 15 MB; as text it takes under 4 MB, and a search reads the schemas of a dozen tools at most.
    """

    __slots__ = ("_annotations", "_extra", "_input_schema", "_meta", "_output_schema", "description", "name", "title")

    name: str
    description: str
    title: str | None

    def __init__(
        self,
        name: str,
        *,
        description: str = "",
        input_schema: JsonObject | None = None,
        title: str | None = None,
        output_schema: JsonObject | None = None,
        annotations: JsonObject | None = None,
        meta: JsonObject | None = None,
        extra: JsonObject | None = None,
    ) -> None:
        setter = object.__setattr__
        setter(self, "name", name)
        setter(self, "description", description)
        setter(self, "title", title)
        setter(self, "_input_schema", _DEFAULT_SCHEMA if input_schema is None else _text(input_schema))
        setter(self, "_output_schema", _text_or_none(output_schema))
        setter(self, "_annotations", _text_or_none(annotations))
        setter(self, "_meta", _text_or_none(meta))
        setter(self, "_extra", _text_or_none(extra or None))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"ToolRecord is immutable; cannot set {name}")

    def _key(self) -> tuple[str | None, ...]:
        return tuple(getattr(self, slot) for slot in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolRecord) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"ToolRecord(name={self.name!r}, description={self.description[:40]!r}…)"

    @property
    def input_schema(self) -> JsonObject:
        return cast(JsonObject, json.loads(self._input_schema))

    @property
    def input_schema_json(self) -> str:
        """The input schema as compact JSON text: a stable key for what is derived from it."""
        return self._input_schema

    @property
    def output_schema(self) -> JsonObject | None:
        return _parsed(self._output_schema)

    @property
    def annotations(self) -> JsonObject | None:
        return _parsed(self._annotations)

    @property
    def meta(self) -> JsonObject | None:
        return _parsed(self._meta)

    @property
    def extra(self) -> JsonObject:
        return _parsed(self._extra) or {}

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
            input_schema=cast(JsonObject, schema) if isinstance(schema, dict) else None,
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
        if (output_schema := self.output_schema) is not None:
            wire["outputSchema"] = output_schema
        if (annotations := self.annotations) is not None:
            wire["annotations"] = annotations
        if (meta := self.meta) is not None:
            wire["_meta"] = meta
        wire.update(self.extra)
        return wire


_DEFAULT_SCHEMA = '{"type":"object"}'


def _text(value: JsonObject) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _text_or_none(value: JsonObject | None) -> str | None:
    return None if value is None else _text(value)


def _parsed(text: str | None) -> JsonObject | None:
    return None if text is None else cast(JsonObject, json.loads(text))


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
    """The server's own instructions from its handshake, masked and bounded when they were listed."""
    skipped: tuple[str, ...] = ()
    """Why entries of the server's listing were left out (an unusable entry never costs the others)."""
    server_title: str | None = None
    server_description: str | None = None
    """What the server's handshake (`serverInfo`) says it is, masked and bounded like its instructions."""
    surface: Surface | None = field(default_factory=Surface)
    """Its prompts, resources and templates; None when a gateway that did not ask for them listed it."""
    listed_for: str | None = None
    """The key of the process it was listed on (`Pool.process_key`: the server as one session resolved it); None
    when unknown (an older gateway listed it)."""
    varies: bool = False
    """A process of another resolution (another project, another environment) listed other tools or words: what
    this entry holds is then only for sessions whose key is `listed_for` (`service/process_views.py`)."""

    def is_fresh(self, fingerprint: str, ttl_days: float, now: float | None = None) -> bool:
        """Valid when it was fetched for the same connection config and is younger than the TTL (0 = forever);
        an entry listed without its prompts and resources (by an older gateway) is stale, so it is listed again."""
        if fingerprint != self.fingerprint or self.surface is None:
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
    skipped: tuple[str, ...] = ()
    """Why entries of the listing were left out (see `downstream/link.py`)."""
    server_title: str | None = None
    server_description: str | None = None
    surface: Surface = field(default_factory=Surface)
    """What the server offers besides tools, listed on the same connection."""
    process: str | None = None
    """The key of the process it was listed on (`Pool.process_key`)."""


def same_offer(entry: ServerCatalog | None, listing: Listing) -> bool:
    """Whether `listing` offers what the catalog's `entry` holds: the same tools (in any order), prompts, resources
    and templates, and the same words about the server. Tools that are no usable entry are left out on both
    sides, as the catalog does."""
    if entry is None or listing.surface != entry.surface:
        return False
    said = (listing.server_name, listing.server_version, listing.instructions, listing.skipped)
    if said != (entry.server_name, entry.server_version, entry.instructions, entry.skipped):
        return False
    if (listing.server_title, listing.server_description) != (entry.server_title, entry.server_description):
        return False
    listed: set[ToolRecord] = set()
    for raw in listing.tools:
        try:
            listed.add(ToolRecord.from_wire(raw))
        except ValueError:
            continue  # a nameless tool: the catalog keeps none
    return listed == set(entry.tools)


def tool_records(tools: Sequence[dict[str, Any]]) -> Iterable[ToolRecord]:
    """A `tools/list` answer as records, leaving out what cannot be called and repeated names."""
    seen: set[str] = set()
    for raw in tools:
        try:
            record = ToolRecord.from_wire(raw)
        except ValueError:
            continue  # a nameless tool cannot be called; skipping it keeps the rest usable
        if record.name not in seen:
            seen.add(record.name)
            yield record


DEFAULT_TRANSPORT = "stdio"


def fingerprint(identity: Mapping[str, Any]) -> str:
    """SHA-256 hex digest of a server's connection identity, a plain JSON object.

    Raises:
        TypeError: the identity holds a value that is not plain JSON.
    """
    normalized = dict(identity)
    if normalized.get("type") is None:
        normalized["type"] = DEFAULT_TRANSPORT
    canonical = json.dumps(normalized, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str]:
    parts = (".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in pattern)
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


def glob_match(name: str, pattern: str) -> bool:
    return _compile(pattern).match(name) is not None


def tool_allowed(name: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    """Allowed when it matches an include glob (or there are none) and no exclude glob."""
    if include and not any(glob_match(name, pattern) for pattern in include):
        return False
    return not any(glob_match(name, pattern) for pattern in exclude)
