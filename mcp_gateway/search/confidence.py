"""How sure a hit is, from absolute evidence, with the reasons a model can check.

Confidence is never relative to the best hit of the same query (that would call the least bad of ten
poor matches "high"). It is the share of the query's information that the tool itself accounts for:
each query word weighs its IDF (rare words say more about intent than `get`), and counts fully when the
tool's name or title has it, a little less in its description or parameters, less again through a
synonym or a typo correction. A tool the query names outright is high.

"High" means the model can call the tool without looking further, so it is also unrivalled: a high hit with
another high hit scoring close to it (`RIVAL_MARGIN`) is only medium, since the query does not say which of the
two it means (most often the same tool republished on several servers). See `rivals`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from mcp_gateway.search.documents import IndexedTool
from mcp_gateway.search.fields import CONCEPT_FIELDS, TOOL_FIELDS, MatchField, ToolField
from mcp_gateway.search.index import SearchIndex, name_key
from mcp_gateway.search.lexicon import (
    CONCEPT_PREFIX,
    TOPICAL,
    cjk_units,
    concepts_of,
    expansions_of,
    translations_of,
)
from mcp_gateway.search.query import GENERIC_WEIGHT, WORD_WEIGHT, ParsedQuery
from mcp_gateway.search.ranking import bm25_idf
from mcp_gateway.search.text import is_cjk

Confidence = Literal["high", "medium", "low"]

HIGH_COVERAGE = 0.6
"""Share of the query's information a hit must account for to be `high` (with the other conditions of `judge`).
Chosen by hand in the first search (9ddc802), not tuned: no benchmark scores confidence; the unit tests pin
the level of hand-picked queries."""
MEDIUM_COVERAGE = 0.4
"""Share a hit must account for to be `medium`; below it the hit is `low`, and the search says plainly that
perhaps no tool can do this. 0.3 in the first search (9ddc802, by hand); 0.4 since issue 14, measured with
`benchmarks/retrieval.py` on catalog.json single+step (top-hit precision high/medium/low) and the development
unanswerable requests: 0.3 → medium .452 (509 queries), low .134 (134), unanswerable answered low 90/110;
0.4 → medium .508 (392), low .195 (251), 104/110; 0.5 → medium .540, low .261, 107/110. Rankings unchanged."""
RIVAL_MARGIN = 0.2
"""A high hit is only medium when another high hit's score is within this share of its own. Chosen in issue 14,
measured on catalog.json single+step top hits (high precision, queries high): no rule → .652 (207); 0.1 → .814
(129); 0.2 → .862 (116); 0.3 → .883 (111). 0.2: the smallest margin past the issue's target of .85."""
STRENGTH: Mapping[MatchField, float] = {
    "name": 1.0,
    "title": 1.0,
    "description": 0.85,
    "param_names": 0.7,
    "param_text": 0.6,
    "translated": 0.75,
    "concepts": 0.6,
    "name_concepts": 0.75,
    "server": 0.8,
}
"""How much a query word found in each field accounts for: fully in the name or title, less in prose, less again
through the lexicon. Chosen by hand in the first search (9ddc802; `translated` in b7d2fc1), not tuned."""
TYPO_STRENGTH = 0.7
"""A word matched only through its typo correction counts this share of the match. Chosen by hand in the first
search (9ddc802), not tuned."""
TRANSLATION_STRENGTH = 0.9
"""A word matched only through its translation or expansion counts this share. Chosen by hand in b7d2fc1, not
tuned."""
TOPICAL_STRENGTH = 0.6
"""A word matched only through a topical concept group (`lexicon.TOPICAL`) counts this share, and never makes a
hit `high` on its own. Chosen by hand in b7d2fc1, not tuned."""
CJK_CHARACTER_SHARE = 0.5
"""A single CJK character weighs half a word in the query's information: the words it is part of carry most of
it. Chosen by hand in the first search (9ddc802), not tuned."""
NAME_FIELDS: frozenset[MatchField] = frozenset({"name", "title", "name_concepts"})
"""A match in these says what the tool is, which a `high` hit needs."""
OWN_FIELDS: frozenset[MatchField] = frozenset({"name", "title", "description", "param_names", "param_text"})
"""The tool's own text: a `high` hit must match at least one query word here, not only through its server's
name or the lexicon."""
MAX_JUDGED_WORDS = 32
"""A long request is judged on its most informative words, like it is ranked (`ranking.MAX_SCORED_TERMS`): a
bound on a long request's cost, set in 9d191f6."""


