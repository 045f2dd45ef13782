"""An inverted index over tool fields, updated one server at a time: a refresh of one server touches only the
postings of its terms, and the collection statistics BM25 needs are kept as running sums."""

from __future__ import annotations

import math
import re
from array import array
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_gateway.search.documents import (
    SERVER_FIELDS,
    TOOL_FIELDS,
    IndexedTool,
    ServerEntry,
    ServerField,
    ToolEntry,
    ToolField,
    index_server,
    index_tool,
    server_phrases,
)
from mcp_gateway.search.text import is_cjk

_NOT_ALNUM = re.compile(r"[^0-9a-z\u3040-\u9fff\uac00-\ud7af]+")

SPREAD_FIELDS: tuple[ToolField, ...] = ("name", "title", "description")
"""The fields whose words count towards a word's spread over servers (`server_spread`): what tools are about."""


@dataclass
class FieldPostings:
    """One field's postings: term → a flat `array` of (document id, count) pairs, not a dict: a 5,645-tool catalog
    has 53,000 postings, mostly a document or two long, and dicts took 12 MB where arrays take 4."""

    _postings: dict[str, array[int]] = field(default_factory=dict[str, "array[int]"])
    lengths: dict[int, int] = field(default_factory=dict[int, int])
    total_length: int = 0
    _scales: dict[tuple[float, float, int], dict[int, float]] = field(
        default_factory=dict[tuple[float, float, int], dict[int, float]]
    )

    def __contains__(self, term: str) -> bool:
        return term in self._postings

    def terms(self) -> Iterable[str]:
        return self._postings.keys()

    def entries(self, term: str) -> Iterable[tuple[int, int]]:
        packed = self._postings.get(term)
        return () if packed is None else _pairs(packed)

    def scales(self, weight: float, b: float, doc_count: int) -> dict[int, float]:
        """Each document's BM25F factor, `weight / (1 - b + b * length / average)`, cached until the index changes
        (per posting per query it was most of a query's time)."""
        key = (weight, b, doc_count)
        cached = self._scales.get(key)
        if cached is None:
            average = self.total_length / doc_count if doc_count and self.total_length else 1.0
            cached = {doc: weight / (1.0 - b + b * length / average) for doc, length in self.lengths.items()}
            self._scales.clear()
            self._scales[key] = cached
        return cached

    def add(self, doc_id: int, counts: Mapping[str, int], length: int) -> None:
        postings = self._postings
        for term, count in counts.items():
            packed = postings.get(term)
            if packed is None:
                postings[term] = array(_POSTING_TYPE, (doc_id, count))
            else:  # two appends: an extend builds a tuple and iterates it, a third more per posting
                packed.append(doc_id)
                packed.append(count)
        if length:
            self.lengths[doc_id] = length
            self.total_length += length
        self._scales.clear()

    def remove(self, doc_ids: Collection[int], terms: Iterable[str]) -> None:
        """Drop `doc_ids` from the postings of `terms`. A server's documents have consecutive ids, so they are one
        run in each posting, found by bisection and cut out in C (a Python pass made re-indexing a catalog several
        times slower than building it)."""
        first, last = (min(doc_ids), max(doc_ids)) if doc_ids else (0, -1)
        consecutive = last - first + 1 == len(doc_ids)
        for term in terms:
            packed = self._postings.get(term)
            if packed is None:
                continue
            if consecutive:
                del packed[2 * _first_pair_at(packed, first) : 2 * _first_pair_at(packed, last + 1)]
            else:
                kept = array(_POSTING_TYPE)
                for doc_id, count in _pairs(packed):
                    if doc_id not in doc_ids:
                        kept.extend((doc_id, count))
                packed = self._postings[term] = kept
            if not packed:
                del self._postings[term]
        for doc_id in doc_ids:
            self.total_length -= self.lengths.pop(doc_id, 0)
        self._scales.clear()


def _first_pair_at(packed: array[int], doc_id: int) -> int:
    low, high = 0, len(packed) // 2
    while low < high:
        middle = (low + high) // 2
        if packed[2 * middle] < doc_id:
            low = middle + 1
        else:
            high = middle
    return low


def _pairs(packed: array[int]) -> Iterable[tuple[int, int]]:
    """(document id, count) pairs of a flat posting, without copying it."""
    values = iter(packed)
    return zip(values, values, strict=True)


_POSTING_TYPE = "l"


MAX_CACHED_SCORES = 100_000
"""About 8 MB of (tool, score) pairs, set in 5d46c33 (a cache of 8,192 terms grew by 15 MB over 1,089 queries)."""


