"""The seeded samples of target tools for the outside request sets (see NOTES-outside.md).

The pairs are the (server, tool) pairs of the outside catalog (`catalogs.py`: the 474 servers of
`catalog-xl.json` that `catalog.json` lacks). Each set is drawn by `benchmarks.styled.sample_zh.sample`, the
walk the Chinese styled sets were drawn with: shuffle with `random.Random(seed)`, take a pair unless its server
already has two targets, its description is empty or was read and judged not to say what the tool does
(`UNCLEAR`, with the reason), or it is a near-copy of a pair already taken. Two further skips serve this set's
purpose, measuring servers the search was not tuned on:

- a republished copy of a `catalog.json` tool (the same name, lower-cased without punctuation, and a description
  at least `NEAR_COPY_RATIO` similar) is skipped: its words are ones the glossaries were built from;
- the Chinese draw skips every English target and every near-copy of one, so the two sets measure 240
  different tools.

Run: `python -m benchmarks.unseen.sample [--set outside-zh] [--descriptions] [--skipped]`.
"""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Mapping
from typing import cast

from benchmarks.bench_data import DEFAULT_DATA_DIR
from benchmarks.styled.sample_zh import NEAR_COPY_RATIO, Pick, Skip, pairs_of, sample
from benchmarks.unseen.catalogs import outside_catalog, read_catalog

SEEDS = {"outside-en": 27001, "outside-zh": 27002}
TARGET_COUNT = 120
# The set whose targets (and their near-copies) a set's walk skips.
DRAWN_AFTER = {"outside-zh": "outside-en"}

# Pairs read while drawing whose description does not let a user's request be aimed at them, with the reason.
UNCLEAR: dict[tuple[str, str], str] = {
    ("e2e-mcp", "browser_batch"): "'runs a bunch of steps at once' names no step; it batches other tools' calls",
    ("waha-api-mcp-server", "ChannelsController_get"): "the description only says which ids it takes",
    ("denemem", "weather_greeting"): "returns the assistant's greeting; it does nothing a user asks for",
    ("opik-mcp-server", "get-server-info"): "'information about the Opik server configuration' does not say which",
    ("scientific-research-claude-extension", "execute_resilient_query"): (
        "says how a research query is run (with fallbacks), not what it does or returns"
    ),
    ("local-api-mcp-typescript", "get-application-list"): "'the list of applications' does not say which applications",
    ("mlflowmcpserver", "get_system_info"): "'information about the MLflow tracking server and system': which",
    ("scientific-research-claude-extension", "get_graph_summary"): (
        "names internal formalism codes (P1.11, P1.22), not what a user is told"
    ),
    ("autospectra-mcp-server", "initialize_computer"): "sets up a provider for the model's later calls",
    ("interactive-feedback-mcp", "interactive_feedback"): "the model's way to ask its user; no request aims at it",
    ("eventhorizon", "start_evolution"): "a thinking scaffold; no request a user writes aims at it",
}


def _normalised_name(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def seen_copies(pairs: list[Pick], inner: list[Pick]) -> dict[tuple[str, str], str]:
    """The outside pairs that republish a `catalog.json` tool, each with the reason it is skipped."""
    inner_by_name: dict[str, list[Pick]] = {}
    for pick in inner:
        inner_by_name.setdefault(_normalised_name(pick.tool), []).append(pick)
    copies: dict[tuple[str, str], str] = {}
    for pick in pairs:
        for seen in inner_by_name.get(_normalised_name(pick.tool), []):
            if difflib.SequenceMatcher(None, seen.description, pick.description).ratio() >= NEAR_COPY_RATIO:
                copies[(pick.server, pick.tool)] = f"a copy of catalog.json's {seen.server}.{seen.tool}"
                break
    return copies


def outside_pairs() -> list[Pick]:
    return pairs_of(outside_catalog())


def draw_all(pairs: list[Pick] | None = None) -> dict[str, tuple[list[Pick], list[Skip]]]:
    """Both draws, each set's picks in walk order and the pairs its walk skipped, with why."""
    pairs = outside_pairs() if pairs is None else pairs
    inner = pairs_of(read_catalog(DEFAULT_DATA_DIR / "catalog.json"))
    unclear: Mapping[tuple[str, str], str] = {**seen_copies(pairs, inner), **UNCLEAR}
    draws: dict[str, tuple[list[Pick], list[Skip]]] = {}
    for name, seed in SEEDS.items():  # in drawing order: a set is drawn after the set it must not share targets with
        earlier: dict[tuple[str, str], str] = {}
        if name in DRAWN_AFTER:
            before, _ = draws[DRAWN_AFTER[name]]
            earlier = {(pick.server, pick.tool): DRAWN_AFTER[name] for pick in before}
        draws[name] = sample(pairs, TARGET_COUNT, seed=seed, unclear=unclear, earlier=earlier)
    return draws


def sample_set(name: str) -> tuple[list[Pick], list[Skip]]:
    """The draw of the set `name` ("outside-en" or "outside-zh"): picks in walk order, and the skips and why."""
    return draw_all()[name]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--set", choices=sorted(SEEDS), default="outside-en", help="which set (default: English)")
    parser.add_argument("--descriptions", action="store_true", help="print each picked tool's description")
    parser.add_argument("--skipped", action="store_true", help="also print the skipped pairs and why")
    args = parser.parse_args()
    taken, skipped = sample_set(cast(str, args.set))
    for index, pick in enumerate(taken, start=1):
        print(f"{index:3d} {pick.server}\t{pick.tool}")
        if args.descriptions:
            print(f"      {pick.description[:600]}")
    if args.skipped:
        for skip in skipped:
            print(f"skip {skip.server}\t{skip.tool}\t{skip.reason}")


if __name__ == "__main__":
    main()
