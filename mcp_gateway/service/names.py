"""Qualified tool names: `<server>.<tool>` to one (server, tool), or an error the model (or a person) can act on.

Server keys may contain dots and tool names may too, so `a.b.c` is read by trying the longest server key
or alias that prefixes it and falling back to shorter ones, and a bare name is accepted when exactly one
server has it. A `server` argument is read by the rule `search_tools` reads its hint with
(`search.servers.resolve_server`: key, alias, case, separators, a near miss), so the four meta-tools agree on
what a name means. Disabled servers, invalid server entries and filtered-out tools are named as such (never
"unknown"), so the model learns why it cannot call them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from rapidfuzz import fuzz, process

from mcp_gateway.bounds import MAX_ECHOED_NAME_CHARS, clip
from mcp_gateway.catalog import ToolRecord
from mcp_gateway.errors import AmbiguousToolError, ToolNotAllowedError, UnknownServerError, UnknownToolError
from mcp_gateway.search import (
    APPROXIMATE_READINGS,
    MAX_SUGGESTIONS,
    SUGGESTION_MIN_SIMILARITY,
    Ambiguous,
    Resolved,
    Unknown,
    resolve_server,
)
from mcp_gateway.wording import Message, Step

FIND = Step("search")
"""The next step when no tool or server fits: find the right tool by what it does."""
SERVERS = Step("servers")
"""The next step when a server name fits none: see which servers there are."""
AGAIN = Step("repeat", again=True)
"""The next step when a name fits several: the same request, with one of them."""
MAX_CANDIDATES_LISTED = 8
"""Qualified names listed in an ambiguous-tool error: enough to pick from, short enough to read."""


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
    """The configured server `name` means, read by the one rule every `server` argument is read with.

    That rule (`search.servers.resolve_server`) takes the exact key, an alias, then the name ignoring case, then
    ignoring separators, then a near miss with a unique best server; `search_tools` reads its hint the same way.
    A name that is the key of a config entry that was rejected is reported as that invalid entry, unless it is a
    valid server's key or alias spelled out (case aside): it is never read approximately as another server.

    Raises:
        AmbiguousToolError: several servers fit the name equally.
        ToolNotAllowedError: the name is a rejected config entry.
        UnknownServerError: no server fits; the closest are suggested.
    """
    resolution = resolve_server(name, ((key, directory.aliases(key)) for key in directory.server_keys()))
    approximate = isinstance(resolution, Unknown) or resolution.reading in APPROXIMATE_READINGS
    rejected = directory.rejected()
    if approximate and name in rejected:
        raise ToolNotAllowedError(
            f"Server '{name}' has an invalid entry in config.json ({rejected[name]}); fix it and restart the gateway."
        )
    match resolution:
        case Resolved(server=server):
            return server
        case Ambiguous(candidates=candidates, reading="alias"):
            raise AmbiguousToolError(
                Message.of(
                    f"'{_quoted(name)}' is an alias of several servers ({', '.join(candidates)}); ",
                    AGAIN,
                    " with one of their names.",
                ),
                list(candidates),
            )
        case Ambiguous(candidates=candidates):
            raise AmbiguousToolError(
                Message.of(
                    f"'{_quoted(name)}' could mean several servers ({', '.join(candidates)}); ",
                    AGAIN,
                    " with one of their names.",
                ),
                list(candidates),
            )
        case Unknown(suggestions=suggestions):
            raise UnknownServerError(
                Message.of(
                    f"No server named '{_quoted(name)}'{_did_you_mean(suggestions)}; ", SERVERS, " to see what exists."
                )
            )


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
                Message.of(
                    f"'{tool}' could be {' or '.join(candidates)} (a name several servers share); ",
                    AGAIN,
                    " with one of those.",
                ),
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
            Message.of(f"Several servers have a tool named '{tool}': {listed}; ", AGAIN, " with the qualified name."),
            candidates,
        )
    if holders:
        return _on_server(directory, holders[0], tool)  # raises why it is not allowed
    prefixes = _prefix_readings(directory, tool)
    if prefixes:
        return _on_server(directory, prefixes[0][1], prefixes[0][2])  # raises an unknown-tool error on that server
    everything = [f"{key}.{name}" for key in directory.server_keys() for name in directory.tool_names(key)]
    hint = _suggest(tool, everything)
    raise UnknownToolError(Message.of(f"No tool named '{_quoted(tool)}'{hint}; ", FIND, " to find the right tool."))


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
        raise disabled_server(server)
    record = directory.find(server, tool)
    if record is None:
        hint = _suggest(tool, directory.tool_names(server))
        raise UnknownToolError(
            Message.of(
                f"Server '{server}' has no tool named '{_quoted(tool)}'{hint}; ",
                Step("list", server=server),
                " to see its tools.",
            )
        )
    if not directory.allowed(server, tool):
        raise ToolNotAllowedError(
            f"Tool '{server}.{tool}' is hidden by includeTools/excludeTools in config.json and cannot be called."
        )
    return ResolvedTool(server, record)


def disabled_server(server: str) -> ToolNotAllowedError:
    """What a request for a disabled server's tools is told: the one command that turns it on."""
    return ToolNotAllowedError(
        Message.of(
            f"Server '{server}' is disabled in config.json; ", Step("enable", server=server), " to use its tools."
        )
    )


def _quoted(name: str) -> str:
    return clip(name, MAX_ECHOED_NAME_CHARS)


def _suggest(name: str, choices: Sequence[str]) -> str:
    """The tool names close to `name`, as a "did you mean" clause (server names get theirs from the resolver)."""
    if not choices or len(name) > MAX_ECHOED_NAME_CHARS:
        return ""  # nothing that long is a near miss, and comparing it with every name would cost seconds
    found = process.extract(
        name, choices, scorer=fuzz.WRatio, limit=MAX_SUGGESTIONS, score_cutoff=SUGGESTION_MIN_SIMILARITY
    )
    return _did_you_mean([choice for choice, _, _ in found])


def _did_you_mean(names: Sequence[str]) -> str:
    if not names:
        return ""
    return " (did you mean " + " or ".join(f"'{name}'" for name in names) + "?)"
