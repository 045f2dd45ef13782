"""The JSON shapes of the gateway's reports: what a model reads back from the three read-only meta-tools (the
MCP server sends these as one text item) and what `--json` prints at the command line, the same to the byte.

Compact JSON: the model parses it reliably and nothing is repeated.
Search hits carry what the model needs to call the tool right away (qualified name, description,
input schema), and a confidence with the reasons behind it. Sizes are budgeted so a search at the
default limit stays around a thousand tokens: the best hits get more room than the tail, and anything
cut says so and names the call that shows it whole.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_gateway.errors import InvalidArgumentsError, ToolCallError
from mcp_gateway.service.reports import SearchReport, ToolDefinition, ToolDescription, ToolPage
from mcp_gateway.service.schema_cut import cut_schema, without_boilerplate
from mcp_gateway.tokens import compact_json
from mcp_gateway.wording import Message, Step, said, step_for_model

LEADING_HITS = 3
"""The first hits get the larger budgets below; the rest are usually alternatives."""
LEADING_DESCRIPTION_CHARS = 400
TAIL_DESCRIPTION_CHARS = 160
LEADING_SCHEMA_CHARS = 1200
TAIL_SCHEMA_CHARS = 360
LIST_DESCRIPTION_CHARS = 120
DESCRIBE_SCHEMA_CHARS = 60_000
ERROR_SCHEMA_CHARS = 2000


def error_text(
    error: ToolCallError, tool: ToolDefinition | None = None, *, word: Callable[[Step], str] = step_for_model
) -> str:
    """One actionable sentence, its next steps worded by `word` (for the model unless told otherwise); for bad
    arguments, the schema they must match as well."""
    text = error.said.worded(word)
    if isinstance(error, InvalidArgumentsError) and tool is not None:
        schema, cut = cut_schema(tool.input_schema, ERROR_SCHEMA_CHARS)
        text += f"\nInput schema{' (shortened)' if cut else ''}: {compact_json(schema)}"
    return text


def search_payload(report: SearchReport) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    for position, hit in enumerate(report.hits):
        leading = position < LEADING_HITS
        tool = hit.tool
        budget = LEADING_SCHEMA_CHARS if leading else TAIL_SCHEMA_CHARS
        schema, cut = cut_schema(without_boilerplate(tool.input_schema), budget)
        entry: dict[str, Any] = {
            "tool": tool.qualified,
            "confidence": hit.confidence,
            "why": "; ".join(hit.reasons) or "weak partial match",
            "description": shorten(tool.description, LEADING_DESCRIPTION_CHARS if leading else TAIL_DESCRIPTION_CHARS),
            "inputSchema": schema,
        }
        if cut:
            entry["schemaShortened"] = True
        results.append(entry)
    payload: dict[str, Any] = {"results": results}
    notes = search_notes(report, schemas_shortened=any(entry.get("schemaShortened") for entry in results))
    if notes:
        payload["notes"] = [note.for_model() for note in notes]
    return payload


def search_notes(report: SearchReport, *, schemas_shortened: bool = False) -> list[Message]:
    """What a search says besides its hits: weak matches, servers still loading or failing, no servers at all.

    Each door words their next steps: `search_payload` for the model, the command line for a person.
    """
    notes = [said(note) for note in report.notes]
    if report.hits and report.hits[0].confidence == "low":
        notes.append(
            Message.of(
                "Matches are weak: search again with alternatives (action + object + service words), check a "
                "candidate with ",
                Step("describe", imperative=False),
                ", or browse a server with ",
                Step("list", imperative=False),
                ".",
            )
        )
    if schemas_shortened:
        notes.append(
            Message.of("Some schemas are shortened; ", Step("describe", imperative=False), " shows them whole.")
        )
    if report.loading:
        notes.append(
            said(f"Still loading the tools of: {', '.join(report.loading)}; search again shortly to include them.")
        )
    notes += [said(f"Could not load the tools of '{server}': {reason}") for server, reason in report.failed.items()]
    if report.unlisted:
        names = ", ".join(report.unlisted)
        notes.append(said(f"Not loaded yet (startupMetadataCheck is off): {names}; pass server=<name> to load one."))
    if report.no_servers_hint:
        notes.append(said(report.no_servers_hint))
    return notes


def list_payload(page: ToolPage) -> dict[str, Any]:
    tools = [
        {"name": tool.name, "description": shorten(tool.description, LIST_DESCRIPTION_CHARS)} for tool in page.tools
    ]
    payload: dict[str, Any] = {"server": page.server, "total": page.total, "offset": page.offset, "tools": tools}
    if page.next_offset is not None:
        payload["nextOffset"] = page.next_offset
    if page.instructions and page.offset == 0:
        payload["serverInstructions"] = page.instructions
    if page.notes:
        payload["notes"] = list(page.notes)
    return payload


def describe_payload(description: ToolDescription) -> dict[str, Any]:
    """The tool as its server listed it (the input schema bounded), and its server's own instructions."""
    tool = description.tool
    wire = tool.to_wire()
    schema, cut = cut_schema(wire["inputSchema"], DESCRIBE_SCHEMA_CHARS)
    payload: dict[str, Any] = {"tool": tool.qualified, "server": tool.server}
    payload.update({key: value for key, value in wire.items() if key != "name"})
    payload["inputSchema"] = schema
    if cut:
        payload["schemaShortened"] = True
    if description.server_instructions:
        payload["serverInstructions"] = description.server_instructions
    return payload


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",.;:") + " …"
