"""The hits of one search, each with its level of confidence and the reasons a model can check.

Each phrasing of the request (the query and each alternative) judges the hits of its own ranking
(`judged`): what a hit explains of that phrasing (`confidence.judge`), its signals (`calibration.Signals`, its
margins read in that ranking) and the calibrated model's level (`calibration.level`). A hit takes the best level
any phrasing gives it. Then the final order settles it (`settled`), by three rules:

- A tool the request names outright (`read_file`, `everything.get-sum`, or such a name inside a longer request) is
  `high`: a typed name is a fast path.
- Only the first hit and its namesakes can be `high`: "high" means call it without looking further, and a tool
  the ranking puts below another cannot mean that. Namesakes (the same tool name on several servers: `echo` on
  two) are alternatives of equal standing, not doubt: each takes the first hit's level and names the others.
- A deprecated tool is never `high` beside the tool that replaces it (`deprecation.py`), and says what to use.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mcp_gateway.search.calibration import Confidence, Signals, level, probability
from mcp_gateway.search.confidence import Evidence, judge
from mcp_gateway.search.deprecation import deprecation_reason, superseded_by
from mcp_gateway.search.index import SearchIndex, name_key

MAX_NAMESAKES_NAMED = 3
"""Other servers with the same tool named in a hit's reasons at most: enough for a model to choose by server."""
NAMED_REASON = "the query names this tool"
LEVEL_ORDER: Mapping[Confidence, int] = {"low": 0, "medium": 1, "high": 2}


@dataclass(frozen=True)
class SearchHit:
    server: str
    tool: str
    score: float
    confidence: Confidence
    reasons: tuple[str, ...]
    signals: Signals | None = None
    """The evidence its level was read from (`calibration.Signals`), for benchmarks and explanations."""


@dataclass(frozen=True)
class Candidate:
    """A ranked tool to judge, with what its phrasing's ranking knows of it."""

    doc_id: int
    score: float
    name_asked: float
    """Share of its name the phrasing asks for (`fits.NameFits.shares`)."""
    objects_found: float
    """Share of the phrasing's objects its first sentence holds (`fits.ObjectFits.shares`)."""
    server_named: float
    """How clearly the phrasing names its server (`ranking.server_intent`)."""


@dataclass(frozen=True)
class Judged:
    """One phrasing's verdict on one tool."""

    confidence: Confidence
    reasons: tuple[str, ...]
    signals: Signals


def judged(index: SearchIndex, evidence: Evidence, candidates: Sequence[Candidate]) -> dict[int, Judged]:
    """Each of one phrasing's ranked tools (best first) judged on that phrasing: its level read from its signals,
    each hit as the first of those from it down (what is above it is for `settled` to tell)."""
    tools = [index.tools[candidate.doc_id] for candidate in candidates]
    names = [name_key(tool.entry.name) for tool in tools]
    coverage: list[float] = []
    reasons: list[tuple[str, ...]] = []
    named: list[bool] = []
    for tool in tools:
        server = tool.entry.server
        phrases = index.servers[server].phrases
        server_terms = {word for phrase in phrases if evidence.said.issuperset(phrase) for word in phrase}
        keys = (name_key(tool.entry.name), name_key(f"{server}.{tool.entry.name}"))
        naming = not evidence.names.isdisjoint(keys)
        judgement = judge(evidence, tool, server_terms=server_terms, named_exactly=naming)
        coverage.append(judgement.coverage)
        reasons.append(judgement.reasons)
        named.append(naming)
    length = math.log1p(len(evidence.words))
    verdicts: dict[int, Judged] = {}
    for position, candidate in enumerate(candidates):
        below = [other for other in range(position + 1, len(candidates)) if names[other] != names[position]]
        runner_up = max((candidates[other].score for other in below), default=0.0)
        explained = coverage[position]
        signals = Signals(
            coverage=explained,
            coverage_lead=explained * (explained - max((coverage[other] for other in below), default=0.0)),
            margin=explained * (1.0 - runner_up / candidate.score) if candidate.score > 0 else 0.0,
            name_asked=explained * candidate.name_asked,
            objects_found=explained * candidate.objects_found,
            server_named=candidate.server_named,
            length=length,
        )
        confidence: Confidence = "high" if named[position] else level(probability(signals))
        verdicts[candidate.doc_id] = Judged(confidence, reasons[position], signals)
    return verdicts


def best_of(verdicts: Sequence[Mapping[int, Judged]], doc_id: int) -> Judged | None:
    """The best level any phrasing gives a tool (the first phrasing wins a tie); None when none judged it."""
    found = [each[doc_id] for each in verdicts if doc_id in each]
    return max(found, key=lambda verdict: LEVEL_ORDER[verdict.confidence]) if found else None


def settled(index: SearchIndex, ranked: Sequence[tuple[int, float, Judged]]) -> tuple[SearchHit, ...]:
    """The final order's hits, with the rules of order over each one's verdict: only the first hit and its
    namesakes can be high, namesakes take the first hit's level, a deprecated tool yields to its replacement."""
    if not ranked:
        return ()
    tools = [index.tools[doc_id] for doc_id, _, _ in ranked]
    names = [name_key(tool.entry.name) for tool in tools]
    qualified = [f"{tool.entry.server}.{tool.entry.name}" for tool in tools]
    first = ranked[0][2]
    # A first hit named outright, server and all, says nothing for its namesakes: each is judged on its own.
    lead = first.confidence if NAMED_REASON not in first.reasons else None
    hits: list[SearchHit] = []
    for position, ((_, score, verdict), tool) in enumerate(zip(ranked, tools, strict=True)):
        confidence, reasons = verdict.confidence, verdict.reasons
        namesakes = [other for other, name in zip(qualified, names, strict=True) if name == names[position]]
        namesakes.remove(qualified[position])
        if names[position] == names[0]:
            confidence = lead or confidence
        elif confidence == "high":
            confidence = "medium"
            reasons = (*reasons, f"ranked below {qualified[0]}")
        if tool.deprecation is not None:
            found = [each.entry.name for each in tools if each.entry.server == tool.entry.server]
            replacement = superseded_by(tool.deprecation, found)
            if replacement is not None and confidence == "high":
                confidence = "medium"
            reasons = (deprecation_reason(replacement), *reasons)
        if namesakes:
            reasons = (*reasons, f"the same tool as {', '.join(namesakes[:MAX_NAMESAKES_NAMED])}")
        hits.append(
            SearchHit(tool.entry.server, tool.entry.name, round(score, 3), confidence, reasons, verdict.signals)
        )
    return tuple(hits)
