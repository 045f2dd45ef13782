"""Resolving a server hint (`server` argument of `search_tools`) to one server, or saying why not.

A hint may be the key, an alias, the key with other separators or case (`GitHub`, `git_hub`), or a near
miss (`githb`). When several servers fit equally well the search falls back to all servers and says so,
rather than guessing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from mcp_gateway.search.index import name_key

FUZZY_MIN_SIMILARITY = 80.0
FUZZY_TIE_MARGIN = 4.0
"""Two servers whose similarity to the hint is this close are both plausible: the hint is ambiguous."""


@dataclass(frozen=True)
class ServerResolution:
    server: str | None
    candidates: tuple[str, ...] = ()
    """When `server` is None: the servers the hint could mean (empty when it matches none)."""


def resolve_server(hint: str, servers: Iterable[tuple[str, tuple[str, ...]]]) -> ServerResolution:
    """`servers` yields (key, aliases). Exact key, then case-insensitive key or alias, then normalized, then fuzzy."""
    labels: list[tuple[str, str]] = []
    for key, aliases in servers:
        labels.append((key, key))
        labels.extend((alias, key) for alias in aliases)
    if any(label == hint and key == hint for label, key in labels):
        return ServerResolution(hint)
    for normalize in (str.casefold, name_key):
        wanted = normalize(hint.strip())
        matches = {key for label, key in labels if wanted and normalize(label) == wanted}
        if len(matches) == 1:
            return ServerResolution(matches.pop())
        if len(matches) > 1:
            return ServerResolution(None, tuple(sorted(matches)))
    choices = {index: name_key(label) for index, (label, _) in enumerate(labels)}
    ranked = process.extract(name_key(hint), choices, scorer=fuzz.WRatio, limit=8, score_cutoff=FUZZY_MIN_SIMILARITY)
    if not ranked:
        return ServerResolution(None)
    best = ranked[0][1]
    plausible = sorted({labels[index][1] for _, similarity, index in ranked if best - similarity <= FUZZY_TIE_MARGIN})
    if len(plausible) == 1:
        return ServerResolution(plausible[0])
    return ServerResolution(None, tuple(plausible))
