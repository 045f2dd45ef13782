"""Two glossaries of the words tool catalogs use: the Chinese words, and the everyday English words, users write
for them, chosen from the words of `catalog-xl.json` by `benchmarks/glossary_words.py`, never from requests.

`glossary-zh.txt` (`english: 中文 中文`) reaches the subjects the lexicon's hundred concepts miss (a Quran server,
tensors, browser tabs): a glossary word adds English words to a Chinese text's terms, but no concept, and is read
apart from the lexicon's reading, so a long glossary word (`删除文件`) never hides a lexicon word it contains.
`glossary-en.txt` (`delete: wipe get+rid+of`) is read on the request's side only, weighing less than typed words
(`query.EVERYDAY_WEIGHT`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

from mcp_gateway.search.text import STOP_WORDS, analyze, lengths_by_first_character, longest_matches, stem

GLOSSARY_FILE = "glossary-zh.txt"
MAX_GLOSSARY_WORD = 5
"""The longest Chinese word the glossary holds (its test keeps every word within it)."""


def data_lines(name: str) -> Iterator[tuple[str, str]]:
    """The `word: entries` lines of one of the package's data files, comments left out."""
    for raw in files("mcp_gateway.search").joinpath(name).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            word, _, entries = line.partition(":")
            yield word, entries


@lru_cache(maxsize=1)
def glossary() -> dict[str, tuple[str, ...]]:
    """Chinese word → the English stems it stands for."""
    found: dict[str, set[str]] = {}
    for english, chinese in data_lines(GLOSSARY_FILE):
        stems = {stem(word) for word in english.split()}
        for word in chinese.split():
            found.setdefault(word, set()).update(stems)
    return {word: tuple(sorted(stems)) for word, stems in found.items()}


def glossary_translations(run: str) -> list[str]:
    """English stems for the glossary words in a CJK run, longest word first at each position."""
    table = glossary()
    return [english for _, word in longest_matches(run, table, _glossary_lengths()) for english in table[word]]


@lru_cache(maxsize=1)
def _glossary_lengths() -> dict[str, tuple[int, ...]]:
    return lengths_by_first_character(glossary(), MAX_GLOSSARY_WORD)


EVERYDAY_FILE = "glossary-en.txt"
_PLAIN_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Everyday:
    """What a request's everyday words and phrases stand for in a catalog's words (stems)."""

    singles: dict[str, tuple[str, ...]]
    phrases: dict[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]]
    """A phrase's first word → (its words, small ones kept: `how much`; the catalog words it means)."""


@lru_cache(maxsize=1)
def everyday() -> Everyday:
    singles: dict[str, set[str]] = {}
    phrases: dict[tuple[str, ...], set[str]] = {}
    for catalog, entries in data_lines(EVERYDAY_FILE):
        meant = set(analyze(catalog).words)
        for entry in entries.split():
            words = [stem(word) for word in entry.split("+")]
            if len(words) > 1:
                phrases.setdefault(tuple(words), set()).update(meant)
            elif words[0] not in STOP_WORDS:
                singles.setdefault(words[0], set()).update(meant - {words[0]})
    by_first: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = {}
    for words, stems in phrases.items():
        by_first.setdefault(words[0], []).append((words, tuple(sorted(stems))))
    return Everyday(
        {word: tuple(sorted(stems)) for word, stems in singles.items() if stems},
        {word: tuple(found) for word, found in by_first.items()},
    )


def everyday_of(text: str, usage: Callable[[str], int]) -> list[str]:
    """The catalog words a request's everyday words and phrases stand for; `usage(word)` is how many tools use a
    word. A word is read so only where the catalog uses the other word more (`folder` as directory, not `start` as
    launch): a chatty request read through every synonym is noise. Phrases (`get rid of`) are read always."""
    table = everyday()
    words = tuple(stem(word) for word in _PLAIN_WORD.findall(text.lower()))
    found: list[str] = []
    for index, word in enumerate(words):
        meant = table.singles.get(word, ())
        if meant:
            own = usage(word)
            found.extend(catalog_word for catalog_word in meant if usage(catalog_word) > own)
        for phrase, stems in table.phrases.get(word, ()):
            if words[index : index + len(phrase)] == phrase:
                found.extend(stems)
    return list(dict.fromkeys(found))
