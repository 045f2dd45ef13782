"""The search engine: update servers, run a query, get hits with confidence and notes.

The gateway feeds it the catalog's entries (one server at a time when a server's tools change) and
`benchmarks/retrieval.py` feeds it bench catalogs through the very same calls, so what is measured is what the
model gets.
"""

from __future__ import annotations

import gc
from collections.abc import Generator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace

from mcp_gateway.bounds import MAX_ECHOED_NAME_CHARS, clip
from mcp_gateway.search.confidence import Candidate, Evidence, Judged, RankedTool, best_of, evidence_of, judged, settled
from mcp_gateway.search.documents import ServerEntry, ToolEntry
from mcp_gateway.search.fits import NameFits, ObjectFits
from mcp_gateway.search.index import SearchIndex
from mcp_gateway.search.originality import Republished
from mcp_gateway.search.query import ParsedQuery, Vocabulary, parse_query, steps_of
from mcp_gateway.search.ranking import NAME_MAX_SERVERS, Scored, rank, scores_among, server_intent
from mcp_gateway.search.servers import Ambiguous, Resolved, ServerResolution, Unknown, resolve_server
from mcp_gateway.search.text import forget_analyses
from mcp_gateway.search.web_search import (
    WEB_SEARCH_BELOW_COVERAGE,
    WEB_SEARCH_REASON,
    asks_for_information,
    distinct_services,
    services,
    with_web_search,
)
from mcp_gateway.wording import Message, Step, Words, counted

DEFAULT_LIMIT = 10
"""The default of the `toolSearchLimit` setting (DESIGN.md)."""
MAX_LIMIT = 50
"""Hits returned at most, whatever the caller asks (search_tools allows 20)."""
FUSION_DEPTH = 3
"""Each ranking fused for a multi-step request is this many times the limit deep. By hand in fe8f172 (step fusion
as a whole: task R@5 .540 → .552). Measured: 2 → .449/.784/.571, .569; 5 → .451/.784/.572, .561."""
WHOLE_REQUEST_WEIGHT = 3.0
"""The whole request's ranking counts more than any step's: most long requests are still one task. 2 in fe8f172; 3
since issue 14, with the name fit (single+step unchanged, task R@5 (MRR): 2 → .615 (.455); 2.5 → .619 (.458); 3 →
.623 (.459); 4 → .619 (.466): a plateau from 2.5 to 4, not a peak at 3)."""
STEP_WEIGHT = 1.0
MAX_LISTED_SERVERS = 40
"""Servers named at most in the note of a weak or empty search: a user's whole setup is rarely more, and 40 names
stay near 250 tokens of a search answer budgeted at about a thousand (`service.views`). A convention."""
MAX_ALTERNATIVES = 4
"""Other phrasings of one search ranked at most, each costing about a query. A convention."""
RRF_K = 10.0
"""Small, so each ranking's first places count most (the RRF paper's 60 flattens them). By hand in fe8f172.
Measured: 5 → .453/.785/.573, .569; 60 → .442/.785/.566, .561."""


@dataclass(frozen=True)
class SearchResult:
    hits: tuple[RankedTool, ...]
    notes: tuple[Words, ...]
    """Sentences about the search itself: an ambiguous hint, a query that matched nothing (with a `Step`)."""
    focused_server: str | None


