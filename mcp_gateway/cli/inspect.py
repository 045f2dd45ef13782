"""`search`, `list`, `describe` and `call`: the meta-tools from a terminal, through the same code path.

Each is a one-shot gateway over the workspace: servers with no valid cache entry are listed first (so a
fresh workspace finds its tools; a search limited to one server lists that one only), and any server started
is stopped again before the command exits. `--json` prints exactly what the model would receive; otherwise
what the gateway says next is told as the command to type (`people.PersonWords`), not the meta-tool to call.
`list` with no server starts nothing: it shows the servers at a glance (`overview`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, cast

from mcp_gateway.cli.context import load_missing, with_gateway
from mcp_gateway.cli.people import PersonWords
from mcp_gateway.errors import InvalidArgumentsError, ToolCallError, UsageError
from mcp_gateway.json_object import JsonObject
from mcp_gateway.questions import Nobody, QuestionRelay
from mcp_gateway.service import views
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.surface import MAX_SEARCH_ALTERNATIVES
from mcp_gateway.tokens import compact_json
from mcp_gateway.wording import counted

TOOL_FAILED = 1
DESCRIPTION_WIDTH = 100


def run(args: argparse.Namespace) -> int:
    return {"search": _search, "list": _list, "describe": _describe, "call": _call}[args.command](args)


def _search(args: argparse.Namespace) -> int:
    words = PersonWords.of(args)
    alternatives: list[str] = args.alternatives
    if len(alternatives) > MAX_SEARCH_ALTERNATIVES:
        raise UsageError(f"--or may be given at most {MAX_SEARCH_ALTERNATIVES} times, not {len(alternatives)}")

    async def work(gateway: Gateway) -> int:
        await load_missing(gateway, quiet=args.json, only=_configured(gateway, args.server))
        report = await gateway.search(
            args.query, alternatives=tuple(alternatives), server=args.server, limit=args.limit
        )
        if args.json:
            print(compact_json(views.search_payload(report)))
            return 0
        for position, hit in enumerate(report.hits, start=1):
            print(f"{position:>2}. {hit.tool.qualified}  [{hit.confidence}]")
            print(f"    {views.shorten(hit.tool.description, DESCRIPTION_WIDTH)}")
            print(f"    why: {'; '.join(hit.reasons) or 'weak partial match'}")
        for note in views.search_notes(report):
            print(f"note: {words.told(note)}")
        return 0

    return with_gateway(args, work)


async def _load_for_bare_name(gateway: Gateway, args: argparse.Namespace) -> None:
    """A tool named without its server may be any server's: list those never listed first, as `search` does (a
    serving gateway lists them as it starts). A qualified name or `--server` lists its one server on demand."""
    if args.server is None and "." not in args.tool:
        await load_missing(gateway, quiet=getattr(args, "json", False))


def _configured(gateway: Gateway, server: str | None) -> str | None:
    """The server a `--server` names, if it names one (a hint naming none searches every server)."""
    if server is None:
        return None
    try:
        return gateway.resolve_server(server)
    except ToolCallError:
        return None


def _list(args: argparse.Namespace) -> int:
    if args.server is None:
        from mcp_gateway.cli import status  # the servers at a glance

        return status.run(args)

    async def work(gateway: Gateway) -> int:
        page = await gateway.list_tools(args.server)
        if args.json:
            print(compact_json(views.list_payload(page)))
            return 0
        print(f"{page.server}: {counted(page.total, 'tool')}")
        for tool in page.tools:
            print(f"  {tool.name:<32} {views.shorten(tool.description, DESCRIPTION_WIDTH - 34)}")
        return 0

    return with_gateway(args, work)


def _describe(args: argparse.Namespace) -> int:
    async def work(gateway: Gateway) -> int:
        await _load_for_bare_name(gateway, args)
        description = await gateway.describe(args.tool, server=args.server)
        print(json.dumps(views.describe_payload(description), indent=2, ensure_ascii=False))
        return 0

    return with_gateway(args, work)


def _call(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.args)
    except ValueError as error:
        raise UsageError(f"--args is not valid JSON ({error}); pass an object like '{{\"a\": 2}}'") from error
    if not isinstance(arguments, dict):
        raise UsageError("--args must be a JSON object, like '{\"a\": 2}'")
    words = PersonWords.of(args)

    async def work(gateway: Gateway) -> int:
        await _load_for_bare_name(gateway, args)
        try:
            # Through the relay, so a tool that asks a question gets a clear refusal instead of a bare input_required.
            relay = QuestionRelay(gateway)
            result = await relay.execute(args.tool, cast(JsonObject, arguments), Nobody(), server=args.server)
        except InvalidArgumentsError as error:
            described = await gateway.describe(args.tool, server=args.server)
            print(views.error_text(error, described.tool, word=words.step), file=sys.stderr)
            return TOOL_FAILED
        if args.json:
            print(compact_json(result))
        else:
            print_result(result)
        return TOOL_FAILED if result.get("isError") else 0

    return with_gateway(args, work)


def print_result(result: JsonObject) -> None:
    """A human rendering of a CallToolResult: text as is, other content described, structured as JSON."""
    for item in cast(list[dict[str, Any]], result.get("content") or []):
        kind = item.get("type")
        if kind == "text":
            print(item.get("text", ""))
        elif kind in ("image", "audio"):
            print(f"[{kind} {item.get('mimeType', '?')}, {len(str(item.get('data', '')))} base64 characters]")
        elif kind == "resource_link":
            print(f"[resource link {item.get('uri')}]")
        elif kind == "resource":
            resource = cast(dict[str, Any], item.get("resource") or {})
            print(resource.get("text", f"[resource {resource.get('uri')}]"))
        else:
            print(compact_json(item))
    if result.get("structuredContent") is not None:
        print(f"structuredContent: {compact_json(result['structuredContent'])}")
    if result.get("isError"):
        print("(the tool reported an error)", file=sys.stderr)
