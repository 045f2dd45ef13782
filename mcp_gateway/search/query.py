"""A request read as weighted terms (its words, their concepts, translations and typo corrections), and as steps.

A weight says how much a term is evidence of intent: a generic verb (`get`) little, a typo correction less than a
typed word. Only words the index has never seen are corrected, so a correct rare word is never "corrected" into a
common one. "Generate a report on bitcoin and save it to /root/report.md" needs two tools; as one bag of words the
report tools take every top place, so a long request's steps (`steps_of`) are also ranked each on its own.

The literal values inside a request (paths, URLs, e-mail addresses, quoted text, CSS selectors) are what the tool
will work on: matching tools by the words of ./test_project_root/src/main.py finds project managers and test
runners. So values are cut out (`split_values`), their words weigh little, and their kind says something instead:
a path is about files, a URL about the web (and its host names a service: github, bilibili).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from rapidfuzz import fuzz, process

from mcp_gateway.search.homophones import homophone_corrections
from mcp_gateway.search.lexicon import (
    CONCEPT_PREFIX,
    bigram_weights,
    concepts_of,
    everyday_of,
    expansions_of,
    translations_of,
)
from mcp_gateway.search.text import analyze, is_cjk, split_identifier, stem

WORD_WEIGHT = 1.0
"""A word the user typed: the unit every other query-term weight is relative to."""
FULL_SIMILARITY = 100.0
"""rapidfuzz's similarity of identical strings."""
GENERIC_WEIGHT = 0.35
"""A generic verb or noun (`GENERIC_WORDS`). By hand in 9ddc802. Measured: 0.2 → .448/.780/.570, .573; 0.5 →
.447/.784/.570, .573."""
CONCEPT_WEIGHT = 0.7
"""A lexicon concept of the query's words: a synonym is weaker evidence than the word. By hand in 9ddc802.
Measured: 0.5 → .446/.761/.563, .586; 0.9 → .447/.779/.570, .561."""
CJK_CHAR_WEIGHT = 0.3
"""A single CJK character (its bigrams carry the meaning). 0.4 → 0.3 in b7d2fc1 (Chinese matching as a whole:
single+step R@1 .452, R@5 .782). Measured: 0.2 → unchanged; 0.4 → .449/.784/.571, .573."""
TRANSLATION_WEIGHT = 0.8
"""An English word a Chinese word translates to, or an abbreviation stands for. By hand in b7d2fc1. Measured: 0.6
→ unchanged; 1.0 → .448/.784/.570, .573."""
EVERYDAY_WEIGHT = 0.5
"""A catalog word an everyday word or phrase stands for (`glossary-en.txt`: `wipe` → delete): weaker than a
translation, since an everyday word has other senses a catalog word does not."""
TYPO_MIN_LENGTH = 3
"""Shorter unknown words are names or codes. 4 → 3 in bd3a690 (`slak`). Measured: 4 and 2 → single+step
unchanged, task MRR within .001."""
TYPO_MIN_SIMILARITY = 80.0
"""rapidfuzz ratio a correction needs: about one edit in a five-letter word. By hand in 9ddc802. Measured: 75 →
task R@5 .569; 85 → .565; single+step unchanged."""
TYPO_WEIGHT = 0.7
"""A typo correction, times its similarity. By hand in 9ddc802. Measured: 0.5 → unchanged (task MRR .438 →
.440); 0.9 → task R@5 .569."""
TYPO_CANDIDATES = 2
"""Corrections kept per unknown word. By hand in 9ddc802. Measured: 1 and 3 → unchanged."""
TYPO_LENGTH_SLACK_DIVISOR = 4
"""A correction may differ in length by a quarter of the word (at least one character), so only words of those
lengths are compared (9d191f6, for speed; `TYPO_MIN_SIMILARITY` alone lets 8 letters against 12 through).
Measured: 3 and 6 → task R@5 .565."""
HOMOPHONE_WEIGHT = TYPO_WEIGHT
"""A Chinese word read through a homophone correction (股加 as 股价), and what it translates to or means times this:
a reading shared with a known word is evidence like a spelling one edit away, and a correct word the lexicon does
not know (同事, read as 同时) can share it. Measured on the Chinese styled dev set (typo R@5 .562 at 0.7): 0.5 →
.562 (R@10 .688 → .562); 0.9 → .625, a single request."""
MAX_TYPO_WORDS = 4
"""Unknown words corrected per request, the longest first: a bound on cost (9d191f6). Measured: 2 → task R@5 .577
(MRR .436); 8 → unchanged."""
MAX_QUERY_CHARS = 2000
"""Past this a request is pasted data (a log, an encoded image), which says nothing more about the tool: a bound
set in 9d191f6. Measured: 1,000 → task R@5 .565; 4,000 → unchanged."""
VALUE_WEIGHT = 0.2
"""Words inside a value (a path, a URL, a quoted text, a number) are what a tool works on, not which tool. 0.3 in
b12d795, 0.2 in 40d7529 (with `ranking.DEFAULT_B`). Measured: 0.1 → .452/.784/.573, .577; 0.3 → .447/.776/.567,
.577."""
SITE_WEIGHT = 0.8
"""A word of a URL's host (`github` in github.com/…) names the service. By hand in b12d795. Measured: 0.6 and 1.0
→ unchanged."""
GENERIC_WORDS = frozenset(
    stem(word)
    for word in """
        get list search find fetch retrieve return returns show make do run query info information data
        details tool tools result results value values item items current new one two specified given based
        provide provides
    """.split()
)
"""Verbs and nouns most tools' text uses: they weigh `GENERIC_WEIGHT`. By hand from catalog vocabulary in 9ddc802."""