class ScoreCache:
    """Each queried term's BM25F score per tool, kept until the index changes. Bounded by the scores it holds, not
    by terms: a common word scores thousands of tools. Emptied when full."""

    def __init__(self, max_scores: int = MAX_CACHED_SCORES) -> None:
        self._scores: dict[tuple[str, bool], dict[int, float]] = {}
        self._held = 0
        self._max = max_scores

    def get(self, key: tuple[str, bool]) -> dict[int, float] | None:
        return self._scores.get(key)

    def put(self, key: tuple[str, bool], scores: dict[int, float]) -> None:
        if len(scores) > self._max:
            return
        if self._held + len(scores) > self._max:
            self.clear()
        self._scores[key] = scores
        self._held += len(scores)

    def clear(self) -> None:
        self._scores.clear()
        self._held = 0


@dataclass(frozen=True)
class IndexedServer:
    id: int
    entry: ServerEntry
    fields: dict[ServerField, Mapping[str, int]]
    phrases: tuple[tuple[str, ...], ...]
    words: frozenset[str]
    """The words of its name phrases."""


class SearchIndex:
    def __init__(self) -> None:
        self.tools: dict[int, IndexedTool] = {}
        self.fields: dict[ToolField, FieldPostings] = {name: FieldPostings() for name in TOOL_FIELDS}
        self.servers: dict[str, IndexedServer] = {}
        self.server_fields: dict[ServerField, FieldPostings] = {name: FieldPostings() for name in SERVER_FIELDS}
        self._server_by_id: dict[int, str] = {}
        self._by_server: dict[str, list[int]] = {}
        self.doc_freq: Counter[str] = Counter()
        """Tools with a term in any field."""
        self.server_spread: Counter[str] = Counter()
        """Servers whose tools use a word: a word few servers use is a name, one many use is ordinary language."""
        self.cjk_tools = 0
        """Tools with CJK text: the collection a CJK term's rarity is judged in."""
        self.server_doc_freq: Counter[str] = Counter()
        self.phrase_freq: Counter[str] = Counter()
        """Servers whose name phrases contain a word: a word in many server names names none of them."""
        self.phrases_by_word: dict[str, set[tuple[str, tuple[str, ...]]]] = {}
        """A name phrase's first word → (server, phrase)."""
        self.cjk_phrases: dict[str, set[str]] = {}
        """A CJK name phrase (matched as a substring) → its servers."""
        self.named_after_server: set[int] = set()
        """Tools whose name holds a distinctive word of their own server's key or aliases."""
        self.deprecated: set[int] = set()
        self.web_search: set[int] = set()
        self.name_keys: dict[str, tuple[int, ...]] = {}
        """`name_key` of each tool's name and of `server.name` → tools."""
        self.term_scores = ScoreCache()
        self._next_id = 0
        self.version = 0
        """Bumped on every change, so callers can cache what they derive from the index."""

    def __len__(self) -> int:
        return len(self.tools)

    def idf(self, term: str) -> float:
        """A term's IDF among all the tools."""
        return bm25_idf(len(self.tools), self.doc_freq.get(term, 0))

    def replace_server(self, server: ServerEntry, tools: Sequence[ToolEntry]) -> None:
        self.remove_server(server.name)
        server_id = self._allocate()
        self._server_by_id[server_id] = server.name
        phrases = server_phrases(server)
        words = frozenset(word for phrase in phrases for word in phrase)
        indexed_server = IndexedServer(server_id, server, index_server(server), phrases, words)
        self.servers[server.name] = indexed_server
        for name, counts in indexed_server.fields.items():
            self.server_fields[name].add(server_id, counts, sum(counts.values()))
        self.server_doc_freq.update(_distinct_terms(indexed_server.fields.values()))
        self.phrase_freq.update(words)
        for phrase in indexed_server.phrases:
            if is_cjk(phrase[0]):
                self.cjk_phrases.setdefault("".join(phrase), set()).add(server.name)
            else:
                self.phrases_by_word.setdefault(phrase[0], set()).add((server.name, phrase))
        ids: list[int] = []
        for entry in tools:
            doc_id = self._allocate()
            indexed = index_tool(entry)
            self.tools[doc_id] = indexed
            for name, counts in indexed.by_field():
                if counts:  # most tools leave some fields empty (a title, the translations): nothing to add
                    self.fields[name].add(doc_id, counts, sum(counts.values()))
            self.doc_freq.update(_distinct_terms(indexed.counts))
            self.cjk_tools += indexed.has_cjk
            if not words.isdisjoint(indexed.field("name")):
                self.named_after_server.add(doc_id)
            if indexed.deprecation is not None:
                self.deprecated.add(doc_id)
            if indexed.web_search:
                self.web_search.add(doc_id)
            for key in _name_keys(entry):
                self.name_keys[key] = (*self.name_keys.get(key, ()), doc_id)
            ids.append(doc_id)
        self._by_server[server.name] = ids
        self.server_spread.update(self._server_words(server.name))
        self.term_scores.clear()
        self.version += 1

    def remove_server(self, name: str) -> None:
        indexed_server = self.servers.get(name)
        if indexed_server is None:
            return
        _forget(self.server_spread, self._server_words(name))
        del self.servers[name]
        del self._server_by_id[indexed_server.id]
        for field_name, counts in indexed_server.fields.items():
            self.server_fields[field_name].remove({indexed_server.id}, counts)
        _forget(self.server_doc_freq, _distinct_terms(indexed_server.fields.values()))
        _forget(self.phrase_freq, indexed_server.words)
        for phrase in indexed_server.phrases:
            table: dict[str, set[Any]] = self.cjk_phrases if is_cjk(phrase[0]) else self.phrases_by_word
            key = "".join(phrase) if is_cjk(phrase[0]) else phrase[0]
            holders = table.get(key)
            if holders is not None:
                holders.discard(name if table is self.cjk_phrases else (name, phrase))
                if not holders:
                    del table[key]
        removed = {doc_id: self.tools.pop(doc_id) for doc_id in self._by_server.pop(name, [])}
        for field_name in TOOL_FIELDS:
            terms = set[str]().union(*(indexed.field(field_name) for indexed in removed.values()))
            self.fields[field_name].remove(removed.keys(), terms)
        for doc_id, indexed in removed.items():
            _forget(self.doc_freq, _distinct_terms(indexed.counts))
            self.cjk_tools -= indexed.has_cjk
            self.named_after_server.discard(doc_id)
            self.deprecated.discard(doc_id)
            self.web_search.discard(doc_id)
            for key in _name_keys(indexed.entry):
                holders = tuple(held for held in self.name_keys.get(key, ()) if held != doc_id)
                if holders:
                    self.name_keys[key] = holders
                else:
                    self.name_keys.pop(key, None)
        self.term_scores.clear()
        self.version += 1

    def _server_words(self, server: str) -> set[str]:
        words: set[str] = set()
        for doc_id in self._by_server.get(server, ()):
            for field_name in SPREAD_FIELDS:
                words.update(self.tools[doc_id].field(field_name))
        return words

    def server_names(self) -> list[str]:
        return list(self.servers)

    def server_of_id(self, server_id: int) -> str:
        return self._server_by_id[server_id]

    def tool_ids(self, server: str) -> list[int]:
        return self._by_server.get(server, [])

    def vocabulary(self) -> Iterable[str]:
        for postings in self.fields.values():
            yield from postings.terms()

    def _allocate(self) -> int:
        self._next_id += 1
        return self._next_id


