"""A query as weighted terms: its own words, their lexicon concepts, and typo corrections.

Weights say how much a term is evidence of intent: a generic verb (`get`, `list`, `search`) says little
about which tool is wanted, a single CJK character less than a CJK word, a typo correction less than a
word the user actually typed. Typos are corrected against the index vocabulary with rapidfuzz, only for
words the index has never seen, so a correct rare word is never "corrected" into a common one; Chinese
homophone typos (a character of the same pinyin) against the lexicon's and glossary's words (`homophones.py`),
only where no known word was typed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from rapidfuzz import fuzz, process

from mcp_gateway.search.glossary import everyday_of
from mcp_gateway.search.homophones import homophone_corrections
from mcp_gateway.search.lexicon import CONCEPT_PREFIX, bigram_weights, concepts_of, expansions_of, translations_of
from mcp_gateway.search.text import analyze, is_cjk, split_identifier, stem
from mcp_gateway.search.values import Value, split_values

WORD_WEIGHT = 1.0
"""A word the user typed: the unit every other query-term weight is relative to."""
FULL_SIMILARITY = 100.0
"""rapidfuzz's similarity of identical strings: the scale a similarity is divided by to weigh a correction."""
GENERIC_WEIGHT = 0.35
"""A generic verb or noun (`GENERIC_WORDS`) says little about which tool is wanted. Chosen by hand in the first
search (9ddc802). Measured: 0.2 → .448/.780/.570, .573; 0.5 → .447/.784/.570, .573."""
CONCEPT_WEIGHT = 0.7
"""A lexicon concept of the query's words: a synonym is weaker evidence than the word. Chosen by hand in the
first search (9ddc802). Measured: 0.5 → .446/.761/.563, .586; 0.9 → .447/.779/.570, .561."""
CJK_CHAR_WEIGHT = 0.3
"""A single CJK character (its bigrams carry the meaning). 0.4 in the first search, 0.3 since b7d2fc1 (a change
to Chinese matching measured as a whole: single+step R@1 .452, R@5 .782). Measured now: 0.2 → unchanged;
0.4 → .449/.784/.571, .573 (few bench queries are Chinese)."""
TRANSLATION_WEIGHT = 0.8
"""An English word a Chinese query word translates to, or an abbreviation stands for: almost as good as the word
itself. Chosen by hand in b7d2fc1. Measured: 0.6 → unchanged; 1.0 → .448/.784/.570, .573."""
EVERYDAY_WEIGHT = 0.5
"""A catalog word that an everyday word or phrase of the request stands for (`glossary-en.txt`: `wipe` →
delete): weaker than a translation, since an everyday word has other senses a catalog word does not."""
TYPO_MIN_LENGTH = 3
"""Shorter unknown words are names or codes, not typos. 4 in the first search, 3 since bd3a690 (typos of short
stems such as `slak`). Measured: 4 and 2 → single+step unchanged, task MRR within .001."""
TYPO_MIN_SIMILARITY = 80.0
"""rapidfuzz ratio (0-100) a correction needs: about one edit in a five-letter word. Chosen by hand in the
first search (9ddc802). Measured: 75 → task R@5 .569; 85 → .565; single+step unchanged both ways."""
TYPO_WEIGHT = 0.7
"""A typo correction, times its similarity: weaker than a word the user typed. Chosen by hand in the first
search (9ddc802). Measured: 0.5 → unchanged (task MRR .438 → .440); 0.9 → task R@5 .569."""
TYPO_CANDIDATES = 2
"""Corrections kept per unknown word. Chosen by hand in the first search (9ddc802). Measured: 1 and 3 → unchanged."""
TYPO_LENGTH_SLACK_DIVISOR = 4
"""A correction may differ in length by a quarter of the word (at least one character), so only words of those
lengths are compared (9d191f6, for speed). Tighter than `TYPO_MIN_SIMILARITY` alone, which lets a word half as
long again through (8 letters against 12 score 80). Measured: 3 and 6 → task R@5 .565."""
HOMOPHONE_WEIGHT = TYPO_WEIGHT
"""A Chinese word read through a homophone correction (`homophones.py`: 股加 read as 股价), and what it translates to
or means times this: as weak as an English typo correction of full similarity, since a reading shared with a
known word is the same kind of evidence as a spelling one edit away, and a correct word the lexicon and glossary
do not know (同事, read as 同时) can share it. Measured on the Chinese styled dev set (typo R@5 .562 at 0.7):
0.5 → .562 (R@10 .688 → .562); 0.9 → .625, a single request, and nearly a typed word's weight."""
MAX_TYPO_WORDS = 4
"""Unknown words corrected per request, the longest first: a bound on a long request's cost (9d191f6).
Measured: 2 → task R@5 .577 (MRR .436); 8 → unchanged."""
MAX_QUERY_CHARS = 2000
"""Past this a request is pasted data (a log, an encoded image): a bound set in 9d191f6. Measured: 1,000 → task
R@5 .565; 4,000 → unchanged."""
VALUE_WEIGHT = 0.2
"""Words inside a value (a path, a URL, a quoted text, a number) are mostly what a tool works on, not which
tool. 0.3 in b12d795, 0.2 since 40d7529 (measured with a change of b as a whole, see `ranking.DEFAULT_B`).
Measured now: 0.1 → .452/.784/.573, .577; 0.3 → .447/.776/.567, .577."""
SITE_WEIGHT = 0.8
"""A word of a URL's host (`github` in github.com/…) names the service: nearly a typed word. Chosen by hand in
b12d795. Measured: 0.6 and 1.0 → unchanged."""
GENERIC_WORDS = frozenset(
    stem(word)
    for word in """
        get list search find fetch retrieve return returns show make do run query info information data
        details tool tools result results value values item items current new one two specified given based
        provide provides
    """.split()
)
"""Verbs and nouns most tools' text uses, which say little about which tool is meant: they weigh
`GENERIC_WEIGHT`. Written by hand from catalog vocabulary in the first search (9ddc802)."""


