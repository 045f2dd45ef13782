"""Which server a name means: one rule for the `server` of search_tools, list_tools, describe_tool and execute_tool.

The first step any server fits decides: 1. `key`; 2. `alias`; 3. `case`: a key or alias ignoring case and
surrounding spaces (`GitHub`); 4. `separators`: ignoring separators and punctuation too (`git_hub`), as `name_key`
compares tool names; 5. `near miss`: a typo (`githb`), the server whose best rapidfuzz `WRatio` over its labels is
at least `NEAR_MISS_MIN_SIMILARITY` and beats every other's by more than `NEAR_MISS_TIE_MARGIN`; 6. otherwise
`Unknown`, offering the servers scoring at least `SUGGESTION_MIN_SIMILARITY`. Several servers fitting one step
equally are `Ambiguous`, never a guess, and no looser step is tried. The caller words the answer: the engine as a
note, the service as the error a model reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz, process

from mcp_gateway.search.index import name_key

Reading = Literal["key", "alias", "case", "separators", "near miss"]
APPROXIMATE_READINGS: frozenset[Reading] = frozenset({"separators", "near miss"})
"""Readings of a name that is not any server's key or alias spelled out (case aside)."""

NEAR_MISS_MIN_SIMILARITY = 80.0
"""`githb` → github scores 91 and `slak` → slack 89, `gitt` → github 77 (another word). By hand in 9ddc802."""
NEAR_MISS_TIE_MARGIN = 4.0
"""Closer than this, both servers are plausible and the name is ambiguous. By hand in 9ddc802."""
SUGGESTION_MIN_SIMILARITY = 70.0
"""An offer ("did you mean"; `glthb` → github scores 73) commits to nothing, so it may be looser. By hand in
4cf304e."""
MAX_SUGGESTIONS = 3
"""Names offered at most: enough to pick from, few enough to read."""
MAX_NEAR_MISS_CHARS = 200
"""A longer name is compared exactly only (steps 1-4): no real name is that long (`bounds.MAX_ECHOED_NAME_CHARS`),
and comparing a megabyte of text with every name by similarity takes seconds."""


@dataclass(frozen=True)
class Resolved:
    server: str
    reading: Reading

    @property
    def approximate(self) -> bool:
        """The name was read as this server without spelling its key or an alias (so say which server it was)."""
        return self.reading in APPROXIMATE_READINGS


@dataclass(frozen=True)
class Ambiguous:
    candidates: tuple[str, ...]
    reading: Reading


@dataclass(frozen=True)
class Unknown:
    suggestions: tuple[str, ...]


ServerResolution = Resolved | Ambiguous | Unknown


def resolve_server(name: str, servers: Iterable[tuple[str, Sequence[str]]]) -> ServerResolution:
    labels: list[tuple[str, str]] = []  # (key or alias, the server's key)
    for key, aliases in servers:
        labels.append((key, key))
        labels.extend((alias, key) for alias in aliases)
    if any(name == label == key for label, key in labels):
        return Resolved(name, "key")
    return _spelled(name, labels) or _near_miss(name, labels)


_SPELLINGS: tuple[tuple[Reading, Callable[[str], str]], ...] = (
    ("alias", lambda text: text),
    ("case", lambda text: text.strip().casefold()),
    ("separators", name_key),
)


def _spelled(name: str, labels: Sequence[tuple[str, str]]) -> Resolved | Ambiguous | None:
    for reading, normalize in _SPELLINGS:
        wanted = normalize(name)
        fitting = sorted({key for label, key in labels if wanted and normalize(label) == wanted})
        if len(fitting) == 1:
            return Resolved(fitting[0], reading)
        if fitting:
            return Ambiguous(tuple(fitting), reading)
    return None


def _near_miss(name: str, labels: Sequence[tuple[str, str]]) -> ServerResolution:
    wanted = name_key(name)
    if not wanted or len(name) > MAX_NEAR_MISS_CHARS:
        return Unknown(())
    similarity = _similarity_by_server(wanted, labels)
    best = max(similarity.values(), default=0.0)
    if best < NEAR_MISS_MIN_SIMILARITY:
        ranked = sorted(similarity.items(), key=lambda item: (-item[1], item[0]))
        return Unknown(tuple(key for key, _ in ranked[:MAX_SUGGESTIONS]))
    plausible = sorted(key for key, score in similarity.items() if best - score <= NEAR_MISS_TIE_MARGIN)
    if len(plausible) == 1:
        return Resolved(plausible[0], "near miss")
    return Ambiguous(tuple(plausible), "near miss")


def _similarity_by_server(wanted: str, labels: Sequence[tuple[str, str]]) -> dict[str, float]:
    choices = [name_key(label) for label, _ in labels]
    found = process.extract(wanted, choices, scorer=fuzz.WRatio, limit=None, score_cutoff=SUGGESTION_MIN_SIMILARITY)
    best: dict[str, float] = {}
    for _, score, position in found:
        key = labels[position][1]
        best[key] = max(best.get(key, 0.0), score)
    return best
