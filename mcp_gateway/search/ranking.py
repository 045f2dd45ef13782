"""Scoring: field-weighted BM25 over tool fields, server intent, and exact or near-exact name matches.

score(tool) = [Σ_field weight(field) · BM25_field(query, tool)       (query terms carry their own weights)
              + SERVER_INTENT_BONUS · how clearly the query names the tool's server (a whole key or alias phrase)]
              · DEPRECATED_FACTOR                                      (only for a tool that says it is deprecated)
            + NAME_MATCH_BONUS · similarity(query, tool name)       (only for a query that looks like a name)
then, among the best candidates, times the name fit and the object fit (`fits.py`, each from its floor to 1), so a
tool named for another object, or sharing the request's verb but acting on something else, falls below close
matches.

IDF makes a hit in a rare word count and a hit in `get` barely; the field weights make a hit in a name outweigh
one in a long description; server terms live in their own small index (one document per server), so a server's
name is rare evidence among servers rather than a word repeated in every one of its tools.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from rapidfuzz import fuzz, process

from mcp_gateway.search.documents import CONCEPT_FIELDS, ServerField, ToolField
from mcp_gateway.search.fits import NAME_FIT_DEPTH, NameFits, ObjectFits
from mcp_gateway.search.index import FieldPostings, ScoreCache, SearchIndex, bm25_idf, name_key, typed_names
from mcp_gateway.search.lexicon import translations_of
from mcp_gateway.search.query import FULL_SIMILARITY, MAX_QUERY_CHARS, ParsedQuery, QueryTerm
from mcp_gateway.search.text import is_cjk

_Field = TypeVar("_Field", bound=str)


@dataclass(frozen=True)
class FieldScoring:
    """How BM25F counts one field: its weight against a description's, and its length normalization `b`."""

    weight: float
    b: float


