"""Qualified tool names: `<server>.<tool>` to one (server, tool), or an error the model can act on.

Server keys may contain dots and tool names may too, so `a.b.c` is read by trying the longest server key
or alias that prefixes it and falling back to shorter ones, and a bare name is accepted when exactly one
server has it. Disabled servers, invalid server entries and filtered-out tools are named as such (never
"unknown"), so the model learns why it cannot call them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from rapidfuzz import fuzz, process

from mcp_gateway.bounds import MAX_ECHOED_NAME_CHARS, clip
from mcp_gateway.catalog.records import ToolRecord
from mcp_gateway.errors import AmbiguousToolError, ToolNotAllowedError, UnknownServerError, UnknownToolError

SUGGESTION_MIN_SIMILARITY = 70.0
MAX_SUGGESTIONS = 3
MAX_CANDIDATES_LISTED = 8


class ToolDirectory(Protocol):
    """What resolution needs to know about servers and their (cached) tools."""

    def server_keys(self) -> Sequence[str]: ...

    def aliases(self, server: str) -> Sequence[str]: ...

    def is_disabled(self, server: str) -> bool: ...

    def rejected(self) -> Mapping[str, str]: ...

    def find(self, server: str, tool: str) -> ToolRecord | None:
        """The tool as cached, whether or not filters allow it."""
        ...

    def allowed(self, server: str, tool: str) -> bool: ...

    def tool_names(self, server: str) -> Sequence[str]:
        """Allowed tool names of an enabled server."""
        ...


@dataclass(frozen=True)
class ResolvedTool:
    server: str
    tool: ToolRecord

    @property
    def qualified(self) -> str:
        return f"{self.server}.{self.tool.name}"


def resolve_server_name(directory: ToolDirectory, name: str) -> str:
    """Exact key, else an alias, else a case-insensitive match; else `UnknownServerError` with suggestions."""
    keys = list(directory.server_keys())
    if name in keys:
        return name
    aliased = [key for key in keys if name in directory.aliases(key)]
    if len(aliased) > 1:
        raise AmbiguousToolError(
            f"'{name}' is an alias of several servers ({', '.join(aliased)}); call again with one of their names.",
            aliased,
        )
    if aliased:
        return aliased[0]
    folded = [
        key
        for key in keys
        if key.casefold() == name.casefold() or name.casefold() in map(str.casefold, directory.aliases(key))
    ]
    if len(folded) == 1:
        return folded[0]
    rejected = directory.rejected()
    if name in rejected:
        raise ToolNotAllowedError(
            f"Server '{name}' has an invalid entry in config.json ({rejected[name]}); fix it and restart the gateway."
        )
    hint = _suggest(name, keys)
    raise UnknownServerError(f"No server named '{_quoted(name)}'{hint}; call search_tools to find the right tool.")


def resolve_tool(directory: ToolDirectory, tool: str, server: str | None = None) -> ResolvedTool:
    """Resolve `tool` (qualified or bare), optionally within `server`.

    Raises:
        UnknownServerError, UnknownToolError, AmbiguousToolError, ToolNotAllowedError.
    """
    if server:
        key = resolve_server_name(directory, server)
        for prefix in (key, *directory.aliases(key)):
            if tool.startswith(prefix + ".") and directory.find(key, tool) is None:
                tool = tool[len(prefix) + 1 :]
                break
        return _on_server(directory, key, tool)
    readings = [
        (length, key, rest) for length, key, rest in _prefix_readings(directory, tool) if directory.find(key, rest)
    ]
    if readings:
        longest = [(key, rest) for length, key, rest in readings if length == readings[0][0]]
        if len({key for key, _ in longest}) > 1:
            candidates = sorted({f"{key}.{rest}" for key, rest in longest})
            raise AmbiguousToolError(
                f"'{tool}' could be {' or '.join(candidates)} (a name several servers share); "
                "call again with one of those.",
                candidates,
            )
        return _on_server(directory, *longest[0])
    holders = [key for key in directory.server_keys() if directory.find(key, tool) is not None]
    usable = [key for key in holders if not directory.is_disabled(key) and directory.allowed(key, tool)]
    if len(usable) == 1:
        return _on_server(directory, usable[0], tool)
    if len(usable) > 1:
        candidates = [f"{key}.{tool}" for key in usable]
        listed = ", ".join(candidates[:MAX_CANDIDATES_LISTED])
        raise AmbiguousToolError(
            f"Several servers have a tool named '{tool}': {listed}; call again with the qualified name.", candidates
        )
    if holders:
        return _on_server(directory, holders[0], tool)  # raises why it is not allowed
    prefixes = _prefix_readings(directory, tool)
    if prefixes:
        return _on_server(directory, prefixes[0][1], prefixes[0][2])  # raises an unknown-tool error on that server
    everything = [f"{key}.{name}" for key in directory.server_keys() for name in directory.tool_names(key)]
    hint = _suggest(tool, everything)
    raise UnknownToolError(f"No tool named '{_quoted(tool)}'{hint}; call search_tools to find the right tool.")


def _prefix_readings(directory: ToolDirectory, tool: str) -> list[tuple[int, str, str]]:
    """(prefix length, server, rest) for every server key or alias that prefixes `tool` with a dot, longest first."""
    readings: list[tuple[int, str, str]] = []
    for key in directory.server_keys():
        for prefix in (key, *directory.aliases(key)):
            if tool.startswith(prefix + ".") and len(tool) > len(prefix) + 1:
                readings.append((len(prefix), key, tool[len(prefix) + 1 :]))
    readings.sort(key=lambda reading: -reading[0])
    return readings


def _on_server(directory: ToolDirectory, server: str, tool: str) -> ResolvedTool:
    if directory.is_disabled(server):
        raise ToolNotAllowedError(
            f"Server '{server}' is disabled in config.json; remove its \"disabled\": true to use its tools."
        )
    record = directory.find(server, tool)
    if record is None:
        hint = _suggest(tool, directory.tool_names(server))
        raise UnknownToolError(
            f"Server '{server}' has no tool named '{_quoted(tool)}'{hint}; "
            f"call list_tools with server '{server}' to see its tools."
        )
    if not directory.allowed(server, tool):
        raise ToolNotAllowedError(
            f"Tool '{server}.{tool}' is hidden by includeTools/excludeTools in config.json and cannot be called."
        )
    return ResolvedTool(server, record)


def _quoted(name: str) -> str:
    return clip(name, MAX_ECHOED_NAME_CHARS)


def _suggest(name: str, choices: Sequence[str]) -> str:
    if not choices or len(name) > MAX_ECHOED_NAME_CHARS:
        return ""  # nothing that long is a near miss, and comparing it with every name would cost seconds
    found = process.extract(
        name, choices, scorer=fuzz.WRatio, limit=MAX_SUGGESTIONS, score_cutoff=SUGGESTION_MIN_SIMILARITY
    )
    if not found:
        return ""
    return " (did you mean " + " or ".join(f"'{choice}'" for choice, _, _ in found) + "?)"
