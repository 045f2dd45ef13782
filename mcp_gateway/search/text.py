"""Text to search terms, the same for documents and queries: identifiers split on `_ - . /` and camelCase, English
words lower-cased and lightly stemmed (Porter's step 1 and final-e rule, without full Porter's over-stemming of
`general` and `generate` to one stem), stop words dropped, and CJK runs read as their characters and bigrams, so
Chinese matches without a word segmenter.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain

MAX_JOINED_LENGTH = 24
"""Longer mixed-case runs (hashes, base64) get no joined term. By hand in 9ddc802. Measured: 16 → .449/.784/.571,
.573; 32 → unchanged."""
MIN_STEM_LENGTH = 4
"""Shorter words are not stemmed (`bus`, `gas`). By hand in 9ddc802. Measured: 3 → task R@5 .565; 5 →
.451/.786/.572, .573 (task MRR .438 → .433)."""

MAX_CACHED_RUNS = 32_768
"""Distinct runs whose terms are kept: catalog-xl.json's 5,645 tools have 17,073."""

NOT_STEMMED = frozenset(
    """
        news series species canvas alias atlas bias gas chaos analysis basis thesis axis physics mathematics
    """.split()
)
"""Words Porter's plural rule would break (`news` is not the plural of `new`)."""

_CJK_RANGES = (
    ("\u3040", "\u30ff"),  # Japanese kana
    ("\u3400", "\u4dbf"),  # CJK extension A
    ("\u4e00", "\u9fff"),  # CJK unified ideographs
    ("\uac00", "\ud7af"),  # Hangul syllables
    ("\uf900", "\ufaff"),  # CJK compatibility ideographs
)
_CJK_CLASS = "".join(f"{lo}-{hi}" for lo, hi in _CJK_RANGES)
_CJK_CHAR = re.compile(f"[{_CJK_CLASS}]")
_RUN = re.compile(rf"[{_CJK_CLASS}]+|[A-Za-z0-9]+")
_ASCII_RUN = re.compile(r"[A-Za-z0-9]+")
"""`_RUN` for a text without CJK (most of them): the same runs, a quarter sooner without the alternation."""
_PLURAL_ACRONYM = re.compile(r"[A-Z]{2,}s")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

STOP_WORDS = frozenset(
    """
        a an and any are as at be been being but by can could do does for from had has have how i if in into
        is it its me my of on or our please should so some than that the their them then there these this
        those to us was we were what when where which while who whom why will with would you your yours also
        just all about via using use used uses want wants need needs help let lets like able given specified
        specific provided
        m s ve re ll d t
    """.split()
)
"""English function words and the filler of requests (`please`, `want`, `using`), by hand in 9ddc802. The last line
is what contractions leave split at the apostrophe (I'm, don't), added in issue 14: task R@5 .603 → .611 (MRR .447
→ .452), all else unchanged."""
CJK_FILLER = frozenset("的了把个这那是在和与或我你他她它们请吗呢吧啊呀嗯就都也还很")
"""Particles and pronouns whose single characters carry no meaning for search (their bigrams still count)."""


@dataclass(frozen=True)
class Terms:
    """`words` in order (with duplicates) and the raw CJK runs, for the lexicon."""

    words: tuple[str, ...]
    cjk_runs: tuple[str, ...]


MAX_LEAD_CHARS = 300
"""A description's first sentence is cut at this length (one without full stops is read no further)."""
_SENTENCE_END = re.compile(r"(?<=[.!?])\s|(?<=[。！？])|\n")


def lead_sentence(description: str) -> str:
    """A description's first sentence, which says what the tool does to what; the rest says how to call it."""
    return _SENTENCE_END.split(description.strip()[:MAX_LEAD_CHARS], maxsplit=1)[0]


def is_cjk(text: str) -> bool:
    return _CJK_CHAR.search(text) is not None


def split_identifier(text: str) -> list[str]:
    """`list_issues`, `getUserInfo`, `web-search.v2` → their lower-case parts."""
    parts: list[str] = []
    for run in _RUN.findall(text):
        if is_cjk(run[0]):
            parts.append(run)
        else:
            parts.extend(piece.lower() for piece in _CAMEL.findall(run))
    return parts


@lru_cache(maxsize=32_768)
def analyze(text: str) -> Terms:
    """Normalized search terms of `text`; CJK runs are kept whole in `cjk_runs` as well as n-grammed."""
    ascii_only = text.isascii()
    runs = (_ASCII_RUN if ascii_only else _RUN).findall(text)
    # A run's terms depend on the run alone, and a catalog repeats its words about ten times over (10,454
    # distinct runs among 101,690 on catalog.json): looked up, not worked out again, most words cost a lookup.
    words = tuple(chain.from_iterable(map(_RUN_TERMS.__getitem__, runs)))
    cjk_runs = () if ascii_only else tuple(run for run in runs if not run.isascii())
    return Terms(words, cjk_runs)


def forget_analyses() -> None:
    analyze.cache_clear()
    _RUN_TERMS.clear()