K1 = 1.2
"""BM25's term-frequency saturation: the textbook default (and the plain-BM25 baseline's). Measured: 0.9 →
.451/.764/.569, .573; 1.5 → .446/.780/.572, .565; 2.0 → .439/.755/.566, .577."""
NAME_B = 0.3
"""Length normalization for names and titles, whose length says little. By hand in 9ddc802. Measured: 0.1 →
.447/.781/.569, .565; 0.5 → .449/.769/.571, .582."""
DEFAULT_B = 0.5
"""Length normalization for descriptions and parameters, which differ in length by verbosity, not topic: 0.75 →
0.5 in 40d7529 (single+step R@1 .378 → .424, R@5 .702 → .774, MRR .521 → .556, task R@5 .556 → .540). Measured
now: 0.3 → .458/.764/.578, .565; 0.75 → .427/.707/.551, .594."""
FIELD_SCORING: Mapping[ToolField, FieldScoring] = {
    "name": FieldScoring(3.0, NAME_B),
    "title": FieldScoring(2.0, NAME_B),
    "description": FieldScoring(1.0, DEFAULT_B),
    "param_names": FieldScoring(0.6, DEFAULT_B),
    "param_text": FieldScoring(0.25, DEFAULT_B),
    "translated": FieldScoring(0.6, DEFAULT_B),
    "concepts": FieldScoring(0.45, DEFAULT_B),
    "name_concepts": FieldScoring(1.1, NAME_B),
}
"""In `TOOL_FIELDS` order (the order the fields' scores are summed in). By hand in 9ddc802 (`translated` in b7d2fc1),
not tuned. Measured, each weight halved / raised by half: name .448/.774/.573, .556 / .447/.780/.570, .582;
description .414/.756/.553, .569 / .448/.766/.567, .577; param_names .441/.784/.564, .577 / .455/.785/.577, .556;
param_text .442/.784/.566, .561 / .448/.784/.569, .582; translated .449/.784/.571, .569 / .448/.784/.570, .577;
concepts .447/.776/.568, .590 / .449/.785/.572, .573; name_concepts .449/.782/.574, .577 / .446/.779/.568, .577;
title: no change (the bench catalogs have no titles)."""
SERVER_TEXT_WEIGHT = 0.5
"""A server's own description (from config.json) as topical evidence for its tools. By hand in 0881420, not
tuned: the bench catalogs give servers no description."""
SERVER_FIELD_SCORING: Mapping[ServerField, FieldScoring] = {"server_text": FieldScoring(SERVER_TEXT_WEIGHT, DEFAULT_B)}
"""Only the description is scored by BM25F; naming a server is judged by `server_intent`."""
SERVER_INTENT_BONUS = 10.0
"""What naming a server adds to each of its tools: about one strongly matching query word. By hand in 0881420
(a server named only by a whole name phrase: single+step R@5 .586 → .702, MRR .438 → .521). Measured: 5 →
.454/.786/.574, .569; 15 → .445/.776/.566, .577."""
NAME_SPECIFICITY_FULL = 2.0
"""A one-word server name counts fully once half the tools using the word are the server's own. By hand in
48c9a7f (with `PROVENANCE_FACTOR`: single+step R@1 .424 → .459, MRR .557 → .575). Measured: 1 → .451/.786/.572,
.577; 4 → unchanged."""
NAME_MAX_SERVERS = 6
"""A word the tools of at most this many servers use reads as a name, not as ordinary language. By hand in
bd3a690. Measured: 3 → .452/.784/.572, .573; 12 → .448/.784/.570, .569."""
PROVENANCE_FACTOR = 1.05
"""A tool named after its own server (`playwright.playwright_click`) is likely the original among republished
copies. By hand in 48c9a7f. Measured: 1.0 (off) → .422/.782/.561, .573; 1.1 → .449/.773/.570, .573."""
REPUBLISHED_FACTOR = 0.7
"""A republished copy (`originality.py`) needs about 1.4 times the original's evidence to rank above it. Issue 14,
with the first sign alone (single+step R@1/R@5/MRR, task R@5, high precision): 1.0 → .451/.880/.597, .569, .862;
0.85 → .459/.880/.602, .569, .885; 0.7 → .462/.880/.606, .573, .879; 0.5 → as 0.7. With bundles too: 0.6 → as 0.7
(.553/.882/.665, .573, .914 of 152); 0.8 → .553/.882/.665, .569, .914 of 128. XL single+step R@5 .664 → .672 with
the first sign, .687 with both."""
NAME_MATCH_BONUS = 12.0
"""What a query spelling a tool's name (`create_issue`, `github.create_issue`) adds, times the similarity. By hand
in 9ddc802, not tuned: no bench query spells a tool name; the unit tests of name queries pin it."""
DEPRECATED_FACTOR = 0.7
"""A deprecated tool (`documents.deprecation_of`) falls below a replacement that matches about as well (`read_file` led
`read_text_file` for "read a file" by 0.1 %) and stays first where it alone matches; applied before the name bonus,
so a query spelling its name still finds it. By hand, not tuned: catalog.json has no deprecated tool; on
catalog-xl.json four queries are reordered and no metric moves (.369/.648/.485, .506)."""
NAME_MATCH_MIN_SIMILARITY = 88.0
"""rapidfuzz ratio a one-word query needs to a tool's name key to be that name mistyped: about one wrong letter in
ten. By hand in 9ddc802, not tuned (no bench query is a name)."""
MAX_NAME_QUERY_CHARS = 64
"""A longer one-word query is not a mistyped tool name. By hand in 9ddc802, not tuned."""
MAX_SCORED_TERMS = 64
"""Terms scored per request, the weakest dropped beyond it: a bound on a long request's cost, set in 9d191f6
(query p99 at 5,645 tools 184 → 17-22 ms with that change's other bounds). Measured: 32 → task R@5 .548 (MRR .438
→ .414); 128 → task R@5 .577 (MRR .419); single+step unchanged."""
NAME_MATCH_CANDIDATES = 5
"""Tool names a mistyped name query is compared closely with: tools on several servers may be spelled alike. By
hand in 9ddc802, not tuned."""


@dataclass(frozen=True)
class Scored:
    doc_id: int
    score: float


def bm25f(
    postings: Mapping[_Field, FieldPostings],
    fields: Mapping[_Field, FieldScoring],
    doc_freq: Mapping[str, int],
    doc_count: int,
    terms: Iterable[QueryTerm],
    *,
    allowed: set[int] | None = None,
    cjk_count: int | None = None,
    cache: ScoreCache | None = None,
) -> dict[int, float]:
    """BM25F: each term's field-weighted counts are summed before saturating once per term, so a tool matching
    several query words beats one matching a word in several fields. With `cjk_count`, a CJK term's IDF is taken
    among the tools with CJK text: among all tools every CJK word looks rare."""
    scores: dict[int, float] = {}
    if doc_count == 0:
        return scores
    for term in terms:
        df = doc_freq.get(term.term, 0)
        if not df:
            continue
        key = (term.term, term.is_concept)
        saturated = cache.get(key) if cache is not None else None
        if saturated is None:
            saturated = _saturated(postings, fields, term, doc_count=doc_count, df=df, cjk_count=cjk_count)
            if cache is not None:
                cache.put(key, saturated)
        weight = term.weight
        current = scores.get
        if allowed is None:
            for doc_id, value in saturated.items():
                scores[doc_id] = current(doc_id, 0.0) + weight * value
        else:
            for doc_id, value in saturated.items():
                if doc_id in allowed:
                    scores[doc_id] = current(doc_id, 0.0) + weight * value
    return scores


