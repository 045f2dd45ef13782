"""The English glossary file (`mcp_gateway/search/glossary-en.txt`) keeps the format the search will read.

Each non-comment line is `catalogword: everyday another two+word+phrase`: one lower-case catalog word, then one
to ten equivalents a user writes for it, each lower-case ASCII letters and digits, a phrase's words joined with
`+` (at most three words). The file is hand-written data, so a malformed line would otherwise only show up as a
search that silently finds less. The check stays on the format and the size: it must not depend on bench data,
which is not in the package.
"""

from __future__ import annotations

import re

import pytest
from glossary_lines import entries, glossary_lines, header, line_problems

GLOSSARY = "glossary-en.txt"
MIN_ENTRIES = 500
"""The floor the issue-14 brief set for the glossary's coverage of catalog vocabulary."""
MAX_EQUIVALENTS = 10
"""More than ten equivalents for one word means the line has drifted into related topics: set by the brief of
the glossary's second pass, which widened the first pass's six to take in more of the ways requests phrase a word."""
MAX_PHRASE_WORDS = 3
"""A longer phrase is a sentence a request would not repeat word for word: set by the brief."""
_CATALOG_WORD = re.compile(r"[a-z][a-z0-9]*")
_EQUIVALENT_WORD = re.compile(r"[a-z0-9]+")


def problems_of(lines: list[str]) -> list[str]:
    """Every way `lines` break the glossary's format, one sentence each with its line number."""
    return line_problems(lines, _CATALOG_WORD, "lower-case catalog word", _equivalent_problems)


def _equivalent_problems(number: int, word: str, equivalents: list[str]) -> list[str]:
    problems: list[str] = []
    if not 1 <= len(equivalents) <= MAX_EQUIVALENTS:
        problems.append(f"line {number}: {word!r} has {len(equivalents)} equivalents, not 1 to {MAX_EQUIVALENTS}")
    for equivalent in equivalents:
        words = equivalent.split("+")
        if not all(_EQUIVALENT_WORD.fullmatch(part) for part in words):
            problems.append(f"line {number}: {equivalent!r} is not lower-case ASCII words joined with '+'")
        elif len(words) > MAX_PHRASE_WORDS:
            problems.append(f"line {number}: {equivalent!r} has more than {MAX_PHRASE_WORDS} words")
    if word in equivalents:
        problems.append(f"line {number}: {word!r} lists itself as an equivalent")
    if len(set(equivalents)) != len(equivalents):
        problems.append(f"line {number}: {word!r} repeats an equivalent")
    return problems


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return glossary_lines(GLOSSARY)


def test_every_line_of_the_english_glossary_is_well_formed(lines: list[str]) -> None:
    assert problems_of(lines) == []


def test_the_english_glossary_opens_with_a_header_saying_how_it_was_made(lines: list[str]) -> None:
    assert lines[0].startswith("#")
    assert "benchmarks.glossary_words" in header(lines)


def test_the_english_glossary_covers_the_vocabulary_of_catalogs(lines: list[str]) -> None:
    assert len(entries(lines)) >= MIN_ENTRIES


def test_the_words_that_motivated_the_glossary_have_their_everyday_equivalents(lines: list[str]) -> None:
    found = entries(lines)
    assert "get+rid+of" in found["delete"]
    assert "folder" in found["directory"]
    assert "repo" in found["repository"]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("Delete: wipe", "does not start with a lower-case catalog word"),
        ("delete wipe", "does not start with a lower-case catalog word"),
        ("delete:", "has 0 equivalents"),
        ("delete: a b c d e f g h i j k", "has 11 equivalents"),
        ("delete: Wipe", "is not lower-case ASCII words"),
        ("delete: get+rid+of+it", "has more than 3 words"),
        ("delete: get++rid", "is not lower-case ASCII words"),
        ("delete: wipe delete", "lists itself"),
        ("delete: wipe wipe", "repeats an equivalent"),
    ],
)
def test_a_malformed_line_is_reported_with_its_number(line: str, problem: str) -> None:
    problems = problems_of(["# header", line])
    assert len(problems) == 1
    assert problems[0].startswith("line 2:")
    assert problem in problems[0]


def test_a_repeated_catalog_word_is_reported_with_both_lines() -> None:
    assert problems_of(["delete: wipe", "delete: erase"]) == ["line 2: 'delete' already has line 1"]
