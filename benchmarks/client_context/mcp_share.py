"""Which part of a client's model request is MCP, and what it costs in tokens. Pure: no I/O.

A request is read in its own wire format (told by its path): its tool definitions by name, and its text
outside them. The MCP part is every tool definition the no-servers request of the same client lacks, the
deferred MCP tool names a client lists in its prompt (Claude Code: `mcp__<server>__<tool>`, one a line),
and the part of each server's `instructions` the text holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clients.conversation import as_dict, as_list, strings_in

from mcp_gateway.tokens import compact_json

DEFERRED_MCP_NAME = re.compile(r"^mcp__\S+$", re.MULTILINE)
MIN_INSTRUCTIONS_PREFIX = 80
"""Characters of a server's instructions that must appear for them to count as sent (a shorter match could be
chance); a client that cuts long instructions (Claude Code at 2 KB) sends a prefix of them."""


@dataclass(frozen=True)
class McpShare:
    tool_names: tuple[str, ...]
    tool_tokens: int
    deferred_names: tuple[str, ...]
    deferred_tokens: int
    instruction_tokens: int
    request_tokens: int

    @property
    def total(self) -> int:
        return self.tool_tokens + self.deferred_tokens + self.instruction_tokens


def wire_of(path: str) -> str:
    if path.endswith("/messages"):
        return "anthropic"
    if path.endswith("/chat/completions"):
        return "chat"
    if path.endswith("/responses"):
        return "responses"
    if path.endswith((":streamGenerateContent", ":generateContent")):
        return "gemini"
    raise ValueError(f"no known model API has the path {path}")


def tool_entries(path: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """The request's tool definitions by name, each as sent (a Codex namespace is one entry)."""
    tools = [as_dict(tool) for tool in as_list(body.get("tools"))]
    wire = wire_of(path)
    if wire == "chat":
        return {str(as_dict(tool.get("function")).get("name")): tool for tool in tools}
    if wire == "gemini":
        return {
            str(declaration.get("name")): declaration
            for group in tools
            for declaration in map(as_dict, as_list(group.get("functionDeclarations")))
        }
    return {str(tool.get("name") or tool.get("type")): tool for tool in tools}


def text_outside_tools(body: Mapping[str, Any]) -> str:
    return "\n".join(strings_in({key: value for key, value in body.items() if key != "tools"}))


def flush_left(text: str) -> str:
    """Lines without their leading whitespace: a client may indent what it quotes (OpenCode does)."""
    return "\n".join(line.lstrip() for line in text.splitlines())


def included_part(instructions: str, text: str) -> str:
    """The longest prefix of `instructions` found in `text` (all of them, when sent whole), or "".

    Both are compared flush left, and the part is returned flush left.
    """
    instructions, text = flush_left(instructions), flush_left(text)
    if not instructions or instructions in text:
        return instructions
    low, high = 0, len(instructions)  # a prefix of length `low` is in the text; one of length `high` is not
    while high - low > 1:
        middle = (low + high) // 2
        if instructions[:middle] in text:
            low = middle
        else:
            high = middle
    return instructions[:low] if low >= MIN_INSTRUCTIONS_PREFIX else ""


def mcp_share(
    path: str,
    body: Mapping[str, Any],
    baseline: Collection[str],
    instructions: Sequence[str],
    count: Callable[[str], int],
) -> McpShare:
    """The MCP part of one request; `baseline` names the tools the client offers without any server."""
    entries = tool_entries(path, body)
    names = tuple(sorted(name for name in entries if name not in baseline))
    text = text_outside_tools(body)
    deferred = tuple(DEFERRED_MCP_NAME.findall(text))
    sent = [part for part in (included_part(each, text) for each in instructions) if part]
    return McpShare(
        tool_names=names,
        tool_tokens=sum(count(compact_json(entries[name])) for name in names),
        deferred_names=deferred,
        deferred_tokens=count("\n".join(deferred)) if deferred else 0,
        instruction_tokens=sum(count(part) for part in sent),
        request_tokens=count(compact_json(body)),
    )
