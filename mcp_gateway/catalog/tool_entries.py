"""A listing's tools as the catalog keeps them, and as the search engine indexes them.

`tool_records` turns a server's `tools/list` answer into records, leaving out what cannot be called;
`search_entry` is what the engine reads of one tool (its name, words, title and parameters).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

from mcp_gateway.catalog.records import ToolRecord
from mcp_gateway.search import ToolEntry


def search_entry(server: str, tool: ToolRecord) -> ToolEntry:
    title = tool.title
    if title is None and tool.annotations is not None and isinstance(tool.annotations.get("title"), str):
        title = cast(str, tool.annotations["title"])
    return ToolEntry(server, tool.name, tool.description, title, tuple(_parameters(tool.input_schema)))


def _parameters(schema: dict[str, Any]) -> Iterable[tuple[str, str]]:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for name, value in cast(dict[str, Any], properties).items():
        description = cast(dict[str, Any], value).get("description") if isinstance(value, dict) else None
        yield str(name), description if isinstance(description, str) else ""


def tool_records(tools: Sequence[dict[str, Any]]) -> Iterable[ToolRecord]:
    seen: set[str] = set()
    for raw in tools:
        try:
            record = ToolRecord.from_wire(raw)
        except ValueError:
            continue  # a nameless tool cannot be called; skipping it keeps the rest usable
        if record.name not in seen:
            seen.add(record.name)
            yield record
