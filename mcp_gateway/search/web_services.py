"""Web search tools told apart by the service behind them, so an offer of several is an offer of different services.

A catalog often carries one web search service several times: DuckDuckGo wrapped by three servers, one server's
text and image searches, Exa on its own server and inside an agent toolkit. Offered by text match alone, the
three places after a weak best hit (`web_search.py`) go to three wrappers of one service, whose text is alike
and so scores alike; a model that finds one unusable (no key, rate limited, down) has no real alternative left.

A web search tool's service is read from the words of its name and of its server's key and aliases
(`duckduckgo_web_search` on `mcp-duckduckgo`: duckduckgo), less the words most web search tools of the catalog
share (web, search), which say what they are rather than whose they are. Two tools of one server are one
service. A tool whose service words meet those of one already offered (or of the best hit, when that is a web
search itself) waits behind the tools of services not yet offered.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mcp_gateway.search.index import SearchIndex
from mcp_gateway.search.ranking import Scored

COMMON_SHARE = 0.5
"""A word in the names (with their servers' keys and aliases) of more than this share of the catalog's web search
tools says what they are, not whose: it names no service. Half: a word most of them have (one service can be
wrapped by half of them). Measured on
catalog-xl.json (13 web search tools, 5 of them DuckDuckGo's) with `benchmarks/retrieval.py`, single+step R@5
.687 → .758 with the rule; catalog.json (7 tools, each its own service) unchanged at .882."""
_SERVER_MARK = "\x00server:"
"""Prefix of the service word every tool gets from its server's key, so that two tools of one server always share
a service even when every word of its key is common."""


def services(index: SearchIndex, tools: Iterable[int]) -> dict[int, frozenset[str]]:
    """Each of `tools` (the catalog's web search tools) → the words that name its service."""
    words: dict[int, set[str]] = {}
    for doc_id in tools:
        indexed = index.tools[doc_id]
        found = set(indexed.field("name"))
        found.update(word for phrase in index.servers[indexed.entry.server].phrases for word in phrase)
        words[doc_id] = found
    counts: dict[str, int] = {}
    for found in words.values():
        for word in found:
            counts[word] = counts.get(word, 0) + 1
    common = {word for word, count in counts.items() if count > COMMON_SHARE * len(words)}
    return {
        doc_id: frozenset({*(found - common), _SERVER_MARK + index.tools[doc_id].entry.server})
        for doc_id, found in words.items()
    }


def distinct_services(
    ordered: Sequence[Scored], named: dict[int, frozenset[str]], taken: frozenset[str] = frozenset()
) -> list[Scored]:
    """`ordered` with each tool whose service is already offered (or in `taken`) moved behind those of services
    not yet offered, each group in its own order."""
    seen = set(taken)
    first: list[Scored] = []
    repeated: list[Scored] = []
    for scored in ordered:
        service = named.get(scored.doc_id, frozenset())
        if not service.isdisjoint(seen):
            repeated.append(scored)
            continue
        seen.update(service)
        first.append(scored)
    return [*first, *repeated]