def typed_weight(word: str) -> float:
    """What `word` weighs typed. A translation weighs that times `TRANSLATION_WEIGHT`, never more than typing it:
    at a full translation's weight `查一下` (search) drew the search tools above the tool a Chinese request named
    (second Chinese dev set R@1 .562 → .588, R@5 .812 → .825; public single+step R@5 .896 → .898). Everyday
    synonyms keep `EVERYDAY_WEIGHT` (weighed this way, public MRR fell .709 → .690)."""
    return GENERIC_WEIGHT if word in GENERIC_WORDS else WORD_WEIGHT


@dataclass(frozen=True)
class QueryTerm:
    term: str
    weight: float
    kind: str
    """`word`, `concept`, `translation`, `value` or `typo` (which keeps what was typed in `typed`)."""
    typed: str | None = None

    @property
    def is_concept(self) -> bool:
        return self.term.startswith(CONCEPT_PREFIX)


@dataclass(frozen=True)
class ParsedQuery:
    text: str
    terms: tuple[QueryTerm, ...]
    words: tuple[str, ...]
    """The query's own analyzed words, in order."""
    cjk_runs: tuple[str, ...] = ()
    """The CJK runs of the request's intent, whole."""

    @cached_property
    def surface(self) -> dict[str, str]:
        """Analyzed word → the word as typed, to explain matches in the user's words (read only for judged hits)."""
        return {stem(part): part for part in split_identifier(self.text) if not is_cjk(part)}


