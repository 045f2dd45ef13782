"""A compact bilingual lexicon of what tool catalogs talk about: actions, objects and their abbreviations.

Each line of `lexicon-concepts.txt` is one concept: English words or phrases and Chinese words that mean the
same thing in a tool description or a request for one. Both documents and queries are mapped through it
(symmetrically), into a separate concept field, so `remove a repo` meets `delete_repository`, and
`把这个仓库的 issue 列出来` meets `list_issues` ("List issues in a GitHub repository"). Exact words still score in
their own fields, so a synonym never outranks the word itself.

Two glossaries hold the words the lexicon's hundred concepts miss, chosen from the words of `catalog-xl.json` by
`benchmarks/glossary_words.py`, never from requests. `glossary-zh.txt` (`english: 中文 中文`) gives the Chinese
words users write for a catalog word (a Quran server, tensors, browser tabs): it adds English words to a Chinese
text's terms but no concept, and is read apart from the lexicon, so a long glossary word (`删除文件`) never hides
a lexicon word it contains. `glossary-en.txt` (`delete: wipe get+rid+of`) gives the everyday English words; it is
read on the request's side only, weighing less than typed words (`query.EVERYDAY_WEIGHT`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from typing import TypeVar

from mcp_gateway.search.text import CJK_FILLER, STOP_WORDS, analyze, lengths_by_first_character, longest_matches, stem

_K = TypeVar("_K")

CONCEPT_PREFIX = "~"
"""Marks a concept token (`~delete`), so it never meets a word spelled like it."""
TOPICAL = frozenset(
    """
    location map browser crypto finance database kubernetes status date restaurant audio travel web news stock
    """.split()
)
"""Groups of related things rather than synonyms (bitcoin and ethereum): a match through them says the tool is on
topic, not that it does what was asked."""
ACTION_CONCEPTS = frozenset(
    """
    delete create update get read write list search run stop close open send download upload copy move compare
    convert translate summarize analyze calculate validate schedule navigate click type_text screenshot login
    """.split()
)
"""The groups of what a tool does (its verbs); the others are of what it does it to or about (its objects)."""
CROSSING_BIGRAM_WEIGHT = 0.3
"""A bigram straddling two lexicon words (`取文` in 读取|文件) is an accident of order, not a word. By hand in
b7d2fc1. Measured: 0.1 → unchanged; 0.6 → .449/.784/.571, .573."""
MAX_CJK_WORD = 5
"""The longest piece of a CJK run looked up: at least the lexicon's longest word (电子邮件)."""

CONCEPTS_FILE = "lexicon-concepts.txt"
ABBREVIATIONS_FILE = "lexicon-abbreviations.txt"

MAX_CACHED_CJK_RUNS = 4096
"""CJK runs whose lexicon words and translations are kept: catalog-xl.json has 1,634, each read twice or more."""

_WORD = re.compile(r"[a-z0-9+]+")


@dataclass(frozen=True)
class _Tables:
    singles: dict[str, tuple[str, ...]]
    """English stem (or two in a row: `pairs`, or a Chinese word: `chinese`) → concepts."""
    pairs: dict[tuple[str, str], tuple[str, ...]]
    pair_starts: frozenset[str]
    chinese: dict[str, tuple[str, ...]]
    segmented: frozenset[str]
    """The Chinese words a run is read for (`_segmented_words`)."""
    segmented_lengths: dict[str, tuple[int, ...]]
    translations: dict[str, tuple[str, ...]]
    """Chinese word → the English stems it translates to."""
    abbreviations: dict[str, tuple[str, ...]]
    actions: frozenset[str]
    """Stems in an action group only (`message` is in `send`'s group and `message`'s, so it is an object)."""


@lru_cache(maxsize=1)
def _tables() -> _Tables:
    singles: dict[str, set[str]] = {}
    pairs: dict[tuple[str, str], set[str]] = {}
    chinese: dict[str, set[str]] = {}
    translations: dict[str, set[str]] = {}
    for concept, members in data_lines(CONCEPTS_FILE):
        english, _, zh = members.partition("|")
        tag = CONCEPT_PREFIX + concept
        for phrase in _english_phrases(english):
            stems = tuple(stem(word) for word in phrase)
            if len(stems) == 1:
                singles.setdefault(stems[0], set()).add(tag)
            elif len(stems) == 2:
                pairs.setdefault((stems[0], stems[1]), set()).add(tag)
        for entry in zh.split():
            word, _, english_word = entry.partition("=")
            chinese.setdefault(word, set()).add(tag)
            # A word without its own translation means what the concept is named (`pull_request` → pull request).
            words = english_word.split("+") if english_word else concept.split("_")
            translations.setdefault(word, set()).update(stem(w) for w in words)
    abbreviations: dict[str, set[str]] = {}
    for long, shorts in data_lines(ABBREVIATIONS_FILE):
        for abbreviation in shorts.split():
            abbreviations.setdefault(stem(abbreviation), set()).update(stem(word) for word in long.split("+"))
    segmented = _segmented_words(chinese)
    actions = frozenset(
        word
        for word, concepts in singles.items()
        if all(concept.removeprefix(CONCEPT_PREFIX) in ACTION_CONCEPTS for concept in concepts)
    )
    return _Tables(
        _frozen(singles),
        _frozen(pairs),
        frozenset(first for first, _ in pairs),
        _frozen(chinese),
        segmented,
        lengths_by_first_character(segmented, MAX_CJK_WORD),
        _frozen(translations),
        _frozen(abbreviations),
        actions,
    )


