"""The seeded sample of target tools for the Chinese styled request set (see NOTES-zh.md).

Shuffles every (server, tool) pair of the bench catalog with `random.Random(SEED)` and walks the shuffled
list, taking a tool unless its server already has `PER_SERVER_LIMIT` targets, it is a near-copy of a tool
already taken (same normalised name, or a description that is nearly the same text), or it was read and
judged to have a description that does not say what the tool does (`UNCLEAR`, each with the reason). The
sample is reproducible: run `python -m benchmarks.styled.sample_zh` to print the picked pairs in order,
with the skipped ones and why (`--skipped`).
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from benchmarks.bench_data import DEFAULT_DATA_DIR

SEED = 14002
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


def _normalised_name(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def load_pairs(path: Path = CATALOG) -> list[Pick]:
    document = cast(dict[str, Any], json.loads(path.read_text()))
    pairs: list[Pick] = []
    for server, entry in sorted(cast(dict[str, dict[str, Any]], document["servers"]).items()):
        for tool in cast(list[dict[str, Any]], entry.get("tools", [])):
            pairs.append(Pick(server, str(tool["name"]), str(tool.get("description") or "").strip()))
    return pairs


def _near_copy(candidate: Pick, taken: list[Pick]) -> Pick | None:
    for pick in taken:
        if _normalised_name(pick.tool) == _normalised_name(candidate.tool):
            return pick
        ratio = difflib.SequenceMatcher(None, pick.description, candidate.description).ratio()
        if candidate.description and ratio >= NEAR_COPY_RATIO:
            return pick
    return None


def sample(pairs: list[Pick], count: int = TARGET_COUNT) -> tuple[list[Pick], list[Skip]]:
    shuffled = list(pairs)
    random.Random(SEED).shuffle(shuffled)
    taken: list[Pick] = []
    skipped: list[Skip] = []
    per_server: dict[str, int] = {}
    for pair in shuffled:
        if len(taken) == count:
            break
        if per_server.get(pair.server, 0) >= PER_SERVER_LIMIT:
            skipped.append(Skip(pair.server, pair.tool, f"server already has {PER_SERVER_LIMIT} targets"))
            continue
        if (pair.server, pair.tool) in UNCLEAR:
            skipped.append(Skip(pair.server, pair.tool, UNCLEAR[(pair.server, pair.tool)]))
            continue
        if not pair.description:
            skipped.append(Skip(pair.server, pair.tool, "no description"))
            continue
        copy = _near_copy(pair, taken)
        if copy is not None:
            skipped.append(Skip(pair.server, pair.tool, f"near-copy of {copy.server}.{copy.tool}"))
            continue
        taken.append(pair)
        per_server[pair.server] = per_server.get(pair.server, 0) + 1
    return taken, skipped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skipped", action="store_true", help="also print the skipped pairs and why")
    parser.add_argument("--descriptions", action="store_true", help="print each picked tool's description")
    args = parser.parse_args()
    taken, skipped = sample(load_pairs())
    for index, pick in enumerate(taken, start=1):
        print(f"{index:3d} {pick.server}\t{pick.tool}")
        if args.descriptions:
            print(f"      {pick.description[:400]}")
    if args.skipped:
        for skip in skipped:
            print(f"skip {skip.server}\t{skip.tool}\t{skip.reason}")


if __name__ == "__main__":
    main()
