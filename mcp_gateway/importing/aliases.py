"""Aliases for a newly imported server, seeded from its key.

A model names servers loosely ("github" for `github-mcp-server`), and the gateway resolves qualified
tool names by key or alias, so the meaningful words of the key become aliases: `github-mcp-server` →
`github`; `google-calendar` → `google`, `calendar`. Filler (`mcp`, `server`) and generic verbs
(`search`, `get`) are not aliases: they would pull unrelated queries towards the server. An alias that
another server already has, or that two new servers would share, is left out: each name means one server.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping

MIN_ALIAS_LENGTH = 3
FILLER_WORDS = frozenset(
    "mcp server servers stdio http https sse remote local the and for with official tool tools api app client "
    "service get list search find read write create update delete run fetch query my old new legacy test dev "
    "beta".split()
)
_PARTS = re.compile(r"[-_.\s/@:]+|(?<=[a-z0-9])(?=[A-Z])")


def candidate_aliases(name: str) -> list[str]:
    """The meaningful words of a server key, and those words joined when filler was removed."""
    parts = [part.lower() for part in _PARTS.split(name) if part]
    if len(parts) < 2:
        return []
    words = [
        part for part in parts if part not in FILLER_WORDS and len(part) >= MIN_ALIAS_LENGTH and not part.isdigit()
    ]
    candidates: list[str] = []
    joined = "-".join(words)
    if words and joined != "-".join(parts):
        candidates.append(joined)
    if len(words) > 1:
        candidates.extend(words)
    return list(dict.fromkeys(candidates))


def seed_aliases(new: Collection[str], taken: Collection[str]) -> Mapping[str, list[str]]:
    """Aliases per new server key; `taken` holds every existing key and alias (any case)."""
    used = {name.casefold() for name in taken} | {name.casefold() for name in new}
    proposals = {name: [a for a in candidate_aliases(name) if a.casefold() not in used] for name in new}
    counts = Counter(alias.casefold() for aliases in proposals.values() for alias in aliases)
    return {name: [a for a in aliases if counts[a.casefold()] == 1] for name, aliases in proposals.items()}