class Vocabulary:
    """The index's words by length, for typo correction: only the lengths near a typo's are searched, and each
    word's corrections are remembered until the index changes."""

    def __init__(self, words: list[str]) -> None:
        self._by_length: dict[int, list[str]] = {}
        for word in words:
            self._by_length.setdefault(len(word), []).append(word)
        self._corrections: dict[str, list[tuple[str, float]]] = {}

    def corrections(self, word: str) -> list[tuple[str, float]]:
        cached = self._corrections.get(word)
        if cached is not None:
            return cached
        slack = max(1, len(word) // TYPO_LENGTH_SLACK_DIVISOR)
        choices = [w for size in range(len(word) - slack, len(word) + slack + 1) for w in self._by_length.get(size, ())]
        found = [
            (candidate, similarity)
            for candidate, similarity, _ in process.extract(
                word, choices, scorer=fuzz.ratio, limit=TYPO_CANDIDATES, score_cutoff=TYPO_MIN_SIMILARITY
            )
        ]
        self._corrections[word] = found
        return found


def parse_query(
    text: str, usage: Callable[[str], int], vocabulary: Callable[[], Vocabulary], *, everyday: bool = True
) -> ParsedQuery:
    """Weighted terms for `text`; `usage(term)` tells how many tools have a term, `vocabulary()` gives the words;
    `everyday` reads the request's everyday words as the catalog's words too (`lexicon.everyday_of`)."""
    text = text[:MAX_QUERY_CHARS]
    intent, values = split_values(text)
    analyzed = analyze(intent)
    if not analyzed.words:  # the query is nothing but a value (a path, a quoted name): take it at its word
        values = []
        analyzed = analyze(text)
    terms = _Terms()
    bigrams = {gram: weight for run in analyzed.cjk_runs for gram, weight in bigram_weights(run).items()}
    terms.add_words(analyzed.words, bigrams)
    for concept in concepts_of(analyzed.words, analyzed.cjk_runs):
        terms.add(QueryTerm(concept, CONCEPT_WEIGHT, "concept"))
    for english in (*translations_of(analyzed.cjk_runs), *expansions_of(analyzed.words)):
        terms.add(QueryTerm(english, TRANSLATION_WEIGHT * typed_weight(english), "translation"))
    for run in analyzed.cjk_runs:
        terms.add_homophones(run)
    for catalog_word in everyday_of(intent, usage) if everyday else ():
        terms.add(QueryTerm(catalog_word, EVERYDAY_WEIGHT, "translation"))
    terms.add_values(values)
    unknown = [w for w in dict.fromkeys(analyzed.words) if len(w) >= TYPO_MIN_LENGTH and w.isalpha() and not usage(w)]
    if unknown:
        # The longest unknown words are the likeliest real words mistyped (short ones are often names or codes).
        terms.add_typos(sorted(unknown, key=len, reverse=True)[:MAX_TYPO_WORDS], vocabulary())
    return ParsedQuery(text, tuple(terms.by_term.values()), analyzed.words, analyzed.cjk_runs)


class _Terms:
    """Query terms by term, keeping the strongest reading when one term arrives several ways."""

    def __init__(self) -> None:
        self.by_term: dict[str, QueryTerm] = {}

    def add(self, term: QueryTerm) -> None:
        current = self.by_term.get(term.term)
        if current is None or current.weight < term.weight:
            self.by_term[term.term] = term

    def add_words(self, words: tuple[str, ...], bigrams: dict[str, float]) -> None:
        for word in words:
            if is_cjk(word):
                weight = CJK_CHAR_WEIGHT if len(word) == 1 else bigrams.get(word, WORD_WEIGHT)
                self.add(QueryTerm(word, weight, "word"))
            elif word.isdigit():
                self.add(QueryTerm(word, VALUE_WEIGHT, "value"))
            else:
                self.add(QueryTerm(word, typed_weight(word), "word"))

    def add_values(self, values: list[Value]) -> None:
        for value in values:
            for word in analyze(value.text).words:
                self.add(QueryTerm(word, VALUE_WEIGHT, "value"))
            for word in value.site_words:
                self.add(QueryTerm(word, SITE_WEIGHT, "word"))
            if value.hint is not None:
                self.add(QueryTerm(value.hint, CONCEPT_WEIGHT, "concept"))

    def add_homophones(self, run: str) -> None:
        for typed, meant in homophone_corrections(run):
            self.add(QueryTerm(meant, HOMOPHONE_WEIGHT, "typo", typed=typed))
            # The index holds a longer CJK word as its bigrams; those the user typed are terms already.
            typed_bigrams = {typed[i : i + 2] for i in range(len(typed) - 1)}
            for bigram in (meant[i : i + 2] for i in range(1 if len(meant) == 2 else 0, len(meant) - 1)):
                if bigram not in typed_bigrams:
                    self.add(QueryTerm(bigram, HOMOPHONE_WEIGHT, "typo"))
            for concept in concepts_of((), (meant,)):
                self.add(QueryTerm(concept, CONCEPT_WEIGHT * HOMOPHONE_WEIGHT, "concept"))
            for english in translations_of((meant,)):
                weight = TRANSLATION_WEIGHT * HOMOPHONE_WEIGHT * typed_weight(english)
                self.add(QueryTerm(english, weight, "translation"))

    def add_typos(self, unknown: list[str], vocabulary: Vocabulary) -> None:
        for word in unknown:
            for candidate, similarity in vocabulary.corrections(word):
                self.add(QueryTerm(candidate, TYPO_WEIGHT * similarity / FULL_SIMILARITY, "typo", typed=word))
                for concept in concepts_of((candidate,), ()):
                    self.add(QueryTerm(concept, CONCEPT_WEIGHT * TYPO_WEIGHT, "concept"))


MIN_WORDS_TO_SPLIT = 8
"""Analyzed words a request needs to be read as possibly several steps. By hand in fe8f172 (step fusion as a whole:
task R@5 .540 → .552). Measured: 6 → unchanged; 12 → .451/.785/.572, .573."""
MIN_CLAUSE_WORDS = 2
"""Analyzed words a piece needs to be a step (one word is a fragment, not a task). By hand in fe8f172. Measured:
1 → task R@5 .569; 3 → .453/.784/.573, .577."""
MAX_CLAUSES = 4
"""Steps ranked separately at most, a bound on a long request's cost (b7d2fc1). Measured: 2 → .453/.784/.573,
.573 (task MRR .438 → .408); 6 → task R@5 .561."""
_BOUNDARY = re.compile(
    r"""
    [.;!?\n]+(?=\s|$)                                   # sentence ends
  | ,?\s+(?:and\s+then|then|after\s+that|afterwards|finally|next|also|and\s+also)\s+
  | ,\s*and\s+ | \s+and\s+(?=(?:save|write|send|create|store|put|email|post|upload|export|convert|generate|make|add)\b)
  | [，。；！？\n] | 然后 | 并且 | 接着 | 之后 | 最后 | 再把 | 并把
    """,
    re.VERBOSE | re.IGNORECASE,
)


def steps_of(text: str) -> list[str]:
    """The request's steps when it is long and has several, else []."""
    if len(analyze(text).words) < MIN_WORDS_TO_SPLIT:
        return []
    pieces = [piece.strip() for piece in _BOUNDARY.split(text)]
    steps = [piece for piece in pieces if len(analyze(piece).words) >= MIN_CLAUSE_WORDS]
    return steps[:MAX_CLAUSES] if len(steps) > 1 else []


HOST_NOISE = frozenset("www m api app mobile com net org io co cn uk de fr jp edu gov info dev ai me tv".split())
"""Host labels that name no service: the rest of a URL's host does."""
MAX_QUOTED_CHARS = 200
"""A longer "quotation" is more likely prose with stray quotes. By hand in b12d795."""
MIN_BLOB_CHARS = 32
"""An unbroken run of letters, digits and `+/=_-` this long is a hash or encoded data (a SHA-1 in hex is 40).
9d191f6."""
FILE_EXTENSIONS = frozenset(
    """
        py js ts tsx jsx java go rs rb php c h cpp cs swift kt md txt rst csv tsv json jsonl yaml yml toml ini cfg
        conf env xml html htm css scss sql sh bash ps1 bat log pdf doc docx xls xlsx ppt pptx odt png jpg jpeg gif
        svg webp bmp ico mp3 mp4 wav ogg flac mov avi mkv zip tar gz tgz bz2 7z rar whl ipynb parquet db sqlite
    """.split()
)


@dataclass(frozen=True)
class Value:
    """A literal the query carries for the tool to use (a path, a URL, a quoted string), not its intent."""

    text: str
    hint: str | None
    """The concept the value's kind implies: a URL is about the web, a path about files."""
    site_words: tuple[str, ...] = ()
    """A URL's host names its service (`github`): intent, not a value."""


_VALUE = re.compile(
    r"""
    (?P<url>\b(?:https?|ftp|file|s3|gs|wss?)://[^\s'"<>)\]]+ | \bwww\.[^\s'"<>)\]]+)
  | (?P<email>\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+)
  | (?P<path>(?<![\w/])(?:~|\.{1,2})?/[\w.@~+-]+(?:/[\w.@~+-]*)* | \b[A-Za-z]:\\\S+
            | \b[\w.-]+(?:/[\w.@~+-]+)+ | \b[\w-]+\.(?:EXTENSIONS)\b)
  | (?P<quoted>(?<!\w)'[^'\n]{1,QUOTED}'(?!\w) | "[^"\n]{1,QUOTED}" | `[^`\n]{1,QUOTED}` | “[^”\n]{1,QUOTED}”)
  | (?P<selector>(?<![\w/.])[#.][A-Za-z_][\w-]*)
  | (?P<blob>\b[A-Za-z0-9+/=_-]{BLOB,})
    """.replace("EXTENSIONS", "|".join(sorted(FILE_EXTENSIONS)))
    .replace("QUOTED", str(MAX_QUOTED_CHARS))
    .replace("BLOB", str(MIN_BLOB_CHARS)),
    re.VERBOSE,
)
_HINTS = {"url": CONCEPT_PREFIX + "web", "email": CONCEPT_PREFIX + "email", "path": CONCEPT_PREFIX + "file"}


def split_values(text: str) -> tuple[str, list[Value]]:
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


ARGUMENT_LEADS = frozenset("in at to from for near into".split())
"""Prepositions whose next word says where, when or for whom (`in Berlin`, `for Tokyo`, `to Paris`): an argument
of the tool, not which tool. Not `about` or `of`: what a request is about (news about elections) is what a tool
must be about too."""
DETERMINERS = frozenset("a an the my our your his her their its this that these those some".split())
_WORD_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*|[.!?;:]")
_SENTENCE_MARK = frozenset(".!?;:")


def argument_words(text: str) -> frozenset[str]:
    """The stems of words that read as arguments when no tool knows them: a capitalized word inside a sentence (a
    name: Berlin) and the word a preposition of place or time introduces (`in berlin`)."""
    found: set[str] = set()
    previous = ""
    starting = True
    for token in _WORD_TOKEN.findall(text):
        if token in _SENTENCE_MARK:
            starting, previous = True, ""
            continue
        lower = token.lower()
        if (token[0].isupper() and not starting) or previous in ARGUMENT_LEADS:
            found.add(stem(lower))
        if lower not in DETERMINERS:
            previous = lower
        starting = False
    return frozenset(found)
