"""Which server a name means: one rule for the `server` of search_tools, list_tools, describe_tool and execute_tool.

The rule, step by step; the first step any server fits decides:

1. `key`: the name is a server's key.
2. `alias`: the name is one of a server's aliases.
3. `case`: the name (without surrounding spaces) equals a key or alias ignoring case (`GitHub`, `GH`).
4. `separators`: it equals one ignoring case, separators and punctuation too (`git_hub`, `Git-Hub`), compared
   as `name_key` compares tool names.
5. `near miss`: a typo (`githb`). Each server scores the best rapidfuzz `WRatio` of the name against its key
   and aliases (their `name_key` forms); a server scoring at least `NEAR_MISS_MIN_SIMILARITY` is meant when it
   is the unique best: no other server scores within `NEAR_MISS_TIE_MARGIN` of it.
6. Otherwise the name is unknown, and the servers scoring at least `SUGGESTION_MIN_SIMILARITY` are offered.

When several servers fit one step equally, the answer is `Ambiguous` with all of them, never a guess, and no
looser step is tried. Pure: the caller hands in the servers (key and aliases) and turns the answer into its
own words: the search engine into a note, the service into the error a model reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz, process

from mcp_gateway.search.index import name_key

Reading = Literal["key", "alias", "case", "separators", "near miss"]
"""The step of the rule that read the name: see the module docstring."""
APPROXIMATE_READINGS: frozenset[Reading] = frozenset({"separators", "near miss"})
"""Readings of a name that is not any server's key or alias spelled out (case aside)."""

NEAR_MISS_MIN_SIMILARITY = 80.0
"""WRatio (0-100) a near miss needs: `githb` → github scores 91 and `slak` → slack 89 (a letter dropped), `gitt`
→ github 77 (another word). Chosen by hand with the first search (9ddc802, for search hints), not tuned."""
NEAR_MISS_TIE_MARGIN = 4.0
"""WRatio points by which the best server must beat every other for a near miss to be read as it; closer, both
are plausible and the name is ambiguous. Chosen by hand with the first search (9ddc802), not tuned."""
SUGGESTION_MIN_SIMILARITY = 70.0
"""WRatio for a name to be offered as "did you mean" (`glthb` → github scores 73): looser than reading a name
as a server, since an offer commits to nothing. Chosen by hand with the service layer (4cf304e), not tuned."""
MAX_SUGGESTIONS = 3
"""Names offered at most: enough for a model to pick from, few enough to read. A convention, not tuned."""
MAX_NEAR_MISS_CHARS = 200
"""A longer name is compared exactly only (steps 1-4), as a longer tool name gets no suggestions: it is the
bound on quoted names (`bounds.MAX_ECHOED_NAME_CHARS`), no real name is that long, and comparing a megabyte of
text with every name by similarity takes seconds."""


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
    """The servers the name fits equally, sorted."""
    reading: Reading


@dataclass(frozen=True)
class Unknown:
    suggestions: tuple[str, ...]
    """Servers close enough to be worth offering, the closest first; often none."""


ServerResolution = Resolved | Ambiguous | Unknown


def resolve_server(name: str, servers: Iterable[tuple[str, Sequence[str]]]) -> ServerResolution:
    """The server `name` means among `servers` (each its key and aliases), by the rule in the module docstring."""
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
"""Steps 2-4: the name and a label are the same once both are normalized this way."""


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
    """Step 5, else step 6."""
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
    """Each server's best WRatio against `wanted` over its key and aliases, for servers at least suggestable."""
    choices = [name_key(label) for label, _ in labels]
    found = process.extract(wanted, choices, scorer=fuzz.WRatio, limit=None, score_cutoff=SUGGESTION_MIN_SIMILARITY)
    best: dict[str, float] = {}
    for _, score, position in found:
        key = labels[position][1]
        best[key] = max(best.get(key, 0.0), score)
    return best
