"""The hits of one search, each with its level of confidence and the reasons a model can check.

What a hit explains of a phrasing (`judge`) is never relative to the best hit (that would call the least bad of
ten poor matches strong): it is the share of the query's information the tool itself accounts for, each query word
weighing its IDF and counting fully in the tool's name or title, less in its description or parameters, less again
through a synonym or a typo correction. Words the catalog does not know at all are counted apart
(`Evidence.unknown`): arguments, or what no server here is about.

Each phrasing judges the hits of its own ranking (`judged`): coverage, its signals (`calibration.Signals`, margins
read in that ranking) and the calibrated level. A hit takes the best level any phrasing gives it; then the final
order settles it (`settled`): a tool the request names outright (`read_file`, `everything.get-sum`) is `high`;
only the first hit and its namesakes (the same tool name on several servers, of equal standing) can be `high`, a
hit below another cannot mean "call it without looking further"; a deprecated tool is never `high` beside its
replacement (`documents.deprecation_of`), and says what to use.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mcp_gateway.search.calibration import Confidence, Signals, level, probability
from mcp_gateway.search.documents import (
    CONCEPT_FIELDS,
    TOOL_FIELDS,
    IndexedTool,
    MatchField,
    ToolField,
    deprecation_reason,
    superseded_by,
)
from mcp_gateway.search.index import SearchIndex, bm25_idf, name_key, typed_names
from mcp_gateway.search.lexicon import (
    CONCEPT_PREFIX,
    TOPICAL,
    cjk_units,
    concepts_of,
    expansions_of,
    translations_of,
)
from mcp_gateway.search.query import GENERIC_WEIGHT, WORD_WEIGHT, ParsedQuery, argument_words
from mcp_gateway.search.text import is_cjk

NAMED_REASON = "the query names this tool"
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
"""How much a query word found in each field accounts for. By hand in 9ddc802 (`translated` in b7d2fc1), as are the
shares of a match through a typo correction, a translation or expansion, or a topical group (`lexicon.TOPICAL`)."""
TYPO_STRENGTH = 0.7
TRANSLATION_STRENGTH = 0.9
TOPICAL_STRENGTH = 0.6
CJK_CHARACTER_SHARE = 0.5
"""A single CJK character weighs half a word: the words it is part of carry most. By hand in 9ddc802."""
MAX_JUDGED_WORDS = 32
"""A long request is judged on its most informative words, as it is ranked: a bound on cost, set in 9d191f6."""


@dataclass(frozen=True)
class Judgement:
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
    names: frozenset[str]
    """The tool names the request spells (`index.typed_names`)."""
    unknown: float
    """Share of the request's information in words no tool has in any form and that do not read as arguments
    (`query.argument_words`): what it asks for that no server here is about."""


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
        explained.insert(0, NAMED_REASON)
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


MAX_NAMESAKES_NAMED = 3
"""Other servers with the same tool named in a hit's reasons at most."""
LEVEL_ORDER: Mapping[Confidence, int] = {"low": 0, "medium": 1, "high": 2}


@dataclass(frozen=True)
class RankedTool:
    """A tool as the engine ranked it for a request: its score, confidence, reasons and the signals behind them
    (the service makes its report's `SearchHit` of it, with the tool's definition)."""

    server: str
    tool: str
    score: float
    confidence: Confidence
    reasons: tuple[str, ...]
    signals: Signals | None = None


@dataclass(frozen=True)
class Candidate:
    """A ranked tool to judge, with what its phrasing's ranking knows of it."""

    doc_id: int
    score: float
    name_asked: float
    objects_found: float
    server_named: float
    """See `calibration.Signals`."""


@dataclass(frozen=True)
class Judged:
    confidence: Confidence
    reasons: tuple[str, ...]
    signals: Signals


