"""Whether a tool says what the request asks for: two nudges that reorder close matches among the best candidates.

BM25 rewards the query words a tool has and never asks what else the tool is about, nor to what it does it.

- The name fit: a tool's name says what it does to what in a few words, so a name word the request never mentions
  is evidence the tool is for something else. "What is the current share price of Amazon?" matches `bsv_getPrice`
  ("the current price of Bitcoin SV") and `search_car_price` on price and current as well as a stock price tool.
  The fit is the share of the name's information (its words' IDF) the request accounts for, by a word or a lexicon
  concept (`share` meets `stock`). Words naming the tool's own server (`playwright` in `playwright_click`) say where
  it lives, not what it does, and are left out unless the request names them. A generic name (`search`) fits any
  request.
- The object fit: "add two numbers" asks to add (an action many names share) to numbers (its object);
  `add_issue_comment` wins on the verb, while the tool that sums numbers says so in its first sentence. The fit is
  the share of the request's objects (`request_objects`) found in the tool's name, title or description's first
  sentence, by the word or a synonym: what it says it does to what, not how it is called. A request with no object
  (`sum 3 and 4`) leaves every tool as it was; Chinese words are read through their English translations.

A tool keeps from the fit's floor (nothing asked for) to all of its evidence. What each tool's name and first
sentence say is read once per index version, when the tool is first a candidate (a pass over a candidate per query
cost a fifth of a query's time).
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
"""The fits are applied to this many times the ranking's limit of best candidates, so a tool the fits keep can come
up from below the cut past ones they lower. Measured: 3 → unchanged."""
OBJECT_FIT_FLOOR = 0.6
"""Measured in issue 27 on catalog.json (public single+step R@1/R@5/MRR, task R@5; styled dev sets, all 260,
R@1/R@5): without → .576/.898/.709, .636; .469/.762. 0.5 → .602/.884/.724, .628; .485/.777. 0.6 → .602/.885/.722,
.632; .488/.781. 0.7 → .588/.888/.712, .636; .481/.773. Most of the public R@5 it costs is requests for news on a
subject, whose subject (an argument of a web search) no tool's first sentence holds."""
MIN_OBJECT_LENGTH = 3
"""Shorter words are codes, units and stray letters (`id`, `v2`, `kg`), not the thing a request is about."""


def _scaled(shares: dict[int, float], floor: float) -> dict[int, float]:
    return {doc_id: floor + (1.0 - floor) * share for doc_id, share in shares.items()}


@dataclass(frozen=True, slots=True)
class _NameWord:
    weight: float
    """The word's IDF among the tools: its share of what the name says."""
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
    home = {word for phrase in index.servers[tool.entry.server].phrases for word in phrase}
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
    """The request's objects, each as the readings that account for it (the word and its concepts) and its weight
    (IDF times its weight in the query): its words, translations, typo corrections and everyday words that are
    neither an action (`lexicon.is_action`), nor generic, nor a value."""
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
