"""A general web search for an open information request that no tool covers well.

"Find the latest news about elections in Brazil" asks for information on a subject; a catalog rarely has a tool
for that subject, but it often has a general web search (Brave's, Tavily's, DuckDuckGo's). A lexical ranking
cannot see that: it ranks the tools sharing a word with the request first (a crypto news feed for "news", a
health check for "health"), and the web search, whose text names no subject at all, nowhere. So when a request
asks for information (one of the lexicon's search verbs or news words), is one step, and its best hit is weak
(it explains less than `WEB_SEARCH_BELOW_COVERAGE` of the request), the catalog's web search tools are offered
right after that best hit, best matching first. Not for a request of several steps: its weak whole is usually a
task whose steps have tools of their own (offered there too, task R@5 .573 → .536 on catalog.json).

The best hit keeps its place: it is what the request's words point to, and a weak hit is still sometimes the
right one. The tools offered are of different services (`services`): a catalog often wraps one service several
times (DuckDuckGo by three servers, Exa alone and inside a toolkit), and three wrappers of one service leave a
model that finds it unusable (no key, rate limited, down) no real alternative. A tool's service is the words of
its name and its server's key and aliases, less the words most web search tools share (web, search); two tools
of one server are one service.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from mcp_gateway.search.index import SearchIndex
from mcp_gateway.search.lexicon import CONCEPT_PREFIX
from mcp_gateway.search.query import ParsedQuery
from mcp_gateway.search.ranking import Scored

MAX_WEB_SEARCH_HITS = 3
"""Web search tools offered after the best hit at most. Measured on catalog.json (seven web search tools) with
`benchmarks/retrieval.py`, single+step R@5 / task R@5: 2 → .798 / .573; 3 → .882 / .573; 4 → .885 / .561 (a
fourth pushes a task's own tools out of the top five). The benchmark counts two of the seven (Google's and
Tavily's), so the number offered decides how often one of those two is among them: read the step from 2 to 3 as
that, not as three being right for a user."""
INFORMATION_CONCEPTS = frozenset(CONCEPT_PREFIX + name for name in ("search", "news"))
"""Lexicon concepts of a request for information: the search verbs (find, search, look up, query, discover …)
and news words (news, article, headline, press). Generic vocabulary, not benchmark words. Measured against
offering web search to every weak single-step request: single+step R@5 .882 against .814, task R@5 .573 against
.544 (a weak request to do something is not a question for the web)."""
WEB_SEARCH_REASON = "a general web search, for a request no tool covers well"
WEB_SEARCH_BELOW_COVERAGE = 0.5
"""An information request whose best hit explains less than this share of it (`confidence.judge`) is offered web
search. Until issue 27 the best hit's level had to be low; once the level also read margins (`calibration.py`), a
weak hit far ahead of weaker ones was no longer low. Measured in issue 27 on catalog.json (public single+step R@5;
styled dev sets R@5): low → .884; .781. 0.4 → .874; 0.5 → .892; .777. 0.6 → .904; .773."""


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