def bm25_idf(doc_count: int, df: int) -> float:
    """BM25's IDF in Lucene's form, `ln(1 + (N - df + 0.5) / (df + 0.5))`: never negative, even for a term every
    document has (the original formula's would subtract from a tool for matching it)."""
    return math.log(1.0 + (doc_count - df + 0.5) / (df + 0.5))


def _forget(frequencies: Counter[str], terms: Iterable[str]) -> None:
    """Count `terms` once less, dropping those at zero (touching only these: `+counter` rebuilds the vocabulary)."""
    for term in terms:
        left = frequencies[term] - 1
        if left > 0:
            frequencies[term] = left
        else:
            frequencies.pop(term, None)


def _distinct_terms(fields: Iterable[Mapping[str, int]]) -> set[str]:
    terms: set[str] = set()
    for counts in fields:
        terms.update(counts)
    return terms


def name_key(text: str) -> str:
    """A name with case and separators removed: `Get-Sum`, `get_sum` and `getSum` all become `getsum`."""
    return _NOT_ALNUM.sub("", text.lower())


_TOKEN = re.compile(r"[\w.\-/:]+")
_IDENTIFIER = re.compile(r"[a-z0-9][_.\-][a-z0-9]|[a-z][A-Z]")
_TOKEN_EDGES = ".-_"


def typed_names(text: str) -> frozenset[str]:
    """The name keys a request spells: the whole request (`read_file`, `echo`) and each token written as an
    identifier (`get-sum`, `filesystem.read_text_file`) in a longer one; a plain word in it (`echo hello`) is not."""
    keys = {name_key(text)}
    for found in _TOKEN.findall(text):
        token = found.strip(_TOKEN_EDGES)
        if _IDENTIFIER.search(token) and "/" not in token and ":" not in token:
            keys.add(name_key(token))
    keys.discard("")
    return frozenset(keys)


def _name_keys(entry: ToolEntry) -> set[str]:
    return {key for key in (name_key(entry.name), name_key(f"{entry.server}.{entry.name}")) if key}
