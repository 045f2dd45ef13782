"""What the model reads back from the three read-only meta-tools, and from any error.

Results are one text item holding compact JSON: the model parses it reliably and nothing is repeated.
Search hits carry what the model needs to call the tool right away (qualified name, description,
input schema), and a confidence with the reasons behind it. Sizes are budgeted so a search at the
default limit stays around a thousand tokens: the best hits get more room than the tail, and anything
cut says so and names the call that shows it whole.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from mcp_gateway.catalog.records import ToolRecord
from mcp_gateway.errors import InvalidArgumentsError, ToolCallError
from mcp_gateway.server.schema_cut import cut_schema, without_boilerplate
from mcp_gateway.service.gateway import SearchReport, ToolPage
from mcp_gateway.service.names import ResolvedTool
from mcp_gateway.tokens import compact_json

LEADING_HITS = 3
"""The first hits get the larger budgets below; the rest are usually alternatives."""
LEADING_DESCRIPTION_CHARS = 400
TAIL_DESCRIPTION_CHARS = 160
LEADING_SCHEMA_CHARS = 1200
TAIL_SCHEMA_CHARS = 360
LIST_DESCRIPTION_CHARS = 120
DESCRIBE_SCHEMA_CHARS = 60_000
ERROR_SCHEMA_CHARS = 2000


def text_result(payload: Any, *, is_error: bool = False) -> types.CallToolResult:
    text = payload if isinstance(payload, str) else compact_json(payload)
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=is_error)


def error_result(error: ToolCallError, tool: ToolRecord | None = None) -> types.CallToolResult:
    """One actionable sentence; for bad arguments, the schema they must match as well."""
    text = error.message
    if isinstance(error, InvalidArgumentsError) and tool is not None:
        schema, cut = cut_schema(tool.input_schema, ERROR_SCHEMA_CHARS)
        text += f"\nInput schema{' (shortened)' if cut else ''}: {compact_json(schema)}"
    return text_result(text, is_error=True)


def search_payload(report: SearchReport, *, no_servers_hint: str | None) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    for position, found in enumerate(report.found):
        leading = position < LEADING_HITS
        tool = found.tool
        budget = LEADING_SCHEMA_CHARS if leading else TAIL_SCHEMA_CHARS
        schema, cut = cut_schema(without_boilerplate(tool.input_schema), budget)
        entry: dict[str, Any] = {
            "tool": f"{found.hit.server}.{tool.name}",
            "confidence": found.hit.confidence,
            "why": "; ".join(found.hit.reasons) or "weak partial match",
            "description": shorten(tool.description, LEADING_DESCRIPTION_CHARS if leading else TAIL_DESCRIPTION_CHARS),
            "inputSchema": schema,
        }
        if cut:
            entry["schemaShortened"] = True
        results.append(entry)
    payload: dict[str, Any] = {"results": results}
    notes = list(report.notes)
    if results and results[0]["confidence"] == "low":
        notes.append(
            "Matches are weak: check a candidate with describe_tool, browse a server with list_tools, or rephrase."
        )
    if any(entry.get("schemaShortened") for entry in results):
        notes.append("Some schemas are shortened; describe_tool shows them whole.")
    if report.loading:
        notes.append(f"Still loading the tools of: {', '.join(report.loading)}; search again shortly to include them.")
    for server, reason in report.failed.items():
        notes.append(f"Could not load the tools of '{server}': {reason}")
    if report.unlisted:
        names = ", ".join(report.unlisted)
        notes.append(f"Not loaded yet (startupMetadataCheck is off): {names}; pass server=<name> to load one.")
    if no_servers_hint:
        notes.append(no_servers_hint)
    if notes:
        payload["notes"] = notes
    return payload


def list_payload(page: ToolPage) -> dict[str, Any]:
    tools = [
        {"name": tool.name, "description": shorten(tool.description, LIST_DESCRIPTION_CHARS)} for tool in page.tools
    ]
    payload: dict[str, Any] = {"server": page.server, "total": page.total, "offset": page.offset, "tools": tools}
    following = page.offset + len(tools)
    if following < page.total:
        payload["nextOffset"] = following
    if page.instructions and page.offset == 0:
        payload["serverInstructions"] = shorten(page.instructions, TAIL_SCHEMA_CHARS * 2)
    return payload


def describe_payload(resolved: ResolvedTool) -> dict[str, Any]:
    wire = resolved.tool.to_wire()
    schema, cut = cut_schema(resolved.tool.input_schema, DESCRIBE_SCHEMA_CHARS)
    payload: dict[str, Any] = {"tool": resolved.qualified, "server": resolved.server}
    payload.update({key: value for key, value in wire.items() if key != "name"})
    payload["inputSchema"] = schema
    if cut:
        payload["schemaShortened"] = True
    return payload


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",.;:") + " …"
