"""Chinese typos read as the word meant: a character of the same pinyin typed for the right one.

Chinese users type through pinyin input methods, so a Chinese typo is mostly another character under the same
syllable (后腿 for 后退, 数剧 for 数据) or under one the input method's fuzzy setting puts together (跟新 for 更新,
gen for geng). Such a word is in neither the lexicon nor the glossary, so the request loses its key word.

A window of 2 to 5 characters of a CJK run is read as the known word (lexicon or glossary) of the same reading
(toneless syllables, the fuzzy pairs below, the typed characters by their first reading) that differs from it in
at most `max_differing` characters, all of them characters no known word of two characters or more covers: a word
typed right is never replaced (though it may be the right half of a mistyped longer word: 提供尚 for 提供商). Nor is
a window read that cuts such a word in two (文想 of 推文想换): a word typed right says where the words of the run
begin and end. Longer windows first, corrections never overlap, at most `MAX_WINDOWS` per run. Readings come from
`pinyin-zh.txt` (made by `benchmarks/pinyin_table.py`), indexed on the first Chinese request.

Fuzzy pairs: the common input methods all offer z/zh, c/ch, s/sh and an/ang, en/eng, in/ing as fuzzy settings,
since many speakers (most south of the Yangtze) do not tell them apart. l/n and f/h are regional and pair some of
the most frequent syllables (le/ne, fei/hei): reading them alike would turn correct words into false corrections
more often than it would catch a typo, so they are left out.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

from mcp_gateway.search.lexicon import MEASURE_PHRASE, glossary, lexicon_chinese_words
from mcp_gateway.search.text import CJK_FILLER

PINYIN_FILE = "pinyin-zh.txt"
MIN_WINDOW = 2
"""A single character has too many homophones to say which word was meant."""
MAX_WINDOW = 5
"""The longest known word (the glossary's `MAX_GLOSSARY_WORD`)."""
MAX_WINDOWS = 256
"""Windows read per CJK run, a bound on cost: every window of a 65-character run, longer than everyday requests'."""
MAX_READINGS = 16
"""Readings indexed per known word over its characters' heteronyms: a five-character word of three-reading
characters would otherwise have 243."""
_INITIALS = (("zh", "z"), ("ch", "c"), ("sh", "s"))
_FINALS = (("ang", "an"), ("eng", "en"), ("ing", "in"))


def fuzzy(syllable: str) -> str:
    """zh/ch/sh as z/c/s, -ang/-eng/-ing as -an/-en/-in."""
    for retroflex, flat in _INITIALS:
        if syllable.startswith(retroflex):
            syllable = flat + syllable[len(retroflex) :]
            break
    for velar, dental in _FINALS:
        if syllable.endswith(velar):
            return syllable[: -len(velar)] + dental
    return syllable


NOT_TYPOS_KEY = "words"
"""The table's key for words that sound like a known word but are not typos of it."""


@dataclass(frozen=True)
class PinyinTable:
    readings: dict[str, tuple[str, ...]]
    """Character → its fuzzy toneless readings, its first (most common) reading first."""
    not_typos: frozenset[str]
    """Words common in their own right (一下 beside 以下, 超市 beside 超时): a request saying them means them."""

    def word_readings(self, word: str) -> list[str]:
        """A known word's readings (syllables joined by spaces), at most `MAX_READINGS`; none if a character has no
        reading in the table."""
        options: list[tuple[str, ...]] = []
        for character in word:
            heard = self.readings.get(character)
            if heard is None:
                return []
            options.append(heard)
        return [" ".join(syllables) for syllables in itertools.islice(itertools.product(*options), MAX_READINGS)]

    def typed_reading(self, window: str) -> str | None:
        """What a user typed to get `window`: each character's first reading (an input method lists a character far
        down under its others: 数 under shuo)."""
        syllables: list[str] = []
        for character in window:
            heard = self.readings.get(character)
            if heard is None:
                return None
            syllables.append(heard[0])
        return " ".join(syllables)


def parse_table(text: str) -> PinyinTable:
    """`syllable: first | other` lines and `words: ...` lines."""
    first: dict[str, str] = {}
    other: dict[str, list[str]] = {}
    not_typos: set[str] = set()
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, _, characters = line.partition(":")
        if key.strip() == NOT_TYPOS_KEY:
            not_typos.update(characters.split())
            continue
        heard = fuzzy(key.strip())
        firsts, _, others = characters.partition("|")
        for character in firsts.strip():
            first[character] = heard
        for character in others.strip():
            other.setdefault(character, []).append(heard)
    readings = {
        character: tuple(dict.fromkeys([heard, *other.get(character, ())])) for character, heard in first.items()
    }
    return PinyinTable(readings, frozenset(not_typos))


@lru_cache(maxsize=1)
def pinyin_table() -> PinyinTable:
    return parse_table(files("mcp_gateway.search").joinpath(PINYIN_FILE).read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def known_words() -> frozenset[str]:
    """The words a request's Chinese is read through: the lexicon's and the glossary's."""
    return frozenset(words_by_commonness())


@lru_cache(maxsize=1)
def words_by_commonness() -> tuple[str, ...]:
    """The known words, the likeliest meant first: the lexicon's, then the glossary's in its order."""
    return tuple(dict.fromkeys([*sorted(lexicon_chinese_words()), *glossary()]))


def build_reading_index(words: Iterable[str], table: PinyinTable) -> dict[str, tuple[str, ...]]:
    """Reading → the words of `MIN_WINDOW` to `MAX_WINDOW` characters that sound so, in the order given."""
    index: dict[str, list[str]] = {}
    for word in words:
        if MIN_WINDOW <= len(word) <= MAX_WINDOW:
            for reading in table.word_readings(word):
                index.setdefault(reading, []).append(word)
    return {reading: tuple(found) for reading, found in index.items()}


@lru_cache(maxsize=1)
def reading_index() -> dict[str, tuple[str, ...]]:
    return build_reading_index(words_by_commonness(), pinyin_table())


def sounds_like(
    typed: str, table: PinyinTable, index: dict[str, tuple[str, ...]], changeable: list[bool] | None = None
) -> str | None:
    """The indexed word `typed` sounds like that differs from it in fewest characters (`closest`)."""
    return closest(typed, index.get(table.typed_reading(typed) or "", ()), changeable or [True] * len(typed))


def max_differing(length: int) -> int:
    """One for words of two or three characters; two for four or five, whose whole reading is specific enough."""
    return 1 if length < 4 else 2


def homophone_corrections(run: str) -> list[tuple[str, str]]:
    """(typed, meant) for each window of `run` read as a known word it sounds like, longest windows first."""
    table, index = pinyin_table(), reading_index()
    words = _known_word_spans(run)
    uncovered = _uncovered(len(run), words)
    splits_a_word = _inside_a_word(len(run), words)
    taken = [False] * len(run)
    found: list[tuple[str, str]] = []
    for start, end in _windows(uncovered, _grammar(run)):
        if any(taken[start:end]) or splits_a_word[start] or splits_a_word[end]:
            continue
        typed = run[start:end]
        if typed in table.not_typos:
            continue
        meant = sounds_like(typed, table, index, uncovered[start:end])
        if meant is not None:
            found.append((typed, meant))
            taken[start:end] = [True] * (end - start)
    return found


def closest(typed: str, candidates: Iterable[str], changeable: list[bool]) -> str | None:
    """The candidate differing from `typed` in fewest characters (at least one, at most `max_differing`), all of
    them `changeable`; of equally close ones the first (知动 is read as 自动, a lexicon word, not 制动)."""
    best: tuple[int, str] | None = None
    for word in candidates:
        differing = [a != b for a, b in zip(typed, word, strict=True)]
        count = sum(differing)
        if not 0 < count <= max_differing(len(word)):
            continue
        changes_only_uncovered = all(may or not differs for may, differs in zip(changeable, differing, strict=True))
        if changes_only_uncovered and (best is None or count < best[0]):
            best = (count, word)
    return None if best is None else best[1]


def _windows(uncovered: list[bool], grammar: list[bool]) -> list[tuple[int, int]]:
    """(start, end) of the windows holding a character no known word covers and no grammar, longest first."""
    windows: list[tuple[int, int]] = []
    for size in range(min(MAX_WINDOW, len(uncovered)), MIN_WINDOW - 1, -1):
        for start in range(len(uncovered) - size + 1):
            if any(uncovered[start : start + size]) and not any(grammar[start : start + size]):
                windows.append((start, start + size))
                if len(windows) == MAX_WINDOWS:
                    return windows
    return windows


def _grammar(run: str) -> list[bool]:
    """For each character, whether it is grammar (的, 了, 一下, 一次), never part of a mistyped word."""
    grammar = [character in CJK_FILLER for character in run]
    for measure in MEASURE_PHRASE.finditer(run):
        grammar[measure.start() : measure.end()] = [True] * (measure.end() - measure.start())
    return grammar


def _known_word_spans(run: str) -> list[tuple[int, int]]:
    """(start, end) of every known word of two characters or more in `run`, overlapping too."""
    words = known_words()
    return [
        (start, start + size)
        for start in range(len(run))
        for size in range(MIN_WINDOW, min(MAX_WINDOW, len(run) - start) + 1)
        if run[start : start + size] in words
    ]


def _inside_a_word(length: int, words: list[tuple[int, int]]) -> list[bool]:
    """For each boundary (0 to `length`), whether it falls strictly inside a known word."""
    inside = [False] * (length + 1)
    for start, end in words:
        inside[start + 1 : end] = [True] * (end - start - 1)
    return inside


def _uncovered(length: int, words: list[tuple[int, int]]) -> list[bool]:
    """For each character, whether a correction may change it: not inside a known word of two characters or more
    (a one-character word such as 加 is as often part of a mistyped word, 股加, as a word of its own)."""
    uncovered = [True] * length
    for start, end in words:
        uncovered[start:end] = [False] * (end - start)
    return uncovered