def typed_weight(word: str) -> float:
    """What `word` weighs typed by the user. A word a request reaches through a translation or an abbreviation
    weighs that times `TRANSLATION_WEIGHT`, so never more than typing it would: `查一下` reads as search, which an
    English request weighs `GENERIC_WEIGHT`, and at a full translation's weight every Chinese request that asks
    to look something up drew the catalog's search tools above the tool it named. Measured on the second Chinese
    dev set: R@1 .562 → .588, R@5 .812 → .825; public single+step R@5 .896 → .898. Everyday synonyms keep
    `EVERYDAY_WEIGHT` whatever word they reach: weighed this way too, public MRR fell .709 → .690, as requests'
    everyday verbs (show me, look at) lost the generic catalog verbs that rank their tools."""
    return GENERIC_WEIGHT if word in GENERIC_WORDS else WORD_WEIGHT


@dataclass(frozen=True)
class QueryTerm:
    term: str
    weight: float
    kind: str
    """`word`, `concept`, `translation`, `value` or `typo`; a typo term remembers what was typed in `typed`."""
    typed: str | None = None

    @property
    def is_concept(self) -> bool:
        return self.term.startswith(CONCEPT_PREFIX)


@dataclass(frozen=True)
class ParsedQuery:
    text: str
    terms: tuple[QueryTerm, ...]
    words: tuple[str, ...]
    """The query's own analyzed words, in order (for server-name and confidence checks)."""
    cjk_runs: tuple[str, ...] = ()
    """The CJK runs of the request's intent, whole (confidence judges them by their words, not n-grams)."""

    @cached_property
    def surface(self) -> dict[str, str]:
        """Analyzed word → the word as typed, to explain matches in the user's words. Read only when a hit is
        judged, so a step of a long request, which is ranked but never judged, does not pay for it."""
        return {stem(part): part for part in split_identifier(self.text) if not is_cjk(part)}


class Vocabulary:
    """The index's words, bucketed by length, for typo correction.

    A word within the similarity cutoff of a typo differs in length by at most a couple of characters, so only
    those buckets are searched, and each word's corrections are remembered until the index changes.
    """

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
    `everyday` reads the request's everyday words as the catalog's words too (`glossary.everyday_of`).

    Only the first `MAX_QUERY_CHARS` characters count: past that a request is pasted data (a log, an encoded
    image), which says nothing more about the tool and would make the search slow.
    """
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
