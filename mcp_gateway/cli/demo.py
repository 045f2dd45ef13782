"""`mcp-gateway demo`: the real gateway process, in front of two real demo servers, driven as a client would.

A newcomer's first command. It writes a throwaway workspace whose config holds the two bundled demo
servers, starts `mcp-gateway` on it as a subprocess over stdio, and talks to it with the MCP SDK client:
list the four tools, search, describe, execute (waking a server on first use), show an error a model can
act on, and compare the size of the tool definitions a client would send with and without the gateway.
No network and no npm.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult, ImageContent, TextContent

from mcp_gateway.service.status import running_servers
from mcp_gateway.service.views import shorten
from mcp_gateway.tokens import EXACT_COUNTS_INSTALL, compact_json, token_counter
from mcp_gateway.workspace_files import replace_file

LOADING_POLL_SECONDS = 0.2
LOADING_WAIT_SECONDS = 60.0
WIDTH = 100
"""Columns the demo's lines fit in: text is wrapped at spaces, never cut inside a word, and a tool's
description is shortened at a word boundary to one line (the whole of it is one describe_tool away)."""
INDENT = "  "
DEMO_SERVERS = {
    "notes": ("mcp_gateway.demo.notes_server", ["memo", "笔记"]),
    "toolbox": ("mcp_gateway.demo.toolbox_server", ["utilities", "工具"]),
}


def run(args: argparse.Namespace) -> int:
    workspace = Path(tempfile.mkdtemp(prefix="mcp-gateway-demo-"))
    try:
        write_demo_config(workspace)
        anyio.run(_drive, workspace)
    finally:
        if args.keep:
            print(f"\nThe demo workspace is kept in {workspace} (try: mcp-gateway --home {workspace} status)")
        else:
            shutil.rmtree(workspace, ignore_errors=True)
    return 0


def write_demo_config(workspace: Path) -> None:
    servers = {
        name: {
            "command": sys.executable,
            "args": ["-m", module],
            "env": {"DEMO_NOTES_DIR": str(workspace)},
            "aliases": aliases,
        }
        for name, (module, aliases) in DEMO_SERVERS.items()
    }
    # Standalone: the workspace is removed as the demo ends, and a shared daemon would outlive it by its grace.
    document = {"version": 1, "settings": {"shared": False}, "mcpServers": servers}
    data = json.dumps(document, indent=2, ensure_ascii=False).encode()
    # Private (a config can name secrets), and never written through a link.
    replace_file(workspace / "config.json", data, durable=False)


async def _drive(workspace: Path) -> None:
    gateway = StdioServerParameters(command=sys.executable, args=["-m", "mcp_gateway", "--home", str(workspace)])
    print("mcp-gateway demo: a real gateway process in front of two small MCP servers (notes, toolbox).\n")
    print("First start: the gateway answers at once and lists each server's tools in the background, once.")
    async with Client(gateway) as client:
        await _search(client, "anything")
    catalog = json.loads((workspace / "cache.json").read_text())["servers"]
    counts = ", ".join(f"{name} {len(entry['tools'])} tools" for name, entry in catalog.items())
    _say(f"cached in {workspace / 'cache.json'}: {counts}")
    print()
    print("Second start, as in every later client session: nothing runs until a tool is really called.\n")
    async with Client(gateway) as client:
        listed = await client.list_tools()
        names = ", ".join(tool.name for tool in listed.tools)
        _step("tools/list", f"the client sees {len(listed.tools)} tools: {names}")
        gateway_tools = compact_json(listed.model_dump(by_alias=True, mode="json", exclude_none=True)["tools"])

        query = "convert 30 degrees celsius to fahrenheit"
        _step(f"search_tools {_shown({'query': query})}", _hits(await _search(client, query)))
        chinese = "添加一条笔记"
        found = await _search(client, chinese)
        _step(f"search_tools {_shown({'query': chinese})}   (Chinese: 'add a note')", _hits(found))
        _say(
            "[high], [medium], [low]: how likely the tool is the one asked for, from how much of the request its "
            "own words account for and how clearly it leads the others; 'why' names the words that matched."
        )
        _say(f"downstream servers running after searching: {_running(workspace)}")
        print()

        described = await client.call_tool("describe_tool", {"tool": "toolbox.convert_temperature"})
        schema = json.loads(_text(described))["inputSchema"]
        _step('describe_tool {"tool": "toolbox.convert_temperature"}', f"input schema: {_shown(schema)}")

        started = time.perf_counter()
        arguments = {"value": 30, "from_unit": "C", "to_unit": "F"}
        result = await client.call_tool("execute_tool", {"tool": "toolbox.convert_temperature", "arguments": arguments})
        elapsed = time.perf_counter() - started
        _step(
            f"execute_tool toolbox.convert_temperature {_shown(arguments)}",
            f"result: {_text(result)}   (structuredContent {_shown(result.structured_content)})\n"
            f"the call woke the toolbox server ({elapsed:.2f}s in all); running now: {_running(workspace)}",
        )

        note = {"title": "Demo", "text": "Found by searching.", "tags": ["demo"]}
        result = await client.call_tool("execute_tool", {"tool": "notes.add_note", "arguments": note})
        _step(f"execute_tool notes.add_note {_shown(note)}", f"result: {_readable(_text(result))}")

        badge = {"color": "blue"}
        result = await client.call_tool("execute_tool", {"tool": "toolbox.make_badge", "arguments": badge})
        images = [item for item in result.content if isinstance(item, ImageContent)]
        kinds = ", ".join(f"{item.mime_type} ({len(item.data)} base64 chars)" for item in images)
        _step(f"execute_tool toolbox.make_badge {_shown(badge)}", f"an image content item, passed through: {kinds}")

        bad = {"value": "thirty", "from_unit": "C"}
        result = await client.call_tool("execute_tool", {"tool": "toolbox.convert_temperature", "arguments": bad})
        # The point of this step is the message itself: shown whole, never shortened.
        message, *schema_lines = _text(result).splitlines() or ["(the error came with no text)"]
        _say(f"> execute_tool toolbox.convert_temperature {_shown(bad)}   (a mistake)", indent="")
        then = ", then the tool's input schema" if schema_lines else ""
        _say(f"isError={result.is_error}, and no server was called. The model reads this{then}:")
        _say(message, indent=2 * INDENT, hanging="")
        print()

    direct_tools = await _direct_tool_lists(workspace)
    _token_summary(gateway_tools, direct_tools)


async def _search(client: Client, query: str) -> dict[str, Any]:
    """Search; on a first start the catalog is still being built in the background, so wait for it."""
    deadline = time.monotonic() + LOADING_WAIT_SECONDS
    while True:
        result = await client.call_tool("search_tools", {"query": query, "limit": 3})
        payload: dict[str, Any] = json.loads(_text(result))
        loading = any("Still loading" in note for note in payload.get("notes", []))
        if not loading or time.monotonic() > deadline:
            return payload
        await anyio.sleep(LOADING_POLL_SECONDS)


async def _direct_tool_lists(workspace: Path) -> str:
    """What a client would send without the gateway: every demo server's own tool list."""
    tools: list[Any] = []
    for module, _ in DEMO_SERVERS.values():
        direct = StdioServerParameters(
            command=sys.executable, args=["-m", module], env={"DEMO_NOTES_DIR": str(workspace)}
        )
        async with Client(direct, mode="legacy") as client:
            listed = await client.list_tools()
            tools.extend(listed.model_dump(by_alias=True, mode="json", exclude_none=True)["tools"])
    return compact_json(tools)


