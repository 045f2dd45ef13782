"""Deprecated tools: told apart when a tool is indexed, ranked below the tools that replace them.

Servers keep a deprecated tool listed for old clients and say so in its text ("Read File (Deprecated)", "…
DEPRECATED: Use read_text_file instead.", `_DEPRECATED_` in its name); its text matches a request as well as its
replacement's, often better. MCP has no deprecation flag. The phrasings are read narrowly: "use x instead" alone
is mostly advice for another case, "Check if packages are deprecated" describes a live tool, and a "Legacy tool …
Use x for more detailed information" is still called by MCP-Bench's weather tasks (demoting it cost that group
R@5 .740 → .726). Read once when a tool is indexed; the ranking applies `ranking.DEPRECATED_FACTOR`, and a hit
whose replacement is among the same results is never `high` (`superseded_by`).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

MAX_READ_CHARS = 4000
"""Text read for markers and replacements: the part of a description that is indexed at all."""
MAX_REPLACEMENT_CHARS = 200
"""How far after "use" a replacement's name is looked for: by hand, the longest such clause in the bench catalogs is
70 characters."""
MAX_REPLACEMENTS = 8
"""Names kept from a replacement clause: a bound on what each search compares, far above the two seen."""

MARKER_WORD = "deprecated"
"""The word in every marker below, as `str.lower` writes what they match, ignoring case: tested in
`test_search_deprecation.py` against every character the markers' case-blind matching accepts."""
_DESCRIPTION_MARKERS = (
    # Leads with it: "DEPRECATED. Use …", "⚠️ DEPRECATED: …", "Deprecated, please use …".
    re.compile(r"^[\W_]*deprecated\b", re.IGNORECASE),
    # An upper-case label inside the text: "Read the complete contents of a file as text. DEPRECATED: Use …".
    re.compile(r"\bDEPRECATED\s*[:.!\-–—)\]]"),
    # Says what to use instead: "deprecated: use x", "deprecated in favour of x", "deprecated, please use x".
    # Not across a full stop: "Lists packages that are deprecated. Use the name parameter …" is a live tool.
    re.compile(r"\bdeprecated[\s:;,\-–—]*(?:please\s+)?(?:use|prefer|in\s+favou?r\s+of)\b", re.IGNORECASE),
    # Says it of itself: "This tool is deprecated", "this endpoint has been deprecated".
    re.compile(
        r"\bthis\s+(?:tool|function|endpoint|method|command|operation)\s+(?:is|has\s+been)\s+(?:now\s+)?deprecated\b",
        re.IGNORECASE,
    ),
)
_TITLE_MARKER = re.compile(r"\bdeprecated\b", re.IGNORECASE)
"""A title is a short label: "Deprecated" anywhere in it ("Read File (Deprecated)") says it of the tool."""
_NAME_MARKER = re.compile(r"(?:^|[_\-.])DEPRECATED(?:$|[_\-.])|^deprecated[_\-.]", re.IGNORECASE)
"""`ChattingController_DEPRECATED_checkNumberStatus`, `deprecated_search`; not `npmDeprecated`, which checks
whether packages are."""
_REPLACEMENT_LEAD = re.compile(r"\b(?:use|prefer|in\s+favou?r\s+of|replaced\s+by|superseded\s+by)\s+", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.;!?](?:\s|$)|\n")
_IDENTIFIER = re.compile(r"[A-Za-z_][\w\-]*")


@dataclass(frozen=True, slots=True)
class Deprecation:
    """`replacements` are the words of the clause naming what to use instead, compared with the names of its
    server's tools in a search's results (so a word naming no tool, "instead", needs no filtering)."""

    replacements: tuple[str, ...] = ()


def deprecation_of(name: str, title: str | None, description: str) -> Deprecation | None:
    text = description[:MAX_READ_CHARS]
    if not any(MARKER_WORD in part.lower() for part in (text, name, title or "")):
        return None  # each marker has the word in it: most tools are read no further than this one search
    found = next((match for marker in _DESCRIPTION_MARKERS if (match := marker.search(text))), None)
    if found is None and not _NAME_MARKER.search(name) and not (title and _TITLE_MARKER.search(title)):
        return None
    return Deprecation(_replacements(text, found.start() if found is not None else 0))


def superseded_by(deprecation: Deprecation | None, present: Collection[str]) -> str | None:
    """The first named replacement among `present` (names of the same server's tools in the same results)."""
    if deprecation is None:
        return None
    by_key = {name.casefold(): name for name in present}
    return next((by_key[word.casefold()] for word in deprecation.replacements if word.casefold() in by_key), None)


def deprecation_reason(replacement: str | None) -> str:
    """The reason a model reads on a deprecated hit: what to call instead when it is right there."""
    if replacement is None:
        return "deprecated (its description says what replaces it, if anything)"
    return f"deprecated: use {replacement} (in these results) instead"


def _replacements(text: str, start: int) -> tuple[str, ...]:
    lead = _REPLACEMENT_LEAD.search(text, start)
    if lead is None:
        return ()
    clause = text[lead.end() : lead.end() + MAX_REPLACEMENT_CHARS]
    end = _SENTENCE_END.search(clause)
    words = _IDENTIFIER.findall(clause[: end.start()] if end else clause)
    return tuple(dict.fromkeys(words))[:MAX_REPLACEMENTS]
