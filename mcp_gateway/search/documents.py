"""What the search indexes: tool and server entries, turned into terms per field.

A tool is indexed in separate fields because a word in its name says far more than the same word in a long
description; the weights live in `ranking.py`. Field names are `Literal` types: a misspelt one is a type error.
What a tool's text says of itself is read here too, once: whether it is a general web search (`is_web_search`),
and whether it is deprecated (`deprecation_of`).

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
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, get_args

from mcp_gateway.search.lexicon import concepts_of, expansions_of, translations_of
from mcp_gateway.search.text import (
    MAX_LEAD_CHARS,
    STOP_WORDS,
    Terms,
    analyze,
    is_cjk,
    lead_sentence,
    split_identifier,
    stem,
)

ToolField = Literal[
    "name", "title", "description", "param_names", "param_text", "translated", "concepts", "name_concepts"
]
"""A tool's own words by where they stand (`name` … `param_text`), English words its text translates or
abbreviates to (`translated`), and the lexicon concepts of its description and of its name and title."""
TOOL_FIELDS: tuple[ToolField, ...] = get_args(ToolField)

ServerField = Literal["server", "server_text"]
"""A server's key and aliases (`server`), and the description its config entry gives it (`server_text`)."""
SERVER_FIELDS: tuple[ServerField, ...] = get_args(ServerField)

MatchField = ToolField | Literal["server"]
"""Where a query word is found for a hit: one of the tool's fields, or its server's key or aliases."""

CONCEPT_FIELDS: frozenset[ToolField] = frozenset({"concepts", "name_concepts"})
"""The fields of lexicon concepts (`~delete`): a concept is scored only here, a word never."""

FIELD_POSITIONS: Mapping[ToolField, int] = {name: position for position, name in enumerate(TOOL_FIELDS)}

MAX_DESCRIPTION_CHARS = 4000
"""Descriptions past this are mostly usage examples, which dilute the field. By hand in 9ddc802. Measured: 2,000 →
.454/.784/.575, .577; 8,000 → unchanged."""
MAX_PARAMETER_TEXT_CHARS = 2000
"""Parameter descriptions together, past which they are schema detail. By hand in 9ddc802. Measured: 1,000 →
.449/.784/.571, .573; 4,000 → task R@5 .577."""

SEARCH_WORD = "search"
"""The word in every phrasing `_WEB_SEARCH` matches, as `str.casefold` writes what it matches ignoring case (long s,
U+017F, too): tested in `test_search_web_search.py` against every character the case-blind matching accepts."""
_WEB_SEARCH = re.compile(
    r"\b(?:web search|search(?:es|ing)? (?:the )?(?:web|internet)|internet search|online search)",
    re.IGNORECASE,
)


def is_web_search(name: str, description: str) -> bool:
    """Whether a tool says it is a general web search (`web_search.py`) in its name or its description's first
    sentence: "web search", "search the web / the internet"; not "search engine" alone (a code host's or a
    documentation site's search engine is not the web's)."""
    head = description.strip()[:MAX_LEAD_CHARS]
    if SEARCH_WORD not in head.casefold() and SEARCH_WORD not in name.casefold():
        return False  # every phrasing has the word in it: most tools are read no further than this one search
    first = lead_sentence(head)
    return _WEB_SEARCH.search(f"{' '.join(split_identifier(name))} {first}") is not None


@dataclass(frozen=True, slots=True)
class ToolEntry:
    server: str
    name: str
    description: str = ""
    title: str | None = None
    parameters: tuple[tuple[str, str], ...] = ()
    """(parameter name, parameter description) pairs, in schema order."""


@dataclass(frozen=True)
class ServerEntry:
    name: str
    aliases: tuple[str, ...] = ()
    description: str | None = None


@dataclass(frozen=True, slots=True)
class IndexedTool:
    """A tool's term counts per field, a tuple in `TOOL_FIELDS` order rather than a dict (thousands are held), the
    empty fields sharing one empty mapping."""

    entry: ToolEntry
    counts: tuple[Mapping[str, int], ...]
    has_cjk: bool = False
    deprecation: Deprecation | None = None
    web_search: bool = False

    def field(self, name: ToolField) -> Mapping[str, int]:
        return self.counts[FIELD_POSITIONS[name]]

    def by_field(self) -> Iterable[tuple[ToolField, Mapping[str, int]]]:
        return zip(TOOL_FIELDS, self.counts, strict=True)


