"""Server keys and aliases: names the model types in qualified tool names (`<server>.<tool>`).

A key that is empty, very long, or full of punctuation is awkward to type and to match, so it is warned
about but still loaded (renaming would break a user's habits and the cache). Keys may contain dots: name
resolution takes the longest matching key. An alias that also names another server, or that two servers
share, makes a name ambiguous, so it is reported too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mcp_gateway.config.diagnostics import DiagnosticReport, join_path

MAX_SERVER_KEY_LENGTH = 64
"""Characters; qualified tool names must stay short enough for clients that cap tool names."""
SERVER_KEY_PUNCTUATION = frozenset("_-. ")
"""Allowed besides letters and digits (of any script)."""


def check_server_key(name: str, json_path: str, report: DiagnosticReport) -> None:
    if not name:
        report.warning(json_path, "the server key is empty", 'give the server a short name such as "github"')
        return
    odd = sorted({ch for ch in name if not ch.isalnum() and ch not in SERVER_KEY_PUNCTUATION})
    if odd:
        shown = " ".join(repr(ch) for ch in odd)
        report.warning(
            json_path,
            f"server key '{name}' contains {shown}",
            "use letters, digits, '_', '-', '.' and spaces, which are easy to type in a qualified tool name",
        )
    if len(name) > MAX_SERVER_KEY_LENGTH:
        report.warning(
            json_path,
            f"server key is {len(name)} characters long (more than {MAX_SERVER_KEY_LENGTH})",
            "shorten it; qualified tool names include it",
        )


def check_alias_conflicts(aliases: Mapping[str, Sequence[str]], servers_path: str, report: DiagnosticReport) -> None:
    """Warn about aliases that equal another server's key or another server's alias (ignoring case)."""
    owners: dict[str, str] = {name.casefold(): name for name in aliases}
    for server, names in aliases.items():
        for index, alias in enumerate(names):
            folded = alias.casefold()
            owner = owners.setdefault(folded, server)
            if owner == server:
                continue
            what = "the key of server" if owner.casefold() == folded else "also an alias of server"
            report.warning(
                join_path(servers_path, server, "aliases", index),
                f"alias '{alias}' is {what} '{owner}'",
                "remove or rename one of them so that each name means one server",
            )
