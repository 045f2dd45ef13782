"""Whether a tool says what the request asks for: two nudges that reorder close matches among the best candidates.

BM25 rewards the query words a tool has and never asks what else the tool is about. The name fit: a name word the
request never mentions is evidence the tool is for something else ("the current share price of Amazon" matches
`bsv_getPrice` on price and current); it is the share of the name's information (IDF) the request accounts for, by
a word or a lexicon concept, leaving out words naming the tool's own server (`playwright` in `playwright_click`).
The object fit: "add two numbers" matches `add_issue_comment` on the verb while the tool that sums numbers says so
in its first sentence; it is the share of the request's objects (`request_objects`) found in the tool's name,
title or first sentence. A tool keeps from the fit's floor to all of its evidence; what each tool says is read once
per index version (a pass per candidate per query cost a fifth of a query's time).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from mcp_gateway.search.index import SearchIndex
from mcp_gateway.search.lexicon import concepts_of, is_action, translations_of
from mcp_gateway.search.query import GENERIC_WORDS, ParsedQuery
from mcp_gateway.search.text import analyze, is_cjk, lead_sentence

NAME_FIT_FLOOR = 0.8
"""Measured on catalog.json (single+step R@1/R@5/MRR, task R@5, high precision; XL single+step R@5), with the web
search services of 072cf0f: without → .553/.882/.665, .573, .914; .758. 0.85 → .574/.879/.680, .598, .921; .778.
0.8 → .576/.879/.680, .603, .919; .782. 0.75 → .594/.882/.689, .590, .921; .785. 0.7 → .593/.885/.688, .582, .927;
.788. Without leaving out the server's own words, 0.8 → .562/.882/.680, .615, .908; .767."""
NAME_FIT_DEPTH = 2
"""The fits reorder this many times the limit of best candidates, so a tool can come up from below the cut.
Measured: 3 → unchanged."""
OBJECT_FIT_FLOOR = 0.6
"""Issue 27 (public single+step R@1/R@5/MRR, task R@5; styled dev R@1/R@5): without → .576/.898/.709, .636;
.469/.762. 0.5 → .602/.884/.724, .628; .485/.777. 0.6 → .602/.885/.722, .632; .488/.781. 0.7 → .588/.888/.712,
.636; .481/.773. The public R@5 it costs is mostly news on a subject no tool's first sentence holds."""
MIN_OBJECT_LENGTH = 3
"""Shorter words are codes, units and stray letters (`id`, `v2`, `kg`), not the thing a request is about."""


def _scaled(shares: dict[int, float], floor: float) -> dict[int, float]:
    return {doc_id: floor + (1.0 - floor) * share for doc_id, share in shares.items()}


@dataclass(frozen=True, slots=True)
class _NameWord:
    weight: float
    readings: frozenset[str]
    """The word and its lexicon concepts: any of them in the request accounts for it."""
    home: bool
    """It names the tool's own server."""


class NameFits:
    def __init__(self) -> None:
        self._version = -1
        self._names: dict[int, tuple[_NameWord, ...]] = {}

    def of(self, index: SearchIndex, candidates: Iterable[int], asked: set[str]) -> dict[int, float]:
        """Each candidate's factor in [`NAME_FIT_FLOOR`, 1]; `asked` holds the request's terms (words, typo
        corrections, translations, values and concepts)."""
        return _scaled(self.shares(index, candidates, asked), NAME_FIT_FLOOR)

    def shares(self, index: SearchIndex, candidates: Iterable[int], asked: set[str]) -> dict[int, float]:
        """Each candidate's share of its name's information the request asks for (1 for a name of only its
        server's words)."""
        if self._version != index.version:
            self._names.clear()
            self._version = index.version
        shares: dict[int, float] = {}
        for doc_id in candidates:
            words = self._names.get(doc_id)
            if words is None:
                words = self._names[doc_id] = _name_words(index, doc_id)
            total = matched = 0.0
            for word in words:
                if word.readings.isdisjoint(asked):
                    total += 0.0 if word.home else word.weight
                else:
                    total += word.weight
                    matched += word.weight
            shares[doc_id] = matched / total if total else 1.0
        return shares


def _name_words(index: SearchIndex, doc_id: int) -> tuple[_NameWord, ...]:
    tool = index.tools[doc_id]
    home = index.servers[tool.entry.server].words
    return tuple(
        _NameWord(index.idf(word), frozenset((word, *concepts_of((word,), ()))), word in home)
        for word in tool.field("name")
    )


class ObjectFits:
    def __init__(self) -> None:
        self._version = -1
        self._leads: dict[int, frozenset[str]] = {}
        self._asked: tuple[ParsedQuery | None, list[tuple[frozenset[str], float]]] = (None, [])
        """The last query's objects: a search reads them for its ranking and again for its hits."""

    def of(self, index: SearchIndex, query: ParsedQuery, candidates: Iterable[int]) -> dict[int, float]:
        """Each candidate's factor in [`OBJECT_FIT_FLOOR`, 1]."""
        return _scaled(self.shares(index, query, candidates), OBJECT_FIT_FLOOR)

    def shares(self, index: SearchIndex, query: ParsedQuery, candidates: Iterable[int]) -> dict[int, float]:
        """Each candidate's share of the request's objects its name, title or first sentence holds (1 for a
        request with no object)."""
        if self._version != index.version:
            self._leads.clear()
            self._asked = (None, [])
            self._version = index.version
        if self._asked[0] is not query:
            self._asked = (query, request_objects(query, index.idf))
        objects = self._asked[1]
        total = sum(weight for _, weight in objects)
        if not total:
            return dict.fromkeys(candidates, 1.0)
        # Which objects each reading accounts for: a candidate's first sentence then meets all the readings at once.
        accounts: dict[str, list[int]] = {}
        for number, (readings, _) in enumerate(objects):
            for reading in readings:
                accounts.setdefault(reading, []).append(number)
        readings_asked = frozenset(accounts)
        shares: dict[int, float] = {}
        for doc_id in candidates:
            lead = self._leads.get(doc_id)
            if lead is None:
                lead = self._leads[doc_id] = _lead_terms(index, doc_id)
            common = readings_asked.intersection(lead)
            if not common:
                shares[doc_id] = 0.0
                continue
            met = {number for reading in common for number in accounts[reading]}
            shares[doc_id] = sum(objects[number][1] for number in met) / total
        return shares


def request_objects(query: ParsedQuery, idf: Callable[[str], float]) -> list[tuple[frozenset[str], float]]:
    """The request's terms that are neither an action (`lexicon.is_action`), nor generic, nor a value, each as its
    readings (the word and its concepts) and weight (IDF times its weight in the query)."""
    weights: dict[str, float] = {}
    for term in query.terms:
        word = term.term
        if term.is_concept or term.kind == "value" or is_cjk(word) or not word.isalpha():
            continue
        if len(word) < MIN_OBJECT_LENGTH or word in GENERIC_WORDS or is_action(word):
            continue
        weights[word] = max(weights.get(word, 0.0), term.weight * idf(word))
    return [(frozenset((word, *concepts_of((word,), ()))), weight) for word, weight in weights.items()]


def _lead_terms(index: SearchIndex, doc_id: int) -> frozenset[str]:
    """What a tool says it is: the words of its name, title and first sentence, their concepts and translations."""
    entry = index.tools[doc_id].entry
    terms = analyze(f"{entry.name} {entry.title or ''} {lead_sentence(entry.description)}")
    return frozenset((*terms.words, *concepts_of(terms.words, terms.cjk_runs), *translations_of(terms.cjk_runs)))