def _saturated(
    postings: Mapping[_Field, FieldPostings],
    fields: Mapping[_Field, FieldScoring],
    term: QueryTerm,
    *,
    doc_count: int,
    df: int,
    cjk_count: int | None,
) -> dict[int, float]:
    """One term's BM25F score per tool, before the query's weight for the term."""
    pseudo: dict[int, float] = {}
    for field_name, scoring in fields.items():
        if (field_name in CONCEPT_FIELDS) != term.is_concept:
            continue
        field = postings[field_name]
        if term.term not in field:
            continue
        scale = field.scales(scoring.weight, scoring.b, doc_count)
        for doc_id, tf in field.entries(term.term):
            pseudo[doc_id] = pseudo.get(doc_id, 0.0) + tf * scale[doc_id]
    collection = cjk_count if cjk_count and is_cjk(term.term) else doc_count
    idf = bm25_idf(max(collection, df), df)
    return {doc_id: idf * tf * (K1 + 1.0) / (tf + K1) for doc_id, tf in pseudo.items()}


def _tool_scores(index: SearchIndex, query: ParsedQuery, allowed: set[int] | None) -> dict[int, float]:
    """The query's BM25F score per tool over the tool fields, from its strongest terms."""
    return bm25f(
        index.fields,
        FIELD_SCORING,
        index.doc_freq,
        len(index.tools),
        strongest_terms(index, query.terms),
        allowed=allowed,
        cjk_count=index.cjk_tools,
        cache=index.term_scores,
    )


def rank(
    index: SearchIndex,
    query: ParsedQuery,
    *,
    servers: set[str] | None,
    limit: int,
    republished: frozenset[int] = frozenset(),
    name_fits: NameFits | None = None,
    object_fits: ObjectFits | None = None,
) -> list[Scored]:
    """Best tools first, among `servers`' tools when given; `republished` are the copies (`originality.py`);
    `name_fits` and `object_fits` keep the engine's readings of tools between queries."""
    allowed = {doc_id for name in servers for doc_id in index.tool_ids(name)} if servers is not None else None
    scores = _tool_scores(index, query, allowed)
    for server, server_score in server_scores(index, query).items():
        if servers is not None and server not in servers:
            continue
        for doc_id in index.tool_ids(server):
            scores[doc_id] = scores.get(doc_id, 0.0) + server_score
    for doc_id in index.deprecated.intersection(scores):
        scores[doc_id] *= DEPRECATED_FACTOR
    for doc_id, similarity in name_matches(index, query.text, allowed).items():
        scores[doc_id] = scores.get(doc_id, 0.0) + NAME_MATCH_BONUS * similarity
    for doc_id in index.named_after_server.intersection(scores):
        scores[doc_id] *= PROVENANCE_FACTOR
    for doc_id in republished.intersection(scores):
        scores[doc_id] *= REPUBLISHED_FACTOR
    wide = best_first(scores, limit * NAME_FIT_DEPTH)
    asked = {term.term for term in query.terms}.union(query.words)
    candidates = [doc_id for doc_id, _ in wide]
    fits = (name_fits or NameFits()).of(index, candidates, asked)
    objects = (object_fits or ObjectFits()).of(index, query, candidates)
    fitted = ((doc_id, score * fits[doc_id] * objects[doc_id]) for doc_id, score in wide)
    best = sorted(fitted, key=lambda item: (-item[1], item[0]))
    return [Scored(doc_id, score) for doc_id, score in best[:limit] if score > 0]


def best_first(scores: dict[int, float], count: int) -> list[tuple[int, float]]:
    """The `count` best of `scores`, best first, ties by doc id. The cut-off is found by sorting bare floats (in C)
    and only the tools at or above it are sorted as pairs: half the time of a keyed heap selection."""
    if len(scores) > count > 0:
        cutoff = sorted(scores.values(), reverse=True)[count - 1]
        candidates = [(doc_id, score) for doc_id, score in scores.items() if score >= cutoff]
    else:
        candidates = list(scores.items())
    candidates.sort(key=lambda item: (-item[1], item[0]))
    return candidates[:count]