def _segmented_words(chinese: Iterable[str]) -> frozenset[str]:
    """The Chinese words a run is read for: a filler character (的, 了) is grammar, never a word of its own."""
    return frozenset(word for word in chinese if not (len(word) == 1 and word in CJK_FILLER))


def is_action(word: str) -> bool:
    """Whether an English stem only names an action (`delete`, `add`, `fetch`), not a thing acted on."""
    return word in _tables().actions


def lexicon_chinese_words() -> frozenset[str]:
    return frozenset(_tables().chinese)


def _frozen(table: dict[_K, set[str]]) -> dict[_K, tuple[str, ...]]:
    return {key: tuple(sorted(value)) for key, value in table.items()}


def _english_phrases(text: str) -> list[list[str]]:
    """Words, and two-word phrases written `pull+request` (their words alone do not carry the concept)."""
    return [entry.split("+") for entry in _WORD.findall(text.lower())]


def concepts_of(words: tuple[str, ...], cjk_runs: tuple[str, ...]) -> list[str]:
    """Concept tokens for analyzed words (stems, in order) and raw CJK runs."""
    tables = _tables()
    found: list[str] = []
    for index, word in enumerate(words):
        concepts = tables.singles.get(word)
        if concepts:
            found.extend(concepts)
        # Few words start a two-word phrase (`pull`, `sign`, `look`…): the others skip building a pair to look up.
        if word in tables.pair_starts and index + 1 < len(words):
            found.extend(tables.pairs.get((word, words[index + 1]), ()))
    for run in cjk_runs:
        for word in chinese_words(run):
            found.extend(tables.chinese[word])
    return found


def translations_of(cjk_runs: tuple[str, ...]) -> list[str]:
    """English stems for the lexicon and glossary words in CJK runs: `读取文件` → read, file; `标签页` → tab."""
    return [english for run in cjk_runs for english in _run_translations(run)]


@lru_cache(maxsize=MAX_CACHED_CJK_RUNS)
def _run_translations(run: str) -> tuple[str, ...]:
    translations = _tables().translations
    stems = [english for word in chinese_words(run) for english in translations[word]]
    known = set(stems)
    stems.extend(english for english in dict.fromkeys(glossary_translations(run)) if english not in known)
    return tuple(stems)


MEASURE_PHRASE = re.compile("一[个条张封份篇首部件本台次下位些点]|个(?!人)")
"""A number and measure word inside a verb-object phrase (`截个图`, `发一封邮件`): read the phrase without it too."""


def expansions_of(words: tuple[str, ...]) -> list[str]:
    """The words abbreviations stand for: `pr` → pull, request."""
    abbreviations = _tables().abbreviations
    if abbreviations.keys().isdisjoint(words):
        return []  # most texts have none: found without a lookup per word in Python
    return [long for word in words for long in abbreviations.get(word, ())]


@lru_cache(maxsize=MAX_CACHED_CJK_RUNS)
def chinese_words(run: str) -> tuple[str, ...]:
    """The lexicon words inside a CJK run, longest first at each position; also read without number-and-measure
    words, whose longer words (截图 in 截个图) replace the pieces they contain."""
    compact = MEASURE_PHRASE.sub("", run)
    if compact == run:
        return tuple(_segment(run))
    found = _segment(compact)
    found.extend(word for word in _segment(run) if word not in found and not any(word in longer for longer in found))
    return tuple(found)


def _segment(run: str) -> list[str]:
    return [word for _, word in segment_spans(run)]


def segment_spans(run: str) -> list[tuple[int, str]]:
    tables = _tables()
    return longest_matches(run, tables.segmented, tables.segmented_lengths)


def cjk_units(run: str) -> list[str]:
    """A CJK run as units of meaning: its lexicon words, the glossary words of the stretches between them, and the
    bigrams of what is left (single characters only where nothing longer exists).

    A stretch read as bigrams alone yields pieces that straddle two words (`些字`, `段会` in `哪些字段会`): no tool
    has them, so they read as what the request asks for that no server here is about, and a right hit for a
    Chinese request explained less than it does."""
    units = list(chinese_words(run))
    covered = [False] * len(run)
    for start, word in segment_spans(run):
        for position in range(start, start + len(word)):
            covered[position] = True
    stretch = ""
    for position, character in enumerate([*run, ""]):
        if character and not covered[position] and character not in CJK_FILLER:
            stretch += character
            continue
        units.extend(_stretch_units(stretch))
        stretch = ""
    return list(dict.fromkeys(units))


def _stretch_units(stretch: str) -> list[str]:
    """The glossary words of a stretch no lexicon word covers, and the bigrams (or lone character) of each piece
    between them."""
    units: list[str] = []
    rest = 0
    for start, word in [*longest_matches(stretch, glossary(), _glossary_lengths()), (len(stretch), "")]:
        piece = stretch[rest:start]
        units.extend([piece] if len(piece) == 1 else [piece[i : i + 2] for i in range(len(piece) - 1)])
        if word:
            units.append(word)
        rest = start + len(word)
    return units


def bigram_weights(run: str) -> dict[str, float]:
    """The run's bigrams' weights: `CROSSING_BIGRAM_WEIGHT` for one spanning two lexicon words, else 1."""
    owner = [-1] * len(run)
    for index, (start, word) in enumerate(segment_spans(run)):
        for position in range(start, start + len(word)):
            owner[position] = index
    weights: dict[str, float] = {}
    for position in range(len(run) - 1):
        left, right = owner[position], owner[position + 1]
        crossing = left != right and left >= 0 and right >= 0
        bigram = run[position : position + 2]
        weight = CROSSING_BIGRAM_WEIGHT if crossing else 1.0
        weights[bigram] = max(weights.get(bigram, 0.0), weight)
    return weights


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