def judged(index: SearchIndex, evidence: Evidence, candidates: Sequence[Candidate]) -> dict[int, Judged]:
    """Each of one phrasing's ranked tools (best first) judged as the first of those from it down (what is above
    it is for `settled` to tell)."""
    tools = [index.tools[candidate.doc_id] for candidate in candidates]
    names = [name_key(tool.entry.name) for tool in tools]
    coverage: list[float] = []
    reasons: list[tuple[str, ...]] = []
    named: list[bool] = []
    for tool in tools:
        server = tool.entry.server
        phrases = index.servers[server].phrases
        server_terms = {word for phrase in phrases if evidence.said.issuperset(phrase) for word in phrase}
        keys = (name_key(tool.entry.name), name_key(f"{server}.{tool.entry.name}"))
        naming = not evidence.names.isdisjoint(keys)
        judgement = judge(evidence, tool, server_terms=server_terms, named_exactly=naming)
        coverage.append(judgement.coverage)
        reasons.append(judgement.reasons)
        named.append(naming)
    length = math.log1p(len(evidence.words))
    verdicts: dict[int, Judged] = {}
    for position, candidate in enumerate(candidates):
        below = [other for other in range(position + 1, len(candidates)) if names[other] != names[position]]
        runner_up = max((candidates[other].score for other in below), default=0.0)
        explained = coverage[position]
        signals = Signals(
            coverage=explained,
            coverage_lead=explained * (explained - max((coverage[other] for other in below), default=0.0)),
            margin=explained * (1.0 - runner_up / candidate.score) if candidate.score > 0 else 0.0,
            name_asked=explained * candidate.name_asked,
            objects_found=explained * candidate.objects_found,
            server_named=candidate.server_named,
            length=length,
        )
        confidence: Confidence = "high" if named[position] else level(probability(signals))
        verdicts[candidate.doc_id] = Judged(confidence, reasons[position], signals)
    return verdicts


def best_of(verdicts: Sequence[Mapping[int, Judged]], doc_id: int) -> Judged | None:
    """The best level any phrasing gives a tool (the first phrasing wins a tie); None when none judged it."""
    found = [each[doc_id] for each in verdicts if doc_id in each]
    return max(found, key=lambda verdict: LEVEL_ORDER[verdict.confidence]) if found else None


def settled(index: SearchIndex, ranked: Sequence[tuple[int, float, Judged]]) -> tuple[RankedTool, ...]:
    """The final order's hits, by the rules of order (see the module docstring)."""
    if not ranked:
        return ()
    tools = [index.tools[doc_id] for doc_id, _, _ in ranked]
    names = [name_key(tool.entry.name) for tool in tools]
    qualified = [f"{tool.entry.server}.{tool.entry.name}" for tool in tools]
    first = ranked[0][2]
    # A first hit named outright, server and all, says nothing for its namesakes: each is judged on its own.
    lead = first.confidence if NAMED_REASON not in first.reasons else None
    hits: list[RankedTool] = []
    for position, ((_, score, verdict), tool) in enumerate(zip(ranked, tools, strict=True)):
        confidence, reasons = verdict.confidence, verdict.reasons
        namesakes = [other for other, name in zip(qualified, names, strict=True) if name == names[position]]
        namesakes.remove(qualified[position])
        if names[position] == names[0]:
            confidence = lead or confidence
        elif confidence == "high":
            confidence = "medium"
            reasons = (*reasons, f"ranked below {qualified[0]}")
        if tool.deprecation is not None:
            found = [each.entry.name for each in tools if each.entry.server == tool.entry.server]
            replacement = superseded_by(tool.deprecation, found)
            if replacement is not None and confidence == "high":
                confidence = "medium"
            reasons = (deprecation_reason(replacement), *reasons)
        if namesakes:
            reasons = (*reasons, f"the same tool as {', '.join(namesakes[:MAX_NAMESAKES_NAMED])}")
        hits.append(
            RankedTool(tool.entry.server, tool.entry.name, round(score, 3), confidence, reasons, verdict.signals)
        )
    return tuple(hits)