def _token_summary(gateway_tools: str, direct_tools: str) -> None:
    counter = token_counter()
    through, direct = counter.count(gateway_tools), counter.count(direct_tools)
    unit = "tokens (cl100k)" if counter.exact else "tokens (estimated)"
    print("Tool definitions a client sends to the model with every request (compact JSON):")
    print(f"  directly, both demo servers' tools:  {direct:>6,} {unit}")
    print(f"  through the gateway, 4 meta-tools:   {through:>6,} {unit}")
    if not counter.exact:
        _say(f"Estimates from the text's length; for exact counts: {EXACT_COUNTS_INSTALL}")
    _say(
        "The gateway's cost hardly grows with the servers behind it: with a real 7-server setup (352 tools, "
        "56,621 tokens directly) it is these four tools plus instructions with a line per server, 806 tokens "
        "in all (see docs/performance.md)."
    )


def _running(workspace: Path) -> str:
    return ", ".join(running_servers(workspace)) or "none"


def _step(request: str, outcome: str) -> None:
    _say(f"> {request}", indent="")
    for line in outcome.splitlines():
        _say(line)
    print()


def _say(text: str, indent: str = INDENT, hanging: str = INDENT) -> None:
    """`text` in lines of at most `WIDTH` columns, broken at spaces only (a word longer than a line stays whole);
    lines after the first are indented by `hanging` more."""
    lines = textwrap.wrap(
        text,
        WIDTH,
        initial_indent=indent,
        subsequent_indent=indent + hanging,
        break_long_words=False,
        break_on_hyphens=False,
    )
    print("\n".join(lines))


def _hits(payload: dict[str, Any]) -> str:
    """Each hit as `mcp-gateway search` prints it: the tool and its confidence, its description, and why."""
    lines: list[str] = []
    for hit in payload.get("results", []):
        lines.append(f"{hit['tool']}  [{hit['confidence']}]")
        lines.append(f"{INDENT}{shorten(hit['description'], WIDTH - 2 * len(INDENT))}")
        lines.append(f"{INDENT}why: {hit['why']}")
    return "\n".join(lines) or "no match: " + "; ".join(payload.get("notes", []))


def _shown(value: Any) -> str:
    """JSON as a person reads it on one line: a space after each comma and colon, so it wraps between items."""
    return json.dumps(value, ensure_ascii=False)


def _readable(text: str) -> str:
    try:
        return _shown(json.loads(text))
    except ValueError:
        return text


def _text(result: CallToolResult) -> str:
    return "\n".join(item.text for item in result.content if isinstance(item, TextContent))
