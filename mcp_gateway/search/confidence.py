"""What a hit explains of the request, with the reasons a model can check: the evidence `calibration.py` reads.

Coverage is never relative to the best hit of the same query (that would call the least bad of ten poor matches
strong). It is the share of the query's information that the tool itself accounts for: each query word weighs
its IDF (rare words say more about intent than `get`), and counts fully when the tool's name or title has it, a
little less in its description or parameters, less again through a synonym or a typo correction. The request's
words the catalog does not know at all are counted apart (`Evidence.unknown`): they are arguments, or what no
server here is about.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mcp_gateway.search.documents import CONCEPT_FIELDS, TOOL_FIELDS, IndexedTool, MatchField, ToolField
from mcp_gateway.search.index import SearchIndex, bm25_idf, typed_names
from mcp_gateway.search.lexicon import (
    CONCEPT_PREFIX,
    TOPICAL,
    cjk_units,
    concepts_of,
    expansions_of,
    translations_of,
)
from mcp_gateway.search.query import GENERIC_WEIGHT, WORD_WEIGHT, ParsedQuery
from mcp_gateway.search.text import is_cjk
from mcp_gateway.search.values import argument_words

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
"""A word matched only through a topical concept group (`lexicon.TOPICAL`) counts this share. Chosen by hand in
b7d2fc1, not tuned."""
CJK_CHARACTER_SHARE = 0.5
"""A single CJK character weighs half a word in the query's information: the words it is part of carry most of
it. Chosen by hand in the first search (9ddc802), not tuned."""
MAX_JUDGED_WORDS = 32
"""A long request is judged on its most informative words, like it is ranked (`ranking.MAX_SCORED_TERMS`): a
bound on a long request's cost, set in 9d191f6."""


@dataclass(frozen=True)
class Judgement:
    coverage: float
    """Share of the request's information the tool accounts for, 0..1."""
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
    names: frozenset[str]
    """The tool names the request spells (`index.typed_names`), for telling a request that names a tool outright."""
    unknown: float
    """Share of the request's information in words no tool has in any form (the word, its translations or
    expansions, its concepts, a typo correction) and that do not read as arguments (`values.argument_words`):
    what the request asks for that no server here is about, 0..1."""


def evidence_of(index: SearchIndex, query: ParsedQuery) -> Evidence:
    words, idf = _judged_words(index, query)
    typos = {term.typed: term.term for term in query.terms if term.kind == "typo" and term.typed}
    readings = {word: _readings_of(word) for word in (*words, *typos.values())}
    unknown = [word for word in words if word not in typos and not _known(index, readings[word])]
    # A word no tool knows that reads as an argument (a name, what a preposition introduces) is a value for the
    # tool, like a path: left out of what the request asks the tool to explain. Any other unknown word is what the
    # request asks for that no server here is about, and stays in.
    arguments = argument_words(query.text).intersection(unknown)
    words = tuple(word for word in words if word not in arguments)
    mass = sum(idf[word] for word in words)
    missing = sum(idf[word] for word in unknown if word not in arguments)
    return Evidence(
        query=query,
        words=words,
        idf=idf,
        typos=typos,
        generic=frozenset(term.term for term in query.terms if term.kind == "word" and term.weight == GENERIC_WEIGHT),
        readings=readings,
        said=frozenset(query.words),
        names=typed_names(query.text),
        unknown=missing / mass if mass else 0.0,
    )


def _known(index: SearchIndex, readings: _Readings) -> bool:
    """Whether any tool has the word in some form: itself (all of a long CJK word's bigrams), a translation or
    expansion, or a concept."""
    frequency = index.doc_freq
    return (
        all(frequency.get(piece, 0) for piece in readings.pieces)
        or any(frequency.get(english, 0) for english in readings.expansions)
        or any(frequency.get(concept, 0) for concept, _, _ in readings.concepts)
    )


def judge(evidence: Evidence, tool: IndexedTool, *, server_terms: set[str], named_exactly: bool) -> Judgement:
    """How much of the request one hit accounts for, and why; `server_terms` are query terms matching the tool's
    server. A tool the request names outright says so first among its reasons."""
    query, typos = evidence.query, evidence.typos
    mass = matched = 0.0
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
        if not match.strength:
            continue
        matched += weight * idf * match.strength
        reasons.setdefault(match.label, []).append(query.surface.get(word, word))
    explained = [f"{label}: {', '.join(words)}" for label, words in reasons.items()]
    if named_exactly:
        explained.insert(0, "the query names this tool")
    return Judgement(round(matched / mass, 2) if mass else 0.0, tuple(explained))


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
