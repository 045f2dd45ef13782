"""A general web search for an open information request that no tool covers well.

"Find the latest news about elections in Brazil" asks for information on a subject; a catalog rarely has a tool
for that subject, but it often has a general web search (Brave's, Tavily's, DuckDuckGo's). A lexical ranking
cannot see that: it ranks the tools sharing a word with the request first (a crypto news feed for "news", a
health check for "health"), and the web search, whose text names no subject at all, nowhere. So when a request
asks for information (one of the lexicon's search verbs or news words), is one step, and its best hit is weak
(it explains less than `WEB_SEARCH_BELOW_COVERAGE` of the request), the catalog's web search tools are offered
right after that best hit, best matching first. Not for a request of several steps: its weak whole is usually a
task whose steps have tools of their own (offered there too, task R@5 .573 → .536 on catalog.json).

A web search tool is told by what its name or the first sentence of its description says it is: a "web search",
"search the web / the internet" (not "search engine" alone: a code host's or a documentation site's search
engine is not the web's). Read once, when the tool is indexed. The best hit keeps its
place: it is what the request's words point to, and a weak hit is still sometimes the right one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from mcp_gateway.search.lexicon import CONCEPT_PREFIX
from mcp_gateway.search.query import ParsedQuery
from mcp_gateway.search.text import MAX_LEAD_CHARS, lead_sentence, split_identifier

if TYPE_CHECKING:  # at run time `ranking` imports this module (through `documents`), not the other way round
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

SEARCH_WORD = "search"
"""The word in every phrasing `_WEB_SEARCH` matches, as `str.casefold` writes what it matches ignoring case (long s,
U+017F, too): tested in `test_search_web_search.py` against every character the case-blind matching accepts."""
_WEB_SEARCH = re.compile(
    r"\b(?:web search|search(?:es|ing)? (?:the )?(?:web|internet)|internet search|online search)",
    re.IGNORECASE,
)


def is_web_search(name: str, description: str) -> bool:
    """Whether a tool says it is a general web search, in its name or its description's first sentence."""
    head = description.strip()[:MAX_LEAD_CHARS]
    if SEARCH_WORD not in head.casefold() and SEARCH_WORD not in name.casefold():
        return False  # every phrasing has the word in it: most tools are read no further than this one search
    first = lead_sentence(head)
    return _WEB_SEARCH.search(f"{' '.join(split_identifier(name))} {first}") is not None


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
