"""The seeded draws of target tools for the request sets over `catalog-registry.json` (NOTES-registry.md).

The rules are those of the Chinese styled sets (`benchmarks/styled/sample_zh.py`, whose `sample` this calls): every
(server, tool) pair of the catalog, sorted, is shuffled with `random.Random(seed)` and walked; a tool is taken
unless its server already has two targets, it is a near-copy of a tool already taken (same name once lower-cased
without punctuation, or a description at least 0.9 similar), it has no description, or it was read and judged
not to say what it does (`UNCLEAR`, with the reason). The English set is drawn first; the Chinese set skips every
English target and near-copy of one, so the two measure 180 different tools.

Run: `python -m benchmarks.unseen.sample_registry [--set en|zh] [--descriptions] [--skipped]`.
"""

from __future__ import annotations

import argparse
from functools import cache
from typing import cast

from benchmarks.styled.sample_zh import Pick, Skip, load_pairs, sample
from benchmarks.unseen.list_registry_servers import CATALOG

SEEDS = {"en": 27101, "zh": 27102}
TARGET_COUNT = 90

# Pairs read while drawing whose description does not let a user's request be aimed at them.
UNCLEAR: dict[tuple[str, str], str] = {
    ("gitlab", "health_check"): "a probe of the server and its sign-in; it does nothing a user asks for",
    ("chinese-nlp", "hello_world"): "a probe of the connection (returns fixed text); it does nothing a user asks for",
    ("mcp-server-kubernetes", "ping"): "a probe of the connection; it does nothing a user asks for",
    ("shopify-dev", "learn_shopify_api"): "an instruction to the model to call it before any other Shopify tool",
    ("sentry", "search_sentry_tools"): "a search over the server's own tool list, for the model, not for a user",
    ("sentry", "execute_sentry_tool"): "runs a tool found by search_sentry_tools; what it does depends on that tool",
    ("shopify-dev", "feedback"): "a scorecard the model files about the tools; no user request aims at it",
    ("next-devtools", "browser_eval"): "says it does not drive the browser; it points the model at another program",
    ("monday", "all_widgets_schema"): "schemas for the model to read before it creates widgets; no user asks for them",
}


@cache  # the Chinese draw walks the English one again; a checker asks for both
def draw(set_name: str) -> tuple[list[Pick], list[Skip]]:
    """The picks of set `set_name` in walk order, and the pairs skipped before the last pick, with why."""
    pairs = load_pairs(CATALOG)
    earlier: dict[tuple[str, str], str] = {}
    if set_name == "zh":
        earlier = {(pick.server, pick.tool): "registry-en" for pick in draw("en")[0]}
    return sample(pairs, TARGET_COUNT, seed=SEEDS[set_name], unclear=UNCLEAR, earlier=earlier)


def targets(set_name: str) -> list[tuple[str, str]]:
    picks, _ = draw(set_name)
    return [(pick.server, pick.tool) for pick in picks]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--set", choices=sorted(SEEDS), default="en")
    parser.add_argument("--descriptions", action="store_true", help="print each pick's description")
    parser.add_argument("--skipped", action="store_true", help="also print the skipped pairs and why")
    args = parser.parse_args()
    picks, skipped = draw(cast(str, args.set))
    for index, pick in enumerate(picks, start=1):
        print(f"{index:3d} {pick.server}\t{pick.tool}")
        if args.descriptions:
            print(f"      {' '.join(pick.description.split())[:500]}")
    if args.skipped:
        for skip in skipped:
            print(f"skip {skip.server}\t{skip.tool}\t{skip.reason}")


if __name__ == "__main__":
    main()
