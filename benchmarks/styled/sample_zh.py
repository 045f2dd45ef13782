"""The seeded samples of target tools for the Chinese styled request sets (see NOTES-zh.md, NOTES-zh2.md).

Shuffles every (server, tool) pair of the bench catalog with `random.Random(seed)` and walks the shuffled
list, taking a tool unless its server already has `PER_SERVER_LIMIT` targets, it is a near-copy of a tool
already taken (same normalised name, or a description that is nearly the same text), or it was read and
judged to have a description that does not say what the tool does (`UNCLEAR`, each with the reason).

Two sets are drawn this way. `zh` (seed 14002) is the first. `zh2` (seed 14003) was drawn later to make the
Chinese estimates less noisy; it also skips every target of the English sample and of `zh`, and every
near-copy of one, so it measures 120 tools neither of them does (the English and `zh` samples, drawn
independently, share 10 targets). A later set never changes an earlier one: its exclusions and its own
unclear pairs apply to its walk only.

The samples are reproducible: `python -m benchmarks.styled.sample_zh [--set zh2]` prints the picked pairs in
order, with the skipped ones and why (`--skipped`).
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from benchmarks.bench_data import DEFAULT_DATA_DIR
from benchmarks.styled import sample_en

SEED = 14002
ZH2_SEED = 14003
TARGET_COUNT = 120
PER_SERVER_LIMIT = 2
# Two descriptions at least this similar (difflib ratio, 0..1) are the same tool republished; 0.9 was chosen
# by reading pairs of the catalog: copies with a changed product name score above it, siblings below.
NEAR_COPY_RATIO = 0.9
CATALOG = DEFAULT_DATA_DIR / "catalog.json"

# Pairs read during sampling whose description does not let a user's request be aimed at them.
UNCLEAR: dict[tuple[str, str], str] = {
    ("ppt", "get_server_info"): "'information about the MCP server' does not say which information",
    ("lyrical-mcp", "ping"): "a liveness probe of the connection; it does nothing a user asks for",
    ("tusclasesparticulares-mcp", "tusclasesparticulares_handle_subscription_limits"): (
        "'handle subscription limits and payment workflows' does not say what it does to them"
    ),
    ("tusclasesparticulares-mcp", "tusclasesparticulares_bulk_operations"): (
        "'bulk operations on multiple items' names no operation and no kind of item"
    ),
    ("streen9-azure-mcp", "run-azure-code"): "'Run Azure code' does not say what the code does or returns",
}

# Pairs read while drawing `zh2` and judged the same way. Kept apart from `UNCLEAR` so that the first set's
# walk and its printed skip reasons stay exactly as they were written; `zh2` also honours every pair the
# English writer judged unclear (`sample_en.UNCLEAR`), as a later set should not overrule an earlier reading.
UNCLEAR_ZH2: dict[tuple[str, str], str] = {
    ("clear-thought", "metacognitivemonitoring"): "a thinking scaffold; no request a user writes aims at it",
    ("clear-thought", "collaborativereasoning"): "a thinking scaffold; no request a user writes aims at it",
    ("mcp-sequentialthinking-tools", "sequentialthinking_tools"): (
        "a thinking scaffold; no request a user writes aims at it"
    ),
    ("blockscout-mcp-server", "__get_instructions__"): (
        "an instruction to the model to call it before any other tool; it does nothing a user asks for"
    ),
}


@dataclass(frozen=True)
class Pick:
    server: str
    tool: str
    description: str


@dataclass(frozen=True)
class Skip:
    server: str
    tool: str
    reason: str


@dataclass(frozen=True)
class Draw:
    """How one set is drawn: its seed, its own unclear pairs, and the earlier sets whose targets it skips."""

    seed: int
    unclear: Mapping[tuple[str, str], str]
    after: tuple[str, ...] = field(default=())


DRAWS: dict[str, Draw] = {
    "zh": Draw(SEED, UNCLEAR),
    "zh2": Draw(ZH2_SEED, {**sample_en.UNCLEAR, **UNCLEAR, **UNCLEAR_ZH2}, after=("en", "zh")),
}


def _normalised_name(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def load_pairs(path: Path = CATALOG) -> list[Pick]:
    return pairs_of(cast(dict[str, Any], json.loads(path.read_text())))


def pairs_of(document: dict[str, Any]) -> list[Pick]:
    """Every (server, tool) pair of a catalog document, sorted by server, tools in listing order."""
    pairs: list[Pick] = []
    for server, entry in sorted(cast(dict[str, dict[str, Any]], document["servers"]).items()):
        for tool in cast(list[dict[str, Any]], entry.get("tools", [])):
            pairs.append(Pick(server, str(tool["name"]), str(tool.get("description") or "").strip()))
    return pairs


def _near_copy(candidate: Pick, taken: Iterable[Pick]) -> Pick | None:
    for pick in taken:
        if _normalised_name(pick.tool) == _normalised_name(candidate.tool):
            return pick
        if candidate.description and similar_descriptions(pick.description, candidate.description):
            return pick
    return None


def similar_descriptions(first: str, second: str) -> bool:
    """Whether two descriptions are at least `NEAR_COPY_RATIO` alike by `difflib`'s ratio.

    The two cheap upper bounds of the ratio are tried first, so that the many unlike pairs of a walk skip the
    full comparison: the answer is the ratio's, only faster.
    """
    matcher = difflib.SequenceMatcher(None, first, second)
    return (
        matcher.real_quick_ratio() >= NEAR_COPY_RATIO
        and matcher.quick_ratio() >= NEAR_COPY_RATIO
        and matcher.ratio() >= NEAR_COPY_RATIO
    )


def sample(
    pairs: list[Pick],
    count: int = TARGET_COUNT,
    *,
    seed: int = SEED,
    unclear: Mapping[tuple[str, str], str] = UNCLEAR,
    earlier: Mapping[tuple[str, str], str] | None = None,
) -> tuple[list[Pick], list[Skip]]:
    """The picks in walk order and the pairs skipped before the last pick, with why.

    `earlier` maps each target of an earlier set to that set's name: such a pair, or a near-copy of one, is
    skipped, so the new set shares no target with it.
    """
    earlier = earlier or {}
    descriptions = {(pair.server, pair.tool): pair for pair in pairs}
    earlier_picks = [descriptions[pair] for pair in earlier if pair in descriptions]
    shuffled = list(pairs)
    random.Random(seed).shuffle(shuffled)
    taken: list[Pick] = []
    skipped: list[Skip] = []
    per_server: dict[str, int] = {}
    for pair in shuffled:
        if len(taken) == count:
            break
        key = (pair.server, pair.tool)
        if key in earlier:
            skipped.append(Skip(pair.server, pair.tool, f"a target of the {earlier[key]} set"))
            continue
        if per_server.get(pair.server, 0) >= PER_SERVER_LIMIT:
            skipped.append(Skip(pair.server, pair.tool, f"server already has {PER_SERVER_LIMIT} targets"))
            continue
        if key in unclear:
            skipped.append(Skip(pair.server, pair.tool, unclear[key]))
            continue
        if not pair.description:
            skipped.append(Skip(pair.server, pair.tool, "no description"))
            continue
        copy = _near_copy(pair, taken)
        if copy is not None:
            skipped.append(Skip(pair.server, pair.tool, f"near-copy of {copy.server}.{copy.tool}"))
            continue
        copy = _near_copy(pair, earlier_picks)
        if copy is not None:
            owner = earlier[(copy.server, copy.tool)]
            reason = f"near-copy of {copy.server}.{copy.tool}, a target of the {owner} set"
            skipped.append(Skip(pair.server, pair.tool, reason))
            continue
        taken.append(pair)
        per_server[pair.server] = per_server.get(pair.server, 0) + 1
    return taken, skipped


def _targets_of(name: str, pairs: list[Pick]) -> list[tuple[str, str]]:
    if name == "en":
        english, _ = sample_en.sample(CATALOG)
        return list(english)
    picks, _ = sample_set(name, pairs)
    return [(pick.server, pick.tool) for pick in picks]


def sample_set(name: str, pairs: list[Pick] | None = None) -> tuple[list[Pick], list[Skip]]:
    """The draw of the Chinese set `name` ("zh" or "zh2"), as NOTES-zh.md and NOTES-zh2.md describe."""
    draw = DRAWS[name]
    pairs = load_pairs() if pairs is None else pairs
    earlier: dict[tuple[str, str], str] = {}
    for earlier_name in draw.after:
        for pair in _targets_of(earlier_name, pairs):
            earlier.setdefault(pair, earlier_name)
    return sample(pairs, seed=draw.seed, unclear=draw.unclear, earlier=earlier)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skipped", action="store_true", help="also print the skipped pairs and why")
    parser.add_argument("--descriptions", action="store_true", help="print each picked tool's description")
    parser.add_argument("--set", choices=sorted(DRAWS), default="zh", help="which Chinese set (default: zh)")
    args = parser.parse_args()
    taken, skipped = sample_set(cast(str, args.set))
    for index, pick in enumerate(taken, start=1):
        print(f"{index:3d} {pick.server}\t{pick.tool}")
        if args.descriptions:
            print(f"      {pick.description[:400]}")
    if args.skipped:
        for skip in skipped:
            print(f"skip {skip.server}\t{skip.tool}\t{skip.reason}")


if __name__ == "__main__":
    main()
