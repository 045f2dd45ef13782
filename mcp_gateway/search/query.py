"""A query as weighted terms: its own words, their lexicon concepts, and typo corrections.

Weights say how much a term is evidence of intent: a generic verb (`get`, `list`, `search`) says little
about which tool is wanted, a single CJK character less than a CJK word, a typo correction less than a
word the user actually typed. Typos are corrected against the index vocabulary with rapidfuzz, only for
words the index has never seen, so a correct rare word is never "corrected" into a common one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from mcp_gateway.search.lexicon import CONCEPT_PREFIX, concepts_of
from mcp_gateway.search.text import analyze, is_cjk, split_identifier, stem

GENERIC_WEIGHT = 0.35
CONCEPT_WEIGHT = 0.7
CJK_CHAR_WEIGHT = 0.4
TYPO_MIN_LENGTH = 4
TYPO_MIN_SIMILARITY = 80.0
TYPO_WEIGHT = 0.7
TYPO_CANDIDATES = 2
VALUE_WEIGHT = 0.3
"""Words inside a value (a path, a URL, a quoted text, a number) are mostly what the tool works on, not which tool."""
SITE_WEIGHT = 0.8
HOST_NOISE = frozenset("www m api app mobile com net org io co cn uk de fr jp edu gov info dev ai me tv".split())
FILE_EXTENSIONS = frozenset(
    """
        py js ts tsx jsx java go rs rb php c h cpp cs swift kt md txt rst csv tsv json jsonl yaml yml toml ini cfg
        conf env xml html htm css scss sql sh bash ps1 bat log pdf doc docx xls xlsx ppt pptx odt png jpg jpeg gif
        svg webp bmp ico mp3 mp4 wav ogg flac mov avi mkv zip tar gz tgz bz2 7z rar whl ipynb parquet db sqlite
    """.split()
)

GENERIC_WORDS = frozenset(
    stem(word)
    for word in """
        get list search find fetch retrieve return returns show make do run query info information data
        details tool tools result results value values item items current new one two specified given based
        provide provides
    """.split()
)


@dataclass(frozen=True)
class QueryTerm:
    term: str
    weight: float
    kind: str
    """`word`, `concept`, `value` or `typo`; a typo term remembers what was typed in `typed`."""
    typed: str | None = None

    @property
    def is_concept(self) -> bool:
        return self.term.startswith(CONCEPT_PREFIX)


@dataclass(frozen=True)
class Value:
    """A literal the query carries for the tool to use (a path, a URL, a quoted string), not its intent."""

    text: str
    hint: str | None
    """The concept the value's kind implies: a URL is about the web, a path about files."""
    site_words: tuple[str, ...] = ()
    """A URL's host names the service it belongs to (`github`, `bilibili`), which is intent, not a value."""


_VALUE = re.compile(
    r"""
    (?P<url>\b(?:https?|ftp|file|s3|gs|wss?)://[^\s'"<>)\]]+ | \bwww\.[^\s'"<>)\]]+)
  | (?P<email>\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+)
  | (?P<path>(?<![\w/])(?:~|\.{1,2})?/[\w.@~+-]+(?:/[\w.@~+-]*)* | \b[A-Za-z]:\\\S+
            | \b[\w.-]+(?:/[\w.@~+-]+)+ | \b[\w-]+\.(?:%(extensions)s)\b)
  | (?P<quoted>(?<!\w)'[^'\n]{1,200}'(?!\w) | "[^"\n]{1,200}" | `[^`\n]{1,200}` | “[^”\n]{1,200}”)
  | (?P<selector>(?<![\w/.])[#.][A-Za-z_][\w-]*)
    """
    % {"extensions": "|".join(sorted(FILE_EXTENSIONS))},
    re.VERBOSE,
)
_HINTS = {"url": CONCEPT_PREFIX + "web", "email": CONCEPT_PREFIX + "email", "path": CONCEPT_PREFIX + "file"}


def split_values(text: str) -> tuple[str, list[Value]]:
    """The query with its literal values cut out, and those values (each with the concept its kind implies)."""
    values: list[Value] = []

    def cut(match: re.Match[str]) -> str:
        values.append(_value(match.group(0), match.lastgroup or ""))
        return " "

    return _VALUE.sub(cut, text), values


def _value(text: str, kind: str) -> Value:
    if kind == "quoted":
        inner = _VALUE.fullmatch(text[1:-1].strip())
        if inner is not None and inner.lastgroup != "quoted":
            return _value(inner.group(0), inner.lastgroup or "")
    if kind == "url":
        host = re.sub(r"^[a-z0-9]+://", "", text.lower()).split("/", 1)[0].split(":", 1)[0]
        labels = tuple(
            stem(label) for label in host.split(".") if label and label not in HOST_NOISE and label.isalpha()
        )
        return Value(text, _HINTS[kind], labels)
    return Value(text, _HINTS.get(kind))


@dataclass(frozen=True)
class ParsedQuery:
    text: str
    terms: tuple[QueryTerm, ...]
    words: tuple[str, ...]
    """The query's own analyzed words, in order (for server-name and confidence checks)."""
    surface: dict[str, str]
    """Analyzed word → the word as typed, to explain matches in the user's words."""


def parse_query(text: str, known: Callable[[str], bool], vocabulary: Callable[[], list[str]]) -> ParsedQuery:
    """Weighted terms for `text`; `known(term)` tells whether the index has a term, `vocabulary()` lists them."""
    intent, values = split_values(text)
    analyzed = analyze(intent)
    if not analyzed.words:  # the query is nothing but a value (a path, a quoted name): take it at its word
        intent, values = text, []
        analyzed = analyze(intent)
    weights: dict[str, QueryTerm] = {}

    def add(term: QueryTerm) -> None:
        current = weights.get(term.term)
        if current is None or current.weight < term.weight:
            weights[term.term] = term

    for word in analyzed.words:
        if is_cjk(word):
            add(QueryTerm(word, CJK_CHAR_WEIGHT if len(word) == 1 else 1.0, "word"))
        elif word.isdigit():
            add(QueryTerm(word, VALUE_WEIGHT, "value"))
        else:
            add(QueryTerm(word, GENERIC_WEIGHT if word in GENERIC_WORDS else 1.0, "word"))
    for concept in concepts_of(analyzed.words, analyzed.cjk_runs):
        add(QueryTerm(concept, CONCEPT_WEIGHT, "concept"))
    for value in values:
        for word in analyze(value.text).words:
            add(QueryTerm(word, VALUE_WEIGHT, "value"))
        for word in value.site_words:
            add(QueryTerm(word, SITE_WEIGHT, "word"))
        if value.hint is not None:
            add(QueryTerm(value.hint, CONCEPT_WEIGHT, "concept"))
    unknown = [w for w in dict.fromkeys(analyzed.words) if len(w) >= TYPO_MIN_LENGTH and w.isalpha() and not known(w)]
    if unknown:
        choices = vocabulary()
        for word in unknown:
            for candidate, similarity, _ in process.extract(
                word, choices, scorer=fuzz.ratio, limit=TYPO_CANDIDATES, score_cutoff=TYPO_MIN_SIMILARITY
            ):
                add(QueryTerm(candidate, TYPO_WEIGHT * similarity / 100.0, "typo", typed=word))
                for concept in concepts_of((candidate,), ()):
                    add(QueryTerm(concept, CONCEPT_WEIGHT * TYPO_WEIGHT, "concept"))
    surface = {stem(part): part for part in split_identifier(text) if not is_cjk(part)}
    return ParsedQuery(text, tuple(weights.values()), analyzed.words, surface)