class SearchEngine:
    def __init__(self) -> None:
        self._index = SearchIndex()
        self._vocabulary = Vocabulary([])
        self._vocabulary_version = -1
        self._republished = Republished()
        self._name_fits = NameFits()
        self._object_fits = ObjectFits()

    def replace_server(self, server: ServerEntry, tools: Sequence[ToolEntry]) -> None:
        self._index.replace_server(server, tools)

    @contextmanager
    def batch(self) -> Generator[None]:
        """Index many servers at once with the cyclic GC paused: indexing allocates hundreds of thousands of small
        objects and no cycles, and scanning them as they are made costs a third of a 5,000-tool build. The text
        caches are emptied afterwards (7 MB for 5,645 tools): they would serve only a re-index of the same text."""
        enabled = gc.isenabled()
        gc.disable()
        try:
            yield
        finally:
            forget_analyses()
            if enabled:
                gc.enable()

    def remove_server(self, name: str) -> None:
        self._index.remove_server(name)

    def server_names(self) -> list[str]:
        return self._index.server_names()

    def tool_count(self, server: str | None = None) -> int:
        return len(self._index) if server is None else len(self._index.tool_ids(server))

    def resolve_server(self, hint: str) -> ServerResolution:
        """Which indexed server a hint means, by the one rule every `server` argument is read with."""
        return resolve_server(hint, ((name, indexed.entry.aliases) for name, indexed in self._index.servers.items()))

    def search(
        self, query: str, *, alternatives: Sequence[str] = (), server: str | None = None, limit: int = DEFAULT_LIMIT
    ) -> SearchResult:
        """The best tools for `query`; `alternatives` are other phrasings of the same need (keywords, another
        language), ranked each on its own and fused with it. A hit's confidence is the best any phrasing gives."""
        limit = max(1, min(limit, MAX_LIMIT))
        notes: list[Words] = []
        focus: str | None = None
        if server:
            hint = clip(server, MAX_ECHOED_NAME_CHARS)
            match self.resolve_server(server):
                case Resolved(server=focus):
                    pass
                case Ambiguous(candidates=candidates):
                    notes.append(
                        f"The server hint '{hint}' could mean {', '.join(candidates)}; searched all servers instead."
                    )
                case Unknown():
                    notes.append(f"No server matches the hint '{hint}'; searched all servers instead.")
        scope = {focus} if focus is not None else None
        phrasings = [query, *(text for text in alternatives[:MAX_ALTERNATIVES] if text.strip())]
        weighted: list[tuple[float, list[Scored]]] = []
        evidence: list[Evidence] = []
        wholes: list[list[Scored]] = []
        several_steps = False
        copies = self._republished.of(self._index, NAME_MAX_SERVERS)

        def ranking_of(parsed: ParsedQuery) -> list[Scored]:
            depth = limit * FUSION_DEPTH
            return rank(
                self._index,
                parsed,
                servers=scope,
                limit=depth,
                republished=copies,
                name_fits=self._name_fits,
                object_fits=self._object_fits,
            )

        for text in phrasings:
            steps = steps_of(text)
            # A request of several steps reads its everyday words in each step: across all of them at once, its
            # chatty words' synonyms pull in tools at random.
            parsed = parse_query(text, self._usage, self._vocabulary_list, everyday=not steps)
            evidence.append(evidence_of(self._index, parsed))
            whole = ranking_of(parsed)
            wholes.append(whole)
            weighted.append((WHOLE_REQUEST_WEIGHT, whole))
            several_steps = several_steps or bool(steps)
            for step in steps:
                step_query = parse_query(step, self._usage, self._vocabulary_list)
                ranking = ranking_of(step_query)
                weighted.append((STEP_WEIGHT, ranking))
        ranked = weighted[0][1] if len(weighted) == 1 else fuse(weighted)
        verdicts = [self._verdicts(whole[:limit], each) for whole, each in zip(wholes, evidence, strict=True)]
        hits = self._hits(ranked[:limit], verdicts, evidence[0])
        if hits and explains_little(hits[0]) and focus is None and not several_steps:
            hits = self._with_web_search(ranked, evidence, verdicts, limit) or hits
        if not hits:
            notes.append(self._nothing_matched(query, focus))
        elif focus is None and hits[0].confidence == "low":
            notes.append(self._weak_match(hits))
        return SearchResult(hits, tuple(notes), focus)

    def _with_web_search(
        self,
        ranked: Sequence[Scored],
        evidence: Sequence[Evidence],
        verdicts: Sequence[Mapping[int, Judged]],
        limit: int,
    ) -> tuple[RankedTool, ...]:
        """The hits with web search tools after the best (`web_search.py`); () when the request asks for no
        information or the catalog has no web search."""
        asking = [each.query for each in evidence if asks_for_information(each.query)]
        if not asking or not self._index.web_search:
            return ()
        named = services(self._index, self._index.web_search)
        best = named.get(ranked[0].doc_id, frozenset[str]()) if ranked else frozenset[str]()
        matching = scores_among(self._index, asking[0], self._index.web_search)
        reordered, offered = with_web_search(ranked, distinct_services(matching, named, best))
        hits = self._hits(reordered[:limit], verdicts, evidence[0])
        return tuple(
            replace(hit, reasons=(*hit.reasons, WEB_SEARCH_REASON)) if scored.doc_id in offered else hit
            for hit, scored in zip(hits, reordered, strict=False)
        )

    def _verdicts(self, ranked: Sequence[Scored], evidence: Evidence) -> dict[int, Judged]:
        """One phrasing's verdicts on the tools of its own ranking (`confidence.judged`)."""
        index = self._index
        query = evidence.query
        ids = [scored.doc_id for scored in ranked]
        asked = {term.term for term in query.terms}.union(query.words)
        names = self._name_fits.shares(index, ids, asked)
        objects = self._object_fits.shares(index, query, ids)
        servers = server_intent(index, query)
        candidates = [
            Candidate(
                scored.doc_id,
                scored.score,
                names[scored.doc_id],
                objects[scored.doc_id],
                servers.get(index.tools[scored.doc_id].entry.server, 0.0),
            )
            for scored in ranked
        ]
        return judged(index, evidence, candidates)

    def _hits(
        self, ranked: Sequence[Scored], verdicts: Sequence[Mapping[int, Judged]], first: Evidence
    ) -> tuple[RankedTool, ...]:
        """The final order's hits, each with the best verdict a phrasing gave it; a tool only a step or the fusion
        brought up is judged among the final order on the first phrasing."""
        unjudged = [scored for scored in ranked if best_of(verdicts, scored.doc_id) is None]
        fallback = self._verdicts(unjudged, first) if unjudged else {}
        found: list[tuple[int, float, Judged]] = []
        for scored in ranked:
            verdict = best_of(verdicts, scored.doc_id) or fallback[scored.doc_id]
            found.append((scored.doc_id, scored.score, verdict))
        return settled(self._index, found)

    def _nothing_matched(self, query: str, focus: str | None) -> Words:
        if focus is not None:
            return Message.of(
                f"No tool of '{focus}' matched '{query}'; ", Step("list", server=focus), " to see them all."
            )
        names = self._index.server_names()
        if not names:
            return "No tools are known yet."
        return Message.of(
            f"No tool matched '{query}'. Servers: {self._servers_named(names)}. Try other words, or browse one "
            "server with ",
            Step("list", imperative=False),
            ".",
        )

    def _weak_match(self, hits: Sequence[RankedTool]) -> str:
        """The servers that exist, so a model can tell the user plainly that none of them does this."""
        names = list(dict.fromkeys([*(hit.server for hit in hits), *self._index.server_names()]))
        return (
            f"No tool matches this well; perhaps none can do it. Servers: {self._servers_named(names)}. "
            "If none of them fits, tell the user so rather than calling a weak match."
        )

    def _servers_named(self, names: Sequence[str]) -> str:
        """The first `MAX_LISTED_SERVERS` of `names` with their tool counts, and how many more there are."""
        listed = names[:MAX_LISTED_SERVERS]
        listing = ", ".join(f"{name} ({counted(self.tool_count(name), 'tool')})" for name in listed)
        return listing + (f" and {len(names) - len(listed)} more" if len(names) > len(listed) else "")

    def _usage(self, term: str) -> int:
        return self._index.doc_freq.get(term, 0)

    def _vocabulary_list(self) -> Vocabulary:
        if self._vocabulary_version != self._index.version:
            words = sorted({term for term in self._index.vocabulary() if term.isascii() and term.isalpha()})
            self._vocabulary = Vocabulary(words)
            self._vocabulary_version = self._index.version
        return self._vocabulary


def explains_little(hit: RankedTool) -> bool:
    """Whether a hit explains too little of an information request to keep web search from it."""
    return hit.signals is not None and hit.signals.coverage < WEB_SEARCH_BELOW_COVERAGE


def fuse(rankings: list[tuple[float, list[Scored]]]) -> list[Scored]:
    """Weighted reciprocal rank fusion: a tool near the top of any phrasing's or any step's ranking rises."""
    fused: dict[int, float] = {}
    for weight, ranking in rankings:
        for position, scored in enumerate(ranking, start=1):
            fused[scored.doc_id] = fused.get(scored.doc_id, 0.0) + weight / (RRF_K + position)
    ordered = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
    return [Scored(doc_id, score) for doc_id, score in ordered]
