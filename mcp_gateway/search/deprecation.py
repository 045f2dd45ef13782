"""Deprecated tools: told apart when a tool is indexed, ranked below the tools that replace them.

Servers keep a deprecated tool listed for old clients and say so in its text: the reference filesystem
server's `read_file` is titled "Read File (Deprecated)" and described "… DEPRECATED: Use read_text_file
instead."; others write "⚠️ DEPRECATED: Use a or b instead", "Deprecated, please use x instead", "DEPRECATED.
Use …", or put `_DEPRECATED_` in the tool's name. Its text matches a request as
well as its replacement's (often better: it is shorter), so a plain ranking offers the model the tool it
should not call. MCP's tool annotations have no deprecation flag; a title in annotations counts as the title.

The phrasings are read narrowly, on purpose. "Use x instead" alone is not one: in the bench catalogs it is
nearly always advice for another case ("for variant records, use variant_searcher instead"), and
"Check if packages are deprecated" describes a live tool. Nor is "Legacy tool: … (for backward
compatibility). Use x for more detailed information": a tool kept alongside a richer one, which MCP-Bench's
weather tasks do call (demoting it cost that group R@5 .740 → .726). What is found is kept on the indexed tool
(`deprecation_of`), so the ranking applies a constant factor (`ranking.DEPRECATED_FACTOR`) and no query pays
for reading text; a hit whose replacement is among the same results is never `high` (`superseded_by`).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

MAX_READ_CHARS = 4000
"""Text read for markers and replacements: `documents.MAX_DESCRIPTION_CHARS`, the part of a description that is
indexed at all (a marker past it would not change what the tool matches anyway)."""
MAX_REPLACEMENT_CHARS = 200
"""How far after "use" a replacement's name is looked for: the rest of one sentence. Chosen by hand: the longest
replacement clause in the bench catalogs ("Use defillama_get_top_protocols or defillama_get_protocols_paginated
instead") is 70 characters."""
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
    """A tool says it is deprecated; `replacements` are the words of the clause naming what to use instead.

    They are compared with the names of the tool's server's other tools in a search's results, so a word that
    names no tool ("instead", "GET", "for") never matches one and needs no filtering here.
    """

    replacements: tuple[str, ...] = ()


def deprecation_of(name: str, title: str | None, description: str) -> Deprecation | None:
    """What the tool's own text says about its deprecation, or None when it says nothing."""
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
