"""Lists catalog tools that might serve a sampled target's request as well as the target, for reading by hand.

`python -m benchmarks.styled.candidates_zh 12 --pattern 'nix|flake' --pattern 'commit hash'` prints, for pick
12 of `sample_zh.py`, every other tool that shares words with the target's name (scored, best `SHOWN`), and
every tool whose server key, aliases, name or description matches one of the patterns (the request's content
words, in English and Chinese, case-insensitive regular expressions). Nothing here decides an alternative:
the lists are read and each true equivalent is written into the request's gold by hand (NOTES-zh.md).
`--set zh2` lists for the picks of the second Chinese set instead (NOTES-zh2.md).
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any, cast

from benchmarks.styled.sample_zh import CATALOG, DRAWS, Pick, sample_set

SHOWN = 15
DESCRIPTION_SHOWN = 110
STOP = set("a an the of to for in on by and or with from get list all any new is are be this that it as at".split())


def words(text: str) -> set[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return {w for w in re.findall(r"[a-z0-9]+", spaced.lower()) if w not in STOP and len(w) > 1}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("picks", nargs="*", type=int, help="1-based sample positions (default: all)")
    parser.add_argument("--pattern", action="append", default=[], help="content-word regex, repeatable")
    parser.add_argument("--set", choices=sorted(DRAWS), default="zh", help="which Chinese set (default: zh)")
    args = parser.parse_args()
    document = cast(dict[str, Any], json.loads(CATALOG.read_text()))
    servers = cast(dict[str, dict[str, Any]], document["servers"])
    patterns = [re.compile(p, re.IGNORECASE) for p in cast(list[str], args.pattern)]
    taken, _ = sample_set(cast(str, args.set))
    for index, pick in enumerate(taken, start=1):
        if not args.picks or index in args.picks:
            print_candidates(index, pick, servers, patterns)


def print_candidates(
    index: int, pick: Pick, servers: dict[str, dict[str, Any]], patterns: list[re.Pattern[str]]
) -> None:
    """For pick `index`, the tools sharing words with its name (best `SHOWN`), then every tool a pattern matches."""
    name_words = words(pick.tool)
    print(f"== {index} {pick.server}.{pick.tool}: {pick.description[:160]!r}")
    scored: list[tuple[float, str]] = []
    matched: list[str] = []
    for server, entry in servers.items():
        aliases = " ".join(cast(list[str], entry.get("aliases", [])))
        for tool in cast(list[dict[str, Any]], entry.get("tools", [])):
            if (server, tool["name"]) == (pick.server, pick.tool):
                continue
            description = str(tool.get("description") or "")
            line = f"{server}.{tool['name']}: {description[:DESCRIPTION_SHOWN]!r}"
            score = 2 * len(name_words & words(str(tool["name"]))) + 0.5 * len(name_words & words(description))
            if score >= 2:
                scored.append((score, line))
            text = f"{server} {aliases} {tool['name']} {description}"
            if any(pattern.search(text) for pattern in patterns):
                matched.append(line)
    for score, line in sorted(scored, reverse=True)[:SHOWN]:
        print(f"   name {score:4.1f} {line}")
    for line in matched:
        print(f"   pattern  {line}")


if __name__ == "__main__":
    main()
