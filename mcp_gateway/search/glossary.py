"""Two glossaries of the words tool catalogs use: the Chinese words, and the everyday English words, users write
for them.

The lexicon (`lexicon.py`) maps about a hundred concepts between the languages; a Chinese request about
anything else (a Quran server, tensors, a dropdown, browser tabs) had no way to meet the English words of the
tool that serves it. `glossary-zh.txt` is that missing half: one line per catalog word, `english: 中文 中文`,
chosen from the words of `catalog-xl.json`'s tool names, server names and descriptions by
`benchmarks/glossary_words.py`, never from benchmark requests.

A glossary word only translates: it adds English words to a Chinese text's terms, as the lexicon's Chinese
words do, but no concept. A CJK run is read for glossary words on its own, longest word first at each
position, apart from the lexicon's reading, so a long glossary word (`删除文件`) never hides a lexicon word it
contains from the concepts.

`glossary-en.txt` does the same within English: a line per catalog word, `delete: wipe get+rid+of`, the
everyday words and phrases a request uses meaning the same thing, chosen from the same list. It is read on the
request's side only (the catalog already says `delete`), and what it adds weighs less than the words a user
typed (`query.EVERYDAY_WEIGHT`).
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
"""The longest Chinese word looked for, in characters: the longest the glossary holds (its test keeps every
word within it), a bound on the reading's cost, not a tuning."""


def data_lines(name: str) -> Iterator[tuple[str, str]]:
    """The `word: entries` lines of one of the package's glossaries, as (word, entries), comments left out."""
    for raw in files("mcp_gateway.search").joinpath(name).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            word, _, entries = line.partition(":")
            yield word, entries


@lru_cache(maxsize=1)
def glossary() -> dict[str, tuple[str, ...]]:
    """Chinese word → the English stems it stands for, read once from the package's glossary file."""
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
    """The English glossary, read: what a request's everyday words stand for in a catalog's words (stems)."""

    singles: dict[str, tuple[str, ...]]
    """An everyday word → the catalog words it means (`wipe` → delete)."""
    phrases: dict[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]]
    """A phrase's first word → (the phrase's words, the catalog words it means): `get rid of` → delete. A phrase
    keeps its small words (`how much`, `out loud`): without them it would be another, looser entry."""


@lru_cache(maxsize=1)
def everyday() -> Everyday:
    """The package's English glossary (`catalogword: everyday two+word+phrase`), read once, as stems."""
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
    """The catalog words that a request's everyday words and phrases stand for; `usage(word)` is how many tools use
    a word.

    A word is read as a catalog word only where the catalog uses that word more than the word itself: `folder` is
    read as directory, but `start`, which tools say as often as `launch`, is not read as launch too. A chatty
    request is mostly words the catalog also uses, and reading each of them as its synonyms only adds noise.
    Phrases are specific enough (`get rid of`) to be read always.
    """
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
