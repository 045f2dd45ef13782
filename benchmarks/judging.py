"""Whether `search_tools` means what it says: precision of the top hit per confidence level, and abstention.

Two measurements beside recall (`benchmarks/retrieval.py` prints both in the same run):

- Calibration. For each query with a gold tool, the top hit's confidence (high, medium, low) and whether the
  top hit is right (any gold or alternative). Per level: how many queries fall in it and the share whose top hit
  is right. "high" should mean the model can call the tool without looking further.
- Abstention. Requests no tool in the catalog can serve (`benchmarks/abstention/`, see its README). The share
  answered with a low-confidence top hit or no hit at all, and the share of those whose result names the
  servers that exist (so the model can say plainly that none of them does this).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from benchmarks.bench_data import Query
from mcp_gateway.search import SearchEngine, SearchResult
from mcp_gateway.wording import said

LEVELS = ("high", "medium", "low")
ABSTENTION_DIR = Path(__file__).resolve().parent / "abstention"
DEV_UNANSWERABLE = ABSTENTION_DIR / "unanswerable.jsonl"
"""The unanswerable requests looked at while tuning. The held-out file beside it is never run while tuning."""
NO_HIT = "none"
"""The confidence recorded for a query that got no hit at all."""


@dataclass(frozen=True)
class Request:
    id: str
    text: str
    lang: str


@dataclass(frozen=True)
class Judged:
    """One query's result as the judging needs it: the ranked pairs, the top hit's confidence, the notes."""

    pairs: list[tuple[str, str]]
    confidence: str
    notes: tuple[str, ...]


def judged(result: SearchResult) -> Judged:
    pairs = [(hit.server, hit.tool) for hit in result.hits]
    confidence = result.hits[0].confidence if result.hits else NO_HIT
    return Judged(pairs, confidence, tuple(said(note).for_model() for note in result.notes))


def load_requests(path: Path) -> list[Request]:
    requests: list[Request] = []
    for line in path.read_text().splitlines():
        if line.strip():
            raw = cast(dict[str, Any], json.loads(line))
            requests.append(Request(str(raw["id"]), str(raw["query"]), str(raw.get("lang", "en"))))
    return requests


@dataclass(frozen=True)
class LevelPrecision:
    level: str
    count: int
    right: int

    @property
    def precision(self) -> float:
        return self.right / self.count if self.count else 0.0


def precision_by_level(queries: Sequence[Query], results: dict[str, Judged]) -> list[LevelPrecision]:
    """Per confidence level of the top hit: how many queries, and how many of those have the right top hit."""
    counts = {level: [0, 0] for level in (*LEVELS, NO_HIT)}
    for query in queries:
        result = results[query.id]
        right = bool(result.pairs) and any(gold.accepts(result.pairs[0]) for gold in query.gold)
        counts[result.confidence][0] += 1
        counts[result.confidence][1] += right
    return [LevelPrecision(level, count, right) for level, (count, right) in counts.items() if count or level in LEVELS]


def lists_servers(notes: Sequence[str], servers: Sequence[str]) -> bool:
    """Whether the notes name the servers that exist: every one, or as many as a bounded note shows and how many
    more there are ("and N more")."""
    text = "\n".join(notes)
    named = sum(bool(re.search(rf"(?<![\w.-]){re.escape(server)}(?![\w.-])", text)) for server in servers)
    if named == len(servers):
        return True
    return named > 0 and f"and {len(servers) - named} more" in text


@dataclass(frozen=True)
class Abstention:
    count: int
    low: int
    listed: int
    by_lang: dict[str, tuple[int, int]]
    """Per language: (requests, answered low or with no hit)."""


def abstention(engine: SearchEngine, requests: Sequence[Request], limit: int) -> Abstention:
    servers = engine.server_names()
    low = listed = 0
    by_lang: dict[str, list[int]] = {}
    for request in requests:
        result = judged(engine.search(request.text, limit=limit))
        abstained = result.confidence in ("low", NO_HIT)
        low += abstained
        listed += abstained and lists_servers(result.notes, servers)
        counts = by_lang.setdefault(request.lang, [0, 0])
        counts[0] += 1
        counts[1] += abstained
    return Abstention(len(requests), low, listed, {lang: (n, k) for lang, (n, k) in sorted(by_lang.items())})


def print_calibration(label: str, levels: Sequence[LevelPrecision]) -> None:
    """Per level: the share of the queries given it, and how often their top hit is right."""
    total = sum(lp.count for lp in levels) or 1
    cells = [f"{lp.level} {lp.count / total:.0%} right {lp.precision:.3f} (n={lp.count})" for lp in levels]
    print(f"top-hit precision by confidence, {label}: " + ", ".join(cells))


def print_abstention(name: str, result: Abstention) -> None:
    share = result.low / result.count if result.count else 0.0
    listed = result.listed / result.low if result.low else 0.0
    langs = ", ".join(f"{lang} {k}/{n}" for lang, (n, k) in result.by_lang.items())
    print(
        f"abstention on {name}: {result.low}/{result.count} = {share:.3f} answered low or with no hit ({langs}); "
        f"{result.listed}/{result.low} = {listed:.3f} of those name the servers"
    )