def index_tool(entry: ToolEntry) -> IndexedTool:
    name = analyze(entry.name)
    title = analyze(entry.title or "")
    description = analyze(entry.description[:MAX_DESCRIPTION_CHARS])
    param_names = analyze(" ".join(name for name, _ in entry.parameters))
    param_text = analyze(" ".join(text for _, text in entry.parameters)[:MAX_PARAMETER_TEXT_CHARS])
    name_concepts = _concepts(name, title)
    fields: dict[ToolField, Mapping[str, int]] = {
        "name": term_counts(name.words),
        "title": term_counts(title.words),
        "description": term_counts(description.words),
        "param_names": term_counts(param_names.words),
        "param_text": term_counts(param_text.words),
        "translated": term_counts(
            [
                *translations_of((*name.cjk_runs, *title.cjk_runs, *description.cjk_runs)),
                *expansions_of((*name.words, *title.words, *description.words)),
            ]
        ),
        "concepts": term_counts(_concepts(description)),
        "name_concepts": term_counts(name_concepts),
    }
    has_cjk = bool(name.cjk_runs or title.cjk_runs or description.cjk_runs)
    deprecation = deprecation_of(entry.name, entry.title, entry.description)
    counts = tuple(fields[field] for field in TOOL_FIELDS)
    return IndexedTool(entry, counts, has_cjk, deprecation, is_web_search(entry.name, entry.description))


SERVER_NAME_NOISE = frozenset(
    """
    mcp server servers main tool tools api sdk py python js node ts typescript go golang rust rs java official
    the a an app plugin connector integration service sse stdio http https streamable
    """.split()
)
"""Parts of server keys that say how a server is built or reached (`amap-amap-sse`), not which service it is."""


def server_phrases(entry: ServerEntry) -> tuple[tuple[str, ...], ...]:
    """The ways a query can name this server: each label's distinctive words (and them joined, for `GitHub`).
    `car-price-mcp-main` is named by "car price", not "price" alone. A label with stop words (`call-for-papers`)
    is also read without them, as requests' words are, unless one word would be left (`how-to-cook`): task R@5
    .611 → .615 (MRR .452 → .455), all else unchanged."""
    phrases: set[tuple[str, ...]] = set()
    for label in (entry.name, *(variant for alias in entry.aliases for variant in _label_variants(alias))):
        parts = [part for part in split_identifier(label) if part not in SERVER_NAME_NOISE]
        if not parts:
            continue
        spoken = [part for part in parts if part not in STOP_WORDS]
        phrases.add(tuple(part if is_cjk(part) else stem(part) for part in parts))
        if len(spoken) > 1 and len(spoken) < len(parts):
            phrases.add(tuple(part if is_cjk(part) else stem(part) for part in spoken))
        if len(parts) > 1 and not any(is_cjk(part) for part in parts):
            phrases.add((stem("".join(parts)),))
    return tuple(sorted(phrases))


_PARENTHESIS = re.compile(r"[(（]([^()（）]*)[)）]")


def _label_variants(label: str) -> list[str]:
    """A label, and the names a parenthesis gives it (`OpenStreetMap (OSM) MCP Server`): a request says either."""
    inside = [found.strip() for found in _PARENTHESIS.findall(label)]
    if not inside:
        return [label]
    return [label, _PARENTHESIS.sub(" ", label), *(name for name in inside if name)]


def index_server(entry: ServerEntry) -> dict[ServerField, Mapping[str, int]]:
    words: list[str] = []
    for label in (entry.name, *entry.aliases):
        names = analyze(label)
        words.extend(names.words)
        words.extend(_concepts(names))
    text = analyze(entry.description or "")
    return {"server": term_counts(words), "server_text": term_counts([*text.words, *_concepts(text)])}


NO_TERMS: Mapping[str, int] = MappingProxyType({})


def term_counts(terms: Sequence[str]) -> Mapping[str, int]:
    """How often each term occurs; one shared empty mapping for no terms."""
    return Counter(terms) if terms else NO_TERMS


def _concepts(*parts: Terms) -> list[str]:
    found: list[str] = []
    for part in parts:
        found.extend(concepts_of(part.words, part.cjk_runs))
    return found


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
