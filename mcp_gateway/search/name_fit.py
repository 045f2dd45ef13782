"""How much of what a tool's name says the request asks for: a tool named for another object ranks lower.

BM25 rewards the query words a tool has and never asks what else the tool is about. "What is the current share
price of Amazon?" matches `bsv_getPrice` ("the current price of Bitcoin SV") on price and current as well as it
matches a stock price tool, and `search_car_price` nearly so; "save the report to a file" matches every tool with
save or report in its name, whatever object it saves. A tool's name says what it does to what, in a few words,
so a name word the request never mentions (bsv, car, json) is evidence the tool is for something else.

The fit is the share of the name's information (its words' IDF) that the request accounts for, by a word or
through a lexicon concept (`share` meets `stock`). Words naming the tool's own server (`playwright` in
`playwright_click`) say where it lives, not what it does, and are left out unless the request names them. A
tool's evidence is scaled from `NAME_FIT_FLOOR` (nothing of its name asked for) to 1 (all of it): a nudge that
reorders close matches, not a filter; a generic name (`search`, `run`) is almost all fit by any request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from mcp_gateway.search.index import SearchIndex
from mcp_gateway.search.lexicon import concepts_of

NAME_FIT_FLOOR = 0.8
"""What a tool keeps of its evidence when the request asks for none of its name's words. Measured on catalog.json
with `benchmarks/retrieval.py` (single+step R@1/R@5/MRR, task R@5, high precision; XL single+step R@5), with the
web search services of 072cf0f: without → .553/.882/.665, .573, .914; .758. 0.85 → .574/.879/.680, .598, .921;
.778. 0.8 → .576/.879/.680, .603, .919; .782. 0.75 → .594/.882/.689, .590, .921; .785. 0.7 → .593/.885/.688,
.582, .927; .788. Without leaving out the server's own words, 0.8 → .562/.882/.680, .615, .908; .767."""
NAME_FIT_DEPTH = 2
"""The fit is applied to this many times the ranking's limit of best candidates, so a tool the fit keeps can come
up from below the cut past ones it lowers. Measured: 3 → unchanged."""


@dataclass(frozen=True, slots=True)
class _NameWord:
    weight: float
    """The word's IDF among the tools: its share of what the name says."""
    readings: frozenset[str]
    """The word and its lexicon concepts: any of them in the request accounts for it."""
    home: bool
    """It names the tool's own server."""


class NameFits:
    """One engine's name fits. What each tool's name words weigh and mean is read once per index version (a pass
    over a candidate's name per query cost a fifth of a query's time); a query's fits are then set lookups."""

    def __init__(self) -> None:
        self._version = -1
        self._names: dict[int, tuple[_NameWord, ...]] = {}

    def of(
        self, index: SearchIndex, candidates: Iterable[int], asked: set[str], idf: Callable[[str], float]
    ) -> dict[int, float]:
        """Each candidate's factor in [`NAME_FIT_FLOOR`, 1]; `asked` holds the request's terms (words, typo
        corrections, translations, values and concepts), `idf` a word's rarity among the tools."""
        shares = self.shares(index, candidates, asked, idf)
        return {doc_id: NAME_FIT_FLOOR + (1.0 - NAME_FIT_FLOOR) * share for doc_id, share in shares.items()}

    def shares(
        self, index: SearchIndex, candidates: Iterable[int], asked: set[str], idf: Callable[[str], float]
    ) -> dict[int, float]:
        """Each candidate's share of its name's information that the request asks for, 0..1 (1 for a name of
        only its server's words)."""
        if self._version != index.version:
            self._names.clear()
            self._version = index.version
        shares: dict[int, float] = {}
        for doc_id in candidates:
            words = self._names.get(doc_id)
            if words is None:
                words = self._names[doc_id] = _name_words(index, doc_id, idf)
            total = matched = 0.0
            for word in words:
                if word.readings.isdisjoint(asked):
                    total += 0.0 if word.home else word.weight
                else:
                    total += word.weight
                    matched += word.weight
            shares[doc_id] = matched / total if total else 1.0
        return shares


def _name_words(index: SearchIndex, doc_id: int, idf: Callable[[str], float]) -> tuple[_NameWord, ...]:
    tool = index.tools[doc_id]
    home = {word for phrase in index.servers[tool.entry.server].phrases for word in phrase}
    return tuple(
        _NameWord(idf(word), frozenset((word, *concepts_of((word,), ()))), word in home) for word in tool.field("name")
    )
