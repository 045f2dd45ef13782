"""Whether a tool does what the request asks to what it asks: the request's objects in what the tool says it is.

A request says what to do to what: "add two numbers" asks to add (an action many tools' names share) to numbers
(its object). BM25 scores the words one by one, so `add_issue_comment` wins on a name that shares the verb, while
"numbers" only meets its parameter `issue_number`; the tool that sums numbers says so in its first sentence
("Returns the sum of two numbers"). So among the best candidates, a tool keeps from `OBJECT_FIT_FLOOR` to all of
its evidence by the share of the request's objects found in its name, its title or its description's first
sentence, by the word or a lexicon synonym: what it says it does to what, not the details of how it is called.

The request's objects are its words (and the English its Chinese translates to, its typo corrections and
everyday words) that are neither an action (`lexicon.is_action`: add, fetch, delete), nor generic (`data`,
`information`), nor a value (a path, a number); each weighs its IDF times its weight in the query. A request with
no object (`sum 3 and 4`) leaves every tool as it was. Chinese words themselves are read through their English
translations, which tool text shares.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from mcp_gateway.search.index import SearchIndex
from mcp_gateway.search.lexicon import concepts_of, is_action, translations_of
from mcp_gateway.search.query import GENERIC_WORDS, ParsedQuery
from mcp_gateway.search.text import analyze, is_cjk, lead_sentence

OBJECT_FIT_FLOOR = 0.6
"""What a tool keeps of its evidence when its name, title and first sentence hold none of the request's objects.
Measured in issue 27 on catalog.json (public single+step R@1/R@5/MRR, task R@5; styled dev sets, all 260, R@1/R@5):
without → .576/.898/.709, .636; .469/.762. 0.5 → .602/.884/.724, .628; .485/.777. 0.6 → .602/.885/.722, .632;
.488/.781. 0.7 → .588/.888/.712, .636; .481/.773. Most of the public R@5 it costs is requests for news on a
subject, whose subject (an argument of a web search) no tool's first sentence holds."""
MIN_OBJECT_LENGTH = 3
"""Shorter words are codes, units and stray letters (`id`, `v2`, `kg`), not the thing a request is about."""
_VALUE_KINDS = frozenset({"value"})


class ObjectFits:
    """One engine's object fits. What a tool says it is (its name, title and first sentence, their words and
    lexicon concepts) is read once per index version, when the tool is first a candidate."""

    def __init__(self) -> None:
        self._version = -1
        self._leads: dict[int, frozenset[str]] = {}
        self._asked: tuple[ParsedQuery | None, list[tuple[frozenset[str], float]]] = (None, [])
        """The last query's objects: a search reads them for its ranking and again for its hits."""

    def of(
        self, index: SearchIndex, query: ParsedQuery, candidates: Iterable[int], idf: Callable[[str], float]
    ) -> dict[int, float]:
        """Each candidate's factor in [`OBJECT_FIT_FLOOR`, 1]; `idf` gives a word's rarity among the tools."""
        shares = self.shares(index, query, candidates, idf)
        return {doc_id: OBJECT_FIT_FLOOR + (1.0 - OBJECT_FIT_FLOOR) * share for doc_id, share in shares.items()}

    def shares(
        self, index: SearchIndex, query: ParsedQuery, candidates: Iterable[int], idf: Callable[[str], float]
    ) -> dict[int, float]:
        """Each candidate's share of the request's objects that its name, title or first sentence holds, 0..1 (1
        for a request with no object)."""
        if self._version != index.version:
            self._leads.clear()
            self._asked = (None, [])
            self._version = index.version
        if self._asked[0] is not query:
            self._asked = (query, request_objects(query, idf))
        objects = self._asked[1]
        total = sum(weight for _, weight in objects)
        if not total:
            return dict.fromkeys(candidates, 1.0)
        # Which objects each reading accounts for: a candidate's first sentence is then met with all the readings
        # at once, in one set intersection, rather than object by object.
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
    """The request's objects: each as the readings that account for it (the word and its concepts) and its weight."""
    weights: dict[str, float] = {}
    for term in query.terms:
        word = term.term
        if term.is_concept or term.kind in _VALUE_KINDS or is_cjk(word) or not word.isalpha():
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