def scores_among(index: SearchIndex, query: ParsedQuery, tools: set[int]) -> list[Scored]:
    """`tools` by their BM25F score for the query alone (no server or name evidence), best first; those it does
    not score after, in index order."""
    scores = _tool_scores(index, query, tools)
    ordered = sorted(tools, key=lambda doc_id: (-scores.get(doc_id, 0.0), doc_id))
    return [Scored(doc_id, scores.get(doc_id, 0.0)) for doc_id in ordered]


def strongest_terms(index: SearchIndex, terms: tuple[QueryTerm, ...]) -> tuple[QueryTerm, ...]:
    """A long request's most informative terms: common words there cost the most to score and decide little."""
    if len(terms) <= MAX_SCORED_TERMS:
        return terms
    return tuple(sorted(terms, key=lambda term: term.weight * index.idf(term.term), reverse=True)[:MAX_SCORED_TERMS])


def server_scores(index: SearchIndex, query: ParsedQuery) -> dict[str, float]:
    """What each server adds to its tools: being named by the query, and its description matching it."""
    raw = bm25f(index.server_fields, SERVER_FIELD_SCORING, index.server_doc_freq, len(index.servers), query.terms)
    scores = {index.server_of_id(server_id): score for server_id, score in raw.items()}
    for server, strength in server_intent(index, query).items():
        scores[server] = scores.get(server, 0.0) + SERVER_INTENT_BONUS * strength
    return scores


def server_intent(index: SearchIndex, query: ParsedQuery) -> dict[str, float]:
    """Servers the query names, 0..1: a whole name phrase, in English or translated (我的世界 is Minecraft); rarer
    names count more. A one-word name spread over many servers' tools (`price`) is the request's topic, so it counts
    by the share of the tools using it that are the server's own (`_specificity`)."""
    words = set(query.words) | {term.term for term in query.terms if term.kind == "typo"}
    words.update(translations_of(query.cjk_runs))
    count = max(len(index.servers), 1)
    unique = bm25_idf(count, 1)
    named: dict[str, float] = {}
    candidates = [pair for word in words for pair in index.phrases_by_word.get(word, ())]
    for server, phrase in candidates:
        if not all(word in words for word in phrase):
            continue
        rarity = sum(bm25_idf(count, index.phrase_freq.get(word, 1)) for word in phrase) / (len(phrase) * unique)
        strength = min(1.0, rarity)
        if len(phrase) == 1:
            strength *= min(1.0, NAME_SPECIFICITY_FULL * _specificity(index, server, phrase[0]))
        named[server] = max(named.get(server, 0.0), strength)
    for phrase, servers in index.cjk_phrases.items():
        if phrase in query.text:
            for server in servers:
                named[server] = 1.0
    return named


def _specificity(index: SearchIndex, server: str, word: str) -> float:
    """1 for a word few servers' tools use (postgres, slack), else the share of the tools using it that are
    `server`'s (github's tools say GitHub; a server called price-mcp-server does not own 'price')."""
    if index.server_spread.get(word, 0) <= NAME_MAX_SERVERS:
        return 1.0
    spread = index.doc_freq.get(word, 0)
    if spread == 0:
        return 1.0
    own = sum(1 for doc_id in index.tool_ids(server) if any(word in counts for counts in index.tools[doc_id].counts))
    return own / spread


def name_matches(index: SearchIndex, text: str, allowed: set[int] | None) -> dict[int, float]:
    """Tools whose name (or `server.name`) the request spells, 0..1: exactly, as the whole request or an identifier
    in it (`index.typed_names`); or, for a one-word request, with a small typo (rapidfuzz over every name key)."""
    candidates: list[tuple[str, float]] = [
        (key, FULL_SIMILARITY) for key in typed_names(text[:MAX_QUERY_CHARS]) if key in index.name_keys
    ]
    words = text.split()
    if not candidates and len(words) == 1 and len(text) <= MAX_NAME_QUERY_CHARS:
        candidates = [
            (candidate, similarity)
            for candidate, similarity, _ in process.extract(
                name_key(text),
                index.name_keys.keys(),
                scorer=fuzz.ratio,
                limit=NAME_MATCH_CANDIDATES,
                score_cutoff=NAME_MATCH_MIN_SIMILARITY,
            )
        ]
    found: dict[int, float] = {}
    for candidate, similarity in candidates:
        for doc_id in index.name_keys[candidate]:
            if allowed is None or doc_id in allowed:
                found[doc_id] = max(found.get(doc_id, 0.0), similarity / FULL_SIMILARITY)
    return found