@dataclass(frozen=True)
class Judgement:
    confidence: Confidence
    coverage: float
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Evidence:
    """What a query offers as evidence, computed once per search and used to judge each hit."""

    query: ParsedQuery
    words: tuple[str, ...]
    idf: dict[str, float]
    typos: dict[str, str]
    generic: frozenset[str]
    readings: dict[str, _Readings]
    """Each judged word and typo correction → what it is matched by, read once rather than once per hit."""
    said: frozenset[str]
    """The query's own words, for telling the servers it names."""
    name: str
    """The whole query as a name key (`index.name_key`), for telling a query that names a tool outright."""


def evidence_of(index: SearchIndex, query: ParsedQuery) -> Evidence:
    words, idf = _judged_words(index, query)
    typos = {term.typed: term.term for term in query.terms if term.kind == "typo" and term.typed}
    return Evidence(
        query=query,
        words=words,
        idf=idf,
        typos=typos,
        generic=frozenset(term.term for term in query.terms if term.kind == "word" and term.weight == GENERIC_WEIGHT),
        readings={word: _readings_of(word) for word in (*words, *typos.values())},
        said=frozenset(query.words),
        name=name_key(query.text),
    )


def judge(evidence: Evidence, tool: IndexedTool, *, server_terms: set[str], named_exactly: bool) -> Judgement:
    """Confidence and reasons for one hit; `server_terms` are query terms matching the tool's server.

    high: the query names the tool, or the tool accounts for most of the query's information
    (`HIGH_COVERAGE`), every meaningful word of the query is matched, its name or title (or a synonym of
    them) matches, at least one query word appears in the tool's own text (not only in its server's name or
    through a synonym), and at least one matched word is not a generic verb. medium: it accounts for a fair
    share (`MEDIUM_COVERAGE`) with at least one non-generic word. low: anything less.
    """
    query, typos = evidence.query, evidence.typos
    mass = matched = support = 0.0
    own_word = False
    name_hit = named_exactly
    all_content_matched = True
    reasons: dict[str, list[str]] = {}
    for word in evidence.words:
        generic = word in evidence.generic
        share = CJK_CHARACTER_SHARE if is_cjk(word) and len(word) == 1 else WORD_WEIGHT
        weight = share * (GENERIC_WEIGHT if generic else WORD_WEIGHT)
        idf = evidence.idf[word]
        mass += weight * idf
        match = _best_match(tool, word, evidence.readings[word], server_terms)
        if match.strength == 0.0 and word in typos:
            corrected = _best_match(tool, typos[word], evidence.readings[typos[word]], server_terms)
            match = _Match(corrected.strength * TYPO_STRENGTH, corrected.field, f"typo {typos[word]}")
        if not match.strength or match.label.startswith("topic"):
            # Being on the topic of a word is not doing what it asks: a request is covered word by word.
            all_content_matched = all_content_matched and (generic or _is_filler(word))
        if not match.strength:
            continue
        matched += weight * idf * match.strength
        own_word = own_word or (match.field in OWN_FIELDS and not match.label.startswith(("synonym", "topic")))
        if not generic:
            support += idf * match.strength
        name_hit = name_hit or match.field in NAME_FIELDS
        reasons.setdefault(match.label, []).append(query.surface.get(word, word))
    coverage = matched / mass if mass else 0.0
    strong = coverage >= HIGH_COVERAGE and all_content_matched and name_hit and own_word and support > 0
    if named_exactly or strong:
        level: Confidence = "high"
    elif coverage >= MEDIUM_COVERAGE and support > 0:
        level = "medium"
    else:
        level = "low"
    explained = [f"{label}: {', '.join(words)}" for label, words in reasons.items()]
    if named_exactly:
        explained.insert(0, "the query names this tool")
    return Judgement(level, round(coverage, 2), tuple(explained))


def rivals(scores: Sequence[float], levels: Sequence[Confidence]) -> list[int | None]:
    """For each hit (in rank order), the position of another high hit scoring within `RIVAL_MARGIN` of it when the
    hit itself is high; None otherwise. Scores are positive and larger is better."""
    found: list[int | None] = []
    for position, (score, level) in enumerate(zip(scores, levels, strict=True)):
        rival = None
        if level == "high":
            rival = next(
                (
                    other
                    for other, (other_score, other_level) in enumerate(zip(scores, levels, strict=True))
                    if other != position
                    and other_level == "high"
                    and abs(other_score - score) <= RIVAL_MARGIN * max(score, other_score)
                ),
                None,
            )
        found.append(rival)
    return found


def _judged_words(index: SearchIndex, query: ParsedQuery) -> tuple[tuple[str, ...], dict[str, float]]:
    """The query's words that carry evidence (not numbers), and each one's IDF; for a long request only the most
    informative, by that IDF.

    CJK text is judged by its units of meaning (lexicon words, then bigrams of the rest), not by every
    character and bigram the index uses to match it.
    """
    words = [word for word in dict.fromkeys(query.words) if not word.isdigit() and not is_cjk(word)]
    words.extend(unit for run in query.cjk_runs for unit in cjk_units(run))
    rarity = {word: term_idf(index, word) for word in words}
    if len(words) > MAX_JUDGED_WORDS:
        words.sort(key=rarity.__getitem__, reverse=True)
        del words[MAX_JUDGED_WORDS:]
    return tuple(words), {word: rarity[word] for word in words}