class _RunTerms(dict[str, tuple[str, ...]]):
    """Each distinct run's terms, worked out once: a plain dict's lookup, a third cheaper than `lru_cache`'s."""

    def __missing__(self, run: str) -> tuple[str, ...]:
        if len(self) >= MAX_CACHED_RUNS:
            self.clear()
        terms = self[run] = _terms_of_run(run)
        return terms


_RUN_TERMS = _RunTerms()


def _terms_of_run(run: str) -> tuple[str, ...]:
    """The terms of one run of `_RUN` (all ASCII letters and digits, or all CJK), in order."""
    if not run.isascii():
        return tuple(cjk_ngrams(run))
    if run.islower() and run.isalpha():  # the common case: an ordinary lower-case word
        return () if run in STOP_WORDS else (stem(run),)
    if _PLURAL_ACRONYM.fullmatch(run):  # `PRs`, `URLs`, `IDs`: an acronym in the plural, not two words
        return (stem(run[:-1].lower()),)
    words: list[str] = []
    pieces = _CAMEL.findall(run)
    if len(pieces) > 1 and len(run) <= MAX_JOINED_LENGTH:
        # `GitHub`, `k8s`, `getUserInfo`: users type the whole word as often as its parts.
        words.append(stem(run.lower()))
    for piece in pieces:
        word = piece.lower()
        if word in STOP_WORDS or (len(word) == 1 and len(pieces) > 1):
            continue  # the `k` and `s` of `k8s` match every stray letter in the catalog
        words.append(stem(word))
    return tuple(words)


def lengths_by_first_character(words: Iterable[str], longest: int) -> dict[str, tuple[int, ...]]:
    """A character → the lengths of `words` (up to `longest`) that begin with it, longest first."""
    lengths: dict[str, set[int]] = {}
    for word in words:
        if len(word) <= longest:
            lengths.setdefault(word[0], set()).add(len(word))
    return {character: tuple(sorted(found, reverse=True)) for character, found in lengths.items()}


def longest_matches(run: str, words: Container[str], lengths: Mapping[str, tuple[int, ...]]) -> list[tuple[int, str]]:
    """(start, word) for each of `words` in a CJK run, the longest at each position."""
    found: list[tuple[int, str]] = []
    position = 0
    while position < len(run):
        for length in lengths.get(run[position], ()):
            piece = run[position : position + length]
            if position + length <= len(run) and piece in words:
                found.append((position, piece))
                position += length - 1
                break
        position += 1
    return found


def cjk_ngrams(run: str) -> list[str]:
    grams = [ch for ch in run if ch not in CJK_FILLER]
    grams.extend(run[i : i + 2] for i in range(len(run) - 1))
    return grams


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """Porter's step 1 (plurals, -ed, -ing, y→i) and step 5a (final e), for English words only."""
    if len(word) < MIN_STEM_LENGTH or not word.isalpha() or not word.isascii() or word in NOT_STEMMED:
        return word
    # Each step's rules all end in these suffixes, which most words have not: they skip the step's tests.
    if word.endswith("s"):
        word = _step_1a(word)
    if word.endswith(("ed", "ing")):
        word = _step_1b(word)
    if word.endswith("y") and _has_vowel(word[:-1]) and len(word) > 2:
        word = word[:-1] + "i"
    if word.endswith("e") and len(word) > MIN_STEM_LENGTH - 1:
        measure = _measure(word[:-1])
        if measure > 1 or (measure == 1 and not _ends_cvc(word[:-1])):
            word = word[:-1]
    return word


def _step_1a(word: str) -> str:
    if word.endswith(("sses", "ies")):
        return word[:-2]
    if word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("s"):
        return word[:-1]
    return word


def _step_1b(word: str) -> str:
    if word.endswith("eed"):
        return word[:-1] if _measure(word[:-3]) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            base = word[: -len(suffix)]
            if base.endswith(("at", "bl", "iz")):
                return base + "e"
            if len(base) > 1 and base[-1] == base[-2] and base[-1] not in "lsz" and not _is_vowel(base, len(base) - 1):
                return base[:-1]
            if _measure(base) == 1 and _ends_cvc(base):
                return base + "e"
            return base
    return word


def _is_vowel(word: str, i: int) -> bool:
    ch = word[i]
    if ch in "aeiou":
        return True
    return ch == "y" and i > 0 and not _is_vowel(word, i - 1)


def _has_vowel(word: str) -> bool:
    return any(_is_vowel(word, i) for i in range(len(word)))


def _measure(word: str) -> int:
    """Porter's m: the number of vowel-consonant sequences."""
    count = 0
    previous_vowel = False
    for i in range(len(word)):
        vowel = _is_vowel(word, i)
        if previous_vowel and not vowel:
            count += 1
        previous_vowel = vowel
    return count


def _ends_cvc(word: str) -> bool:
    if len(word) < 3:
        return False
    return (
        not _is_vowel(word, len(word) - 1)
        and _is_vowel(word, len(word) - 2)
        and not _is_vowel(word, len(word) - 3)
        and word[-1] not in "wxy"
    )
