"""An inverted index over tool fields, updated one server at a time.

Postings map field → term → {document id: term count}. Replacing a server's tools touches only the
postings of that server's terms, so a refresh of one server costs in proportion to that server, not to
the catalog. Collection statistics (document count, per-field total length) are kept as running sums
for BM25; document frequency is the size of a posting.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_gateway.search.documents import (
    FIELDS,
    SERVER_FIELDS,
    IndexedTool,
    ServerEntry,
    ToolEntry,
    index_server,
    index_tool,
    server_phrases,
)
from mcp_gateway.search.text import is_cjk

_NOT_ALNUM = re.compile(r"[^0-9a-z\u3040-\u9fff\uac00-\ud7af]+")


@dataclass
class FieldPostings:
    postings: dict[str, dict[int, int]] = field(default_factory=dict[str, dict[int, int]])
    lengths: dict[int, int] = field(default_factory=dict[int, int])
    total_length: int = 0
    _scales: dict[tuple[float, float, int], dict[int, float]] = field(
        default_factory=dict[tuple[float, float, int], dict[int, float]]
    )

    def scales(self, weight: float, b: float, doc_count: int) -> dict[int, float]:
        """Each document's BM25F factor for this field, `weight / (1 - b + b * length / average)`, cached.

        Computing it per posting per query was most of a query's time; it only changes when the index does.
        """
        key = (weight, b, doc_count)
        cached = self._scales.get(key)
        if cached is None:
            average = self.total_length / doc_count if doc_count and self.total_length else 1.0
            cached = {doc: weight / (1.0 - b + b * length / average) for doc, length in self.lengths.items()}
            self._scales.clear()
            self._scales[key] = cached
        return cached

    def add(self, doc_id: int, counts: Counter[str], length: int) -> None:
        for term, count in counts.items():
            self.postings.setdefault(term, {})[doc_id] = count
        self.lengths[doc_id] = length
        self.total_length += length
        self._scales.clear()

    def remove(self, doc_id: int, counts: Counter[str], length: int) -> None:
        for term in counts:
            posting = self.postings.get(term)
            if posting is None:
                continue
            posting.pop(doc_id, None)
            if not posting:
                del self.postings[term]
        self.lengths.pop(doc_id, None)
        self.total_length -= length
        self._scales.clear()


@dataclass(frozen=True)
class IndexedServer:
    entry: ServerEntry
    fields: dict[str, Counter[str]]
    phrases: tuple[tuple[str, ...], ...]


class SearchIndex:
    def __init__(self) -> None:
        self.tools: dict[int, IndexedTool] = {}
        self.fields: dict[str, FieldPostings] = {name: FieldPostings() for name in FIELDS}
        self.servers: dict[str, IndexedServer] = {}
        self.server_fields: dict[str, FieldPostings] = {name: FieldPostings() for name in SERVER_FIELDS}
        self._server_ids: dict[str, int] = {}
        self._server_by_id: dict[int, str] = {}
        self._by_server: dict[str, list[int]] = {}
        self.doc_freq: Counter[str] = Counter()
        self.server_spread: Counter[str] = Counter()
        """Servers whose tools use a word: a word few servers use is a name, one many use is ordinary language."""
        self.cjk_tools = 0
        """Tools with CJK text: the collection a CJK term's rarity is judged in."""
        """Tools with a term in any field: BM25F's document frequency."""
        self.server_doc_freq: Counter[str] = Counter()
        self.phrase_freq: Counter[str] = Counter()
        self.phrases_by_word: dict[str, set[tuple[str, tuple[str, ...]]]] = {}
        """A name phrase's first word → (server, phrase): the candidates a query word can complete."""
        self.cjk_phrases: dict[str, set[str]] = {}
        """A CJK name phrase (matched as a substring, there are no spaces) → its servers."""
        """Servers whose name phrases contain a word: a word in many server names names none of them."""
        self.named_after_server: set[int] = set()
        """Tools whose name holds a distinctive word of their own server's key or aliases."""
        self.name_keys: dict[str, set[int]] = {}
        """`name_key` of each tool's name and of `server.name` → tools, for exact and near-exact name queries."""
        self.term_scores: dict[tuple[str, bool], dict[int, float]] = {}
        """Each queried term's BM25F score per tool: a pure function of the index, so kept until it changes."""
        self._next_id = 0
        self.version = 0
        """Bumped on every change, so callers can cache derived views (the fuzzy vocabulary)."""

    def __len__(self) -> int:
        return len(self.tools)

    def replace_server(self, server: ServerEntry, tools: Sequence[ToolEntry]) -> None:
        """Index `server` with exactly `tools`, replacing whatever it had."""
        self.remove_server(server.name)
        server_id = self._allocate()
        self._server_ids[server.name] = server_id
        self._server_by_id[server_id] = server.name
        indexed_server = IndexedServer(server, index_server(server), server_phrases(server))
        self.servers[server.name] = indexed_server
        for name, counts in indexed_server.fields.items():
            self.server_fields[name].add(server_id, counts, sum(counts.values()))
        self.server_doc_freq.update(_distinct_terms(indexed_server.fields.values()))
        self.phrase_freq.update({word for phrase in indexed_server.phrases for word in phrase})
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
            for name in FIELDS:
                self.fields[name].add(doc_id, indexed.fields[name], indexed.lengths[name])
            self.doc_freq.update(_distinct_terms(indexed.fields.values()))
            self.cjk_tools += indexed.has_cjk
            server_words = {word for phrase in indexed_server.phrases for word in phrase}
            if not server_words.isdisjoint(indexed.fields["name"]):
                self.named_after_server.add(doc_id)
            for key in _name_keys(entry):
                self.name_keys.setdefault(key, set()).add(doc_id)
            ids.append(doc_id)
        self._by_server[server.name] = ids
        self.server_spread.update(self._server_words(server.name))
        self.term_scores.clear()
        self.version += 1

    def remove_server(self, name: str) -> None:
        server_id = self._server_ids.get(name)
        if server_id is None:
            return
        self.server_spread.subtract(self._server_words(name))
        self.server_spread = +self.server_spread
        del self._server_ids[name]
        del self._server_by_id[server_id]
        indexed_server = self.servers.pop(name)
        for field_name, counts in indexed_server.fields.items():
            self.server_fields[field_name].remove(server_id, counts, sum(counts.values()))
        self.server_doc_freq.subtract(_distinct_terms(indexed_server.fields.values()))
        self.server_doc_freq = +self.server_doc_freq
        self.phrase_freq.subtract({word for phrase in indexed_server.phrases for word in phrase})
        self.phrase_freq = +self.phrase_freq
        for phrase in indexed_server.phrases:
            table: dict[str, set[Any]] = self.cjk_phrases if is_cjk(phrase[0]) else self.phrases_by_word
            key = "".join(phrase) if is_cjk(phrase[0]) else phrase[0]
            holders = table.get(key)
            if holders is not None:
                holders.discard(name if table is self.cjk_phrases else (name, phrase))
                if not holders:
                    del table[key]
        for doc_id in self._by_server.pop(name, []):
            indexed = self.tools.pop(doc_id)
            for field_name in FIELDS:
                self.fields[field_name].remove(doc_id, indexed.fields[field_name], indexed.lengths[field_name])
            self.doc_freq.subtract(_distinct_terms(indexed.fields.values()))
            self.cjk_tools -= indexed.has_cjk
            self.named_after_server.discard(doc_id)
            for key in _name_keys(indexed.entry):
                holders = self.name_keys.get(key)
                if holders is not None:
                    holders.discard(doc_id)
                    if not holders:
                        del self.name_keys[key]
        self.doc_freq = +self.doc_freq  # drop terms no tool has any more
        self.term_scores.clear()
        self.version += 1

    def _server_words(self, server: str) -> set[str]:
        words: set[str] = set()
        for doc_id in self._by_server.get(server, ()):
            for field_name in ("name", "title", "description"):
                words.update(self.tools[doc_id].fields[field_name])
        return words

    def server_names(self) -> list[str]:
        return list(self.servers)

    def server_of_id(self, server_id: int) -> str:
        return self._server_by_id[server_id]

    def tool_ids(self, server: str) -> list[int]:
        return self._by_server.get(server, [])

    def vocabulary(self) -> Iterable[str]:
        for postings in self.fields.values():
            yield from postings.postings

    def _allocate(self) -> int:
        self._next_id += 1
        return self._next_id


def _distinct_terms(fields: Iterable[Counter[str]]) -> set[str]:
    terms: set[str] = set()
    for counts in fields:
        terms.update(counts)
    return terms


def name_key(text: str) -> str:
    """A name with case and separators removed: `Get-Sum`, `get_sum` and `getSum` all become `getsum`."""
    return _NOT_ALNUM.sub("", text.lower())


def _name_keys(entry: ToolEntry) -> set[str]:
    return {key for key in (name_key(entry.name), name_key(f"{entry.server}.{entry.name}")) if key}