def _index_terms(word: str) -> list[str]:
    """The index terms a word is matched by: itself, or for a CJK word longer than two characters its bigrams."""
    if len(word) > 2 and is_cjk(word):
        return [word[i : i + 2] for i in range(len(word) - 1)]
    return [word]


def term_idf(index: SearchIndex, word: str) -> float:
    """A word's IDF, CJK words judged among the tools with CJK text (as the ranking does)."""
    df = min((index.doc_freq.get(piece, 0) for piece in _index_terms(word)), default=0)
    collection = index.cjk_tools if index.cjk_tools and is_cjk(word) else len(index.tools)
    return bm25_idf(max(collection, df, 1), df)


def _is_filler(word: str) -> bool:
    """A single CJK character the tool need not match for the query to be covered (its bigrams carry it)."""
    return is_cjk(word) and len(word) == 1


@dataclass(frozen=True)
class _Match:
    strength: float
    field: MatchField | None
    label: str


_NO_MATCH = _Match(0.0, None, "")
_FIELD_LABELS: Mapping[MatchField, str] = {"param_names": "parameter", "param_text": "parameter text"}
_CONCEPT_MATCH_FIELDS: tuple[ToolField, ...] = ("name_concepts", "concepts")
"""The concept fields a word's synonyms are looked for in, in a fixed order (a set's changes from run to run)."""


def _word_fields() -> tuple[tuple[int, _Match], ...]:
    placed: list[tuple[int, ToolField]] = [
        (position, field) for position, field in enumerate(TOOL_FIELDS) if field not in CONCEPT_FIELDS
    ]
    placed.sort(key=lambda item: -STRENGTH[item[1]])
    return tuple(
        (position, _Match(STRENGTH[field], field, _FIELD_LABELS.get(field, field))) for position, field in placed
    )


_WORD_FIELDS = _word_fields()
"""The fields a word itself is looked for in, each with its place in a tool's counts and the match it makes, the
strongest first (the sort is stable: of equal strengths, the first in `TOOL_FIELDS`): the first field that has the
word is its best match."""


@dataclass(frozen=True, slots=True)
class _Readings:
    """What a query word is matched by: the index terms it needs all of (itself, or a long CJK word's bigrams), its
    translations or expansions, and its lexicon concepts as (concept, its name, whether it is topical)."""

    pieces: tuple[str, ...]
    expansions: tuple[str, ...]
    concepts: tuple[tuple[str, str, bool], ...]


def _readings_of(word: str) -> _Readings:
    cjk = is_cjk(word)
    concepts = concepts_of((), (word,)) if cjk else concepts_of((word,), ())
    named = [(concept, concept.removeprefix(CONCEPT_PREFIX)) for concept in concepts]
    return _Readings(
        pieces=tuple(_index_terms(word)),
        expansions=tuple(translations_of((word,)) if cjk else expansions_of((word,))),
        concepts=tuple((concept, name, name in TOPICAL) for concept, name in named),
    )


def _best_match(tool: IndexedTool, word: str, readings: _Readings, server_terms: set[str]) -> _Match:
    best = _NO_MATCH
    pieces = readings.pieces
    counts = tool.counts
    for position, match in _WORD_FIELDS:
        field = counts[position]
        if field.get(pieces[0]) if len(pieces) == 1 else all(field.get(piece) for piece in pieces):
            best = match
            break
    if word in server_terms and STRENGTH["server"] > best.strength:
        best = _Match(STRENGTH["server"], "server", "server")
    if best.strength:
        return best
    best = _translated_match(tool, readings.expansions)
    if best.strength:
        return best
    for concept, name, topical in readings.concepts:
        for field in _CONCEPT_MATCH_FIELDS:
            strength = STRENGTH[field] * TOPICAL_STRENGTH if topical else STRENGTH[field]
            if tool.field(field).get(concept) and strength > best.strength:
                best = _Match(strength, field, f"{'topic' if topical else 'synonym'} {name}")
    return best


def _translated_match(tool: IndexedTool, expansions: tuple[str, ...]) -> _Match:
    best = _NO_MATCH
    for english in expansions:
        for position, match in _WORD_FIELDS:
            if tool.counts[position].get(english):
                if match.strength * TRANSLATION_STRENGTH > best.strength:
                    best = _Match(match.strength * TRANSLATION_STRENGTH, match.field, f"translation {english}")
                break
    return best
