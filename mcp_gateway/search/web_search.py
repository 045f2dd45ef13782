"""A general web search for an open information request that no tool covers well.

"Find the latest news about elections in Brazil": a catalog rarely has a tool for the subject, but often a general
web search, which a lexical ranking puts nowhere (its text names no subject) behind tools sharing a word (a crypto
news feed for "news"). So a one-step request for information (`INFORMATION_CONCEPTS`) whose best hit is weak is
offered the catalog's web search tools right after that hit, which keeps its place (a weak hit is still sometimes
the right one). Not a request of several steps: its steps usually have tools of their own (task R@5 .573 → .536).

The tools offered are of different services (`services`): three wrappers of DuckDuckGo leave a model that finds it
unusable (no key, rate limited) no alternative. A tool's service is the words of its name and its server's labels,
less the words most web search tools share (web, search); two tools of one server are one service.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from mcp_gateway.search.index import SearchIndex
from mcp_gateway.search.lexicon import CONCEPT_PREFIX
from mcp_gateway.search.query import ParsedQuery
from mcp_gateway.search.ranking import Scored

MAX_WEB_SEARCH_HITS = 3
"""Measured (seven web search tools), single+step R@5 / task R@5: 2 → .798 / .573; 3 → .882 / .573; 4 → .885 / .561.
The benchmark counts two of the seven, so read the step from 2 to 3 as how often one of those is offered, not as
three being right for a user."""
INFORMATION_CONCEPTS = frozenset(CONCEPT_PREFIX + name for name in ("search", "news"))
"""The search verbs and news words. Against offering web search to every weak one-step request: single+step R@5
.882 against .814, task R@5 .573 against .544 (a weak request to do something is not a question for the web)."""
WEB_SEARCH_REASON = "a general web search, for a request no tool covers well"
WEB_SEARCH_BELOW_COVERAGE = 0.5
"""A best hit explaining less than this share of the request (`confidence.judge`) is weak (a low level no longer
says so once it reads margins). Issue 27 (public single+step R@5; styled dev R@5): a low level → .884; .781. 0.4 →
.874; 0.5 → .892; .777. 0.6 → .904; .773."""


def asks_for_information(query: ParsedQuery) -> bool:
    return any(term.term in INFORMATION_CONCEPTS for term in query.terms if term.kind == "concept")


def with_web_search(ranked: Sequence[Scored], web_search: Sequence[Scored]) -> tuple[list[Scored], set[int]]:
    """`ranked` with the best of `web_search` (best first) right after its first hit, each scored no higher than
    that hit; also the ids moved up."""
    if not ranked:
        return list(ranked), set()
    first = ranked[0]
    offered = [
        replace(scored, score=min(scored.score, first.score)) for scored in web_search if scored.doc_id != first.doc_id
    ][:MAX_WEB_SEARCH_HITS]
    moved = {scored.doc_id for scored in offered}
    return [first, *offered, *(scored for scored in ranked[1:] if scored.doc_id not in moved)], moved


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
        found.update(index.servers[indexed.entry.server].words)
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
