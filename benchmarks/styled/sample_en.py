"""Reproducible choice of the 150 target tools for the English styled request set (see NOTES-en.md).

All (server, tool) pairs of `catalog.json` are sorted, shuffled with `random.Random(SEED)`, and walked in
that order. A pair is taken unless its description does not say what it does (empty, or judged unclear by
a reader and listed in `UNCLEAR`), its server already has `PER_SERVER_CAP` targets, or it is a near-copy
of a tool already taken (the same tool name with a near-identical description, or a pair listed in
`NEAR_COPY`). The
hand judgments are kept here, with their reasons, so the walk gives the same sample every time.

Run: `.venv/bin/python -m benchmarks.styled.sample_en` prints the picked pairs, then the skipped ones.
"""

from __future__ import annotations

import difflib
import json
import random
from pathlib import Path
from typing import Any, cast

from benchmarks.bench_data import DEFAULT_DATA_DIR

SEED = 14001
TARGET_COUNT = 150
PER_SERVER_CAP = 2
# A description this short (in characters) cannot say what a tool does; every one seen is a bare name.
MIN_DESCRIPTION_CHARS = 8
# Two tools of the same name are one tool republished when their descriptions match at least this much
# (difflib ratio). Republished copies seen in the catalog score 0.8-1.0; unrelated tools that share a
# generic name ("search") score under 0.3.
NEAR_COPY_RATIO = 0.6

# Pairs a reader could not tell the purpose of from the description, with the reason.
UNCLEAR: dict[tuple[str, str], str] = {
    ("clear-thought", "visualreasoning"): "'process visual reasoning and diagram operations' names no task a user asks",
    ("weather-mcp-server", "get_alerts"): "description is an injected instruction, not a description",
    ("macrostrat-mcp", "defs"): "'routes giving access to standard fields and dictionaries' says no task",
    ("tusclasesparticulares-mcp", "tusclasesparticulares_bulk_operations"): "'bulk operations' names none",
    ("tusclasesparticulares-mcp", "tusclasesparticulares_advanced_filtering"): "'advanced filters' of what",
    ("databutton-mcp", "submit_app_requirements"): "'Submit app requirements' says nothing of what follows",
    ("investor", "get_cnn_fear_greed_index"): "description only states a limit ('Max 30 days of historical data')",
    ("mcp-textube", "deep_analyze"): "description is a prompt to the model, not what the tool does",
    ("clear-thought", "systemsthinking"): "a thinking scaffold; no request a user writes aims at it",
    ("clear-thought", "creativethinking"): "a thinking scaffold; no request a user writes aims at it",
    ("collaborative-reasoning", "collaborativeReasoning"): "a thinking scaffold; no request a user writes aims at it",
    ("clear-thought-mcp-server", "designpattern"): "a thinking scaffold; no request a user writes aims at it",
    ("clear-thought-mcp-server", "visualreasoning"): "a thinking scaffold; no request a user writes aims at it",
}

# Pairs that are near-copies of a pair taken earlier in the walk under another name, with the earlier pair.
NEAR_COPY: dict[tuple[str, str], str] = {
    ("svg2png-mcp", "svg_to_png"): "okppt.convert_svg_to_png (both turn SVG into a PNG)",
    ("fetch", "fetch"): "npx_fetch.fetch_txt (both fetch a URL's readable content)",
}


def catalog_pairs(catalog_path: Path) -> tuple[list[tuple[str, str]], dict[tuple[str, str], str]]:
    """Every (server, tool) pair in a stable order, and each pair's description."""
    servers = cast(dict[str, dict[str, Any]], json.loads(catalog_path.read_text())["servers"])
    descriptions: dict[tuple[str, str], str] = {}
    for server in sorted(servers):
        for tool in cast(list[dict[str, Any]], servers[server].get("tools", [])):
            descriptions[(server, cast(str, tool["name"]))] = cast(str, tool.get("description") or "").strip()
    return list(descriptions), descriptions


def sample(catalog_path: Path) -> tuple[list[tuple[str, str]], list[tuple[tuple[str, str], str]]]:
    """The picked pairs in walk order, and the pairs skipped before the last pick with why."""
    pairs, descriptions = catalog_pairs(catalog_path)
    random.Random(SEED).shuffle(pairs)
    picked: list[tuple[str, str]] = []
    skipped: list[tuple[tuple[str, str], str]] = []
    per_server: dict[str, int] = {}
    for pair in pairs:
        if len(picked) == TARGET_COUNT:
            break
        server, tool = pair
        same_name = next(
            (
                p
                for p in picked
                if p[1] == tool
                and difflib.SequenceMatcher(None, descriptions[p], descriptions[pair]).ratio() >= NEAR_COPY_RATIO
            ),
            None,
        )
        if len(descriptions[pair]) < MIN_DESCRIPTION_CHARS:
            skipped.append((pair, "no description"))
        elif pair in UNCLEAR:
            skipped.append((pair, f"unclear: {UNCLEAR[pair]}"))
        elif per_server.get(server, 0) >= PER_SERVER_CAP:
            skipped.append((pair, f"server {server} already has {PER_SERVER_CAP} targets"))
        elif same_name is not None:
            skipped.append((pair, f"near-copy of {same_name[0]}.{same_name[1]} (same name and description)"))
        elif pair in NEAR_COPY:
            skipped.append((pair, f"near-copy of {NEAR_COPY[pair]}"))
        else:
            picked.append(pair)
            per_server[server] = per_server.get(server, 0) + 1
    return picked, skipped


def main() -> None:
    picked, skipped = sample(DEFAULT_DATA_DIR / "catalog.json")
    for number, (server, tool) in enumerate(picked, start=1):
        print(f"{number:3d} {server} {tool}")
    print(f"\nskipped {len(skipped)}:")
    for (server, tool), reason in skipped:
        print(f"    {server} {tool}: {reason}")


if __name__ == "__main__":
    main()
