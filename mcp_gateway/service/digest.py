"""The digest of the servers in the gateway's instructions: a line per server, so a model can route a task
to a server before it searches, within a byte budget whatever the number of servers.

A line is `- name (alias, alias): what it is for`. What it is for comes from the user's `description` in the
config, else from what the server says it is (the catalog's summary: its `serverInfo` description or title,
or the lead of its instructions), else from a few of its tool names; a server not listed yet gets its name
and aliases alone. Lines keep the config's order.

The whole instructions stay within `MAX_INSTRUCTIONS_BYTES` of UTF-8 (a JavaScript client that counts UTF-16
units counts no more), because clients cut longer ones. When every line does not fit, the first servers keep
their lines and the rest are named only, as many as fit, then counted: with the 300 servers of the bench
catalog about 80 names fit and the rest are counted, and search_tools still reaches every one of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mcp_gateway.wording import counted

MAX_INSTRUCTIONS_BYTES = 2048
"""The gateway's whole instructions, at most: Claude Code has cut a server's instructions at 2 KB (issue 11
saw it; 2.1.332 cuts at 4,096 characters), so nothing past this could fail to reach its model."""
MAX_NAME_CHARS = 48
"""A server key or alias as a line shows it (real ones are far shorter; the key is the name to call it by)."""
MAX_ALIASES_SHOWN = 2
SAMPLE_TOOLS_SHOWN = 3
"""Tool names that say what a server is for when nothing else does."""
MAX_ABOUT_CHARS = 100
"""What a server is for, in one line (about 20 tokens)."""
HEADING = "Servers:"
_ELLIPSIS = "…"


@dataclass(frozen=True)
class ServerLine:
    """What the digest says of one server."""

    name: str
    aliases: tuple[str, ...] = ()
    about: str | None = None
    """What the server is for: the config's description or what the server says it is."""
    tools: tuple[str, ...] = ()
    """A few tool names it offers (shown only when `about` is None)."""


def digest(
    preamble: str,
    servers: Sequence[ServerLine],
    *,
    mask: Callable[[str], str] = str,
    budget_bytes: int = MAX_INSTRUCTIONS_BYTES,
) -> str:
    """`preamble`, then a line per server for as many servers as fit in `budget_bytes`, then the rest named.

    `mask` is applied to each piece of outside text before it is measured (masking can change a length).
    """
    text = preamble
    if not servers:
        return _fitted(text, budget_bytes)
    text += f"\n{HEADING}"
    lines = ["\n" + mask(line_of(server)) for server in servers]
    names = [mask(_clipped(server.name, MAX_NAME_CHARS)) for server in servers]
    room = budget_bytes - _size(text)
    # The most servers that keep their lines while every other one is at least named; when even the names do
    # not all fit, as many names as fit, and a count of the rest.
    lines_cost = [0]
    for line in lines:
        lines_cost.append(lines_cost[-1] + _size(line))
    names_cost = [0] * (len(names) + 1)  # names_cost[k]: `Also: ` naming servers k and after
    for index in range(len(names) - 1, -1, -1):
        following = names_cost[index + 1]
        names_cost[index] = _size(names[index]) + (following + 2 if following else _size(_also([])))
    for kept in range(len(servers), -1, -1):
        if lines_cost[kept] + names_cost[kept] <= room:
            rest = names[kept:]
            return _fitted(text + "".join(lines[:kept]) + (_also(rest) if rest else ""), budget_bytes)
    return _fitted(text + _named_as_fit(names, room), budget_bytes)


def line_of(server: ServerLine) -> str:
    head = f"- {_clipped(server.name, MAX_NAME_CHARS)}"
    aliases = [_clipped(alias, MAX_NAME_CHARS) for alias in server.aliases[:MAX_ALIASES_SHOWN]]
    if aliases:
        head += f" ({', '.join(aliases)})"
    if server.about:
        return f"{head}: {_clipped(' '.join(server.about.split()), MAX_ABOUT_CHARS)}"
    if server.tools:
        return f"{head}: tools such as {', '.join(server.tools[:SAMPLE_TOOLS_SHOWN])}"
    return head


def _also(names: Sequence[str]) -> str:
    return f"\nAlso: {', '.join(names)}."


def _named_as_fit(names: Sequence[str], budget: int) -> str:
    """`Also: a, b, … and N more.` with as many names as fit in `budget` bytes."""

    def text(shown: int) -> str:
        more = len(names) - shown
        if not shown:
            return f"\n{counted(more, 'server')} (search_tools finds their tools)."
        tail = f" and {more} more (search_tools finds their tools)." if more else "."
        return f"\nAlso: {', '.join(names[:shown])}{tail}"

    shown, listed = 0, _size("\nAlso: ")
    while shown < len(names) and listed + _size(names[shown]) + 2 <= budget:
        listed += _size(names[shown]) + 2
        shown += 1
    while shown and _size(text(shown)) > budget:  # the count's words take a few bytes of the names' room
        shown -= 1
    return text(shown) if _size(text(shown)) <= budget else ""


def _clipped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + _ELLIPSIS


def _fitted(text: str, budget: int) -> str:
    encoded = text.encode("utf-8")
    if len(encoded) <= budget:
        return text
    return encoded[: budget - len(_ELLIPSIS.encode())].decode("utf-8", "ignore") + _ELLIPSIS


def _size(text: str) -> int:
    return len(text.encode("utf-8"))
