"""Identical copies: one tool published unchanged on several servers shows once among the first places.

A large catalog carries the same tool, same name and same description, on several servers: Microsoft's Playwright
tools (`browser_navigate`) on four servers, one of them an end-to-end testing server and one a pentest kit, and an
`nmap_scan` on an OSINT server and a pentest server besides nmap's own. Identical text scores identically, so
the copies sit side by side and fill the first places a model reads with one tool said twice, pushing a distinct
tool (often the one wanted) out of them. Which copy the benchmark or the user wants is not known from the text,
which is why the copies are not collapsed (a model may need the copy on the server the user actually runs) and
the later ones are not pushed down outright (measured before: the wanted copy was often the lower one).

So, in a ranking, one copy of each group of identical tools keeps its place and the others wait below the first
`DISTINCT_PLACES` places, in their own order. The copy that keeps its place is the one with the best evidence of
being the original: its name and description say the most of its own server's key and alias words (`nmap_scan`
says nmap, the word of `nmap-mcp-server`, and nothing of an OSINT server); on equal evidence, the one ranked
first. Tools differing by a word are not copies here: those are told apart by `originality.py` (republished
under another server's name, or bundled) and by their text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from mcp_gateway.search.index import SearchIndex, name_key
from mcp_gateway.search.ranking import Scored

DISTINCT_PLACES = 5
"""The first places of a ranking that show one copy of a tool at most: the hits a model reads before it decides
(search_tools returns 10 by default, and a weak search's answer names its first few). Measured with
`benchmarks/retrieval.py`: catalog.json unchanged at every value (.576/.879/.680, task R@5 .623; 31 of its
queries have identical copies in their top 5, none decides a hit); catalog-xl.json single+step R@1/R@5/MRR
.418/.782/.557 without the rule; 1 → .418/.782/.557; 3 → .418/.782/.561; 5 → .418/.785/.562; 10 → as 5. Five is
also the window R@5 reads, so read the gain as the copies leaving that window, which 10 does as well."""


class IdenticalCopies:
    """One engine's groups of identical tools, recomputed when its index changes (a pass over the tools whose name
    another tool has too: 8 ms for catalog-xl.json's 5,645 tools, so once per change rather than per query)."""

    def __init__(self) -> None:
        self._version = -1
        self._groups: dict[int, int] = {}
        self._evidence: dict[int, int] = {}

    def distinct_first(self, index: SearchIndex, ranked: Sequence[Scored]) -> list[Scored]:
        """`ranked` with the copies of a tool that keeps its place moved below the first `DISTINCT_PLACES`."""
        if self._version != index.version:
            self._groups, self._evidence = identical_groups(index)
            self._version = index.version
        keepers: dict[int, int] = {}
        for scored in ranked:
            group = self._groups.get(scored.doc_id)
            if group is None:
                continue
            kept = keepers.get(group)
            if kept is None or self._evidence[scored.doc_id] > self._evidence[kept]:
                keepers[group] = scored.doc_id
        if not keepers:
            return list(ranked)
        shown: list[Scored] = []
        waiting: list[Scored] = []
        for scored in ranked:
            group = self._groups.get(scored.doc_id)
            if group is not None and keepers[group] != scored.doc_id and len(shown) < DISTINCT_PLACES:
                waiting.append(scored)
                continue
            shown.append(scored)
            if waiting and len(shown) >= DISTINCT_PLACES:
                shown.extend(_below(waiting, shown[-1].score))
                waiting = []
        shown.extend(_below(waiting, shown[-1].score if shown else 0.0))
        return shown


def _below(moved: list[Scored], floor: float) -> list[Scored]:
    """The moved copies scored no higher than the tool they now follow, so the scores stay in ranking order."""
    return [replace(scored, score=min(scored.score, floor)) for scored in moved]


def identical_groups(index: SearchIndex) -> tuple[dict[int, int], dict[int, int]]:
    """Each tool that has an identical copy (same name key, same description up to spacing and case) → its group;
    and each such tool → how many of its server's key and alias words its own name and description say."""
    # Only tools whose name another tool has too can have a copy: the index already holds them by name.
    named_alike = {doc_id for holders in index.name_keys.values() if len(holders) > 1 for doc_id in holders}
    by_text: dict[tuple[str, str], list[int]] = {}
    for doc_id in sorted(named_alike):
        tool = index.tools[doc_id]
        description = " ".join(tool.entry.description.split()).casefold()
        by_text.setdefault((name_key(tool.entry.name), description), []).append(doc_id)
    groups: dict[int, int] = {}
    evidence: dict[int, int] = {}
    for group, members in enumerate(members for members in by_text.values() if len(members) > 1):
        for doc_id in members:
            tool = index.tools[doc_id]
            own = {word for phrase in index.servers[tool.entry.server].phrases for word in phrase}
            said = set(tool.field("name")).union(tool.field("description"))
            groups[doc_id] = group
            evidence[doc_id] = len(own & said)
    return groups, evidence
