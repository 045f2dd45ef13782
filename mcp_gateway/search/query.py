"""A query as weighted terms: its own words, their lexicon concepts, and typo corrections.

Weights say how much a term is evidence of intent: a generic verb (`get`, `list`, `search`) says little
about which tool is wanted, a single CJK character less than a CJK word, a typo correction less than a
word the user actually typed. Typos are corrected against the index vocabulary with rapidfuzz, only for
words the index has never seen, so a correct rare word is never "corrected" into a common one.
"""

from __future__ import annotations

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
    """`word`, `concept` or `typo`; a typo term remembers what was typed in `typed`."""
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
    surface: dict[str, str]
    """Analyzed word → the word as typed, to explain matches in the user's words."""


def parse_query(text: str, known: Callable[[str], bool], vocabulary: Callable[[], list[str]]) -> ParsedQuery:
    """Weighted terms for `text`; `known(term)` tells whether the index has a term, `vocabulary()` lists them."""
    analyzed = analyze(text)
    weights: dict[str, QueryTerm] = {}

    def add(term: QueryTerm) -> None:
        current = weights.get(term.term)
        if current is None or current.weight < term.weight:
            weights[term.term] = term

    for word in analyzed.words:
        if is_cjk(word):
            add(QueryTerm(word, CJK_CHAR_WEIGHT if len(word) == 1 else 1.0, "word"))
        else:
            add(QueryTerm(word, GENERIC_WEIGHT if word in GENERIC_WORDS else 1.0, "word"))
    for concept in concepts_of(analyzed.words, analyzed.cjk_runs):
        add(QueryTerm(concept, CONCEPT_WEIGHT, "concept"))
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
