"""Candidate alternatives for each English styled request, for a person to read (see NOTES-en.md).

For every request in the given JSON-lines files, every catalog tool other than the gold one is scored by how
many of the request's content words and of the gold tool's name words occur in its server key, aliases,
name and description (a word counts once; a name word counts double, since a tool named for the task is the
likeliest equivalent). The best `SHOWN_PER_REQUEST` are printed with their descriptions. This only lists
what to read: whether a candidate serves the request exactly as well as the gold tool is decided by reading
it, and written into the request's `alternatives` by hand.

Run: `.venv/bin/python -m benchmarks.styled.candidates_en benchmarks/styled/en-dev.jsonl ...`
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, cast

from benchmarks.bench_data import DEFAULT_DATA_DIR

SHOWN_PER_REQUEST = 10
DESCRIPTION_CHARS_SHOWN = 100
STOPWORDS = frozenset(
    "a an the and or of to in on for with from by at is are was be been it its this that these those my me i "
    "you your our we us what which who how when where why do does did can could would should will please "
    "show give get tell list find all any some just one over so not no as into out up about there here "
    "right now want need like make have has had them their they him his her she he let use using".split()
)


def words(text: str) -> set[str]:
    """Lower-case content words, camelCase and snake_case split, a plural 's' dropped."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    found = {word.lower() for word in re.findall(r"[A-Za-z][A-Za-z0-9]+", spaced)}
    return {word[:-1] if len(word) > 3 and word.endswith("s") else word for word in found if word not in STOPWORDS}


def main() -> None:
    servers = cast(dict[str, dict[str, Any]], json.loads((DEFAULT_DATA_DIR / "catalog.json").read_text())["servers"])
    tools: list[tuple[str, str, set[str], set[str], str]] = []
    for server, entry in servers.items():
        aliases = " ".join(cast(list[str], entry.get("aliases", [])))
        for tool in cast(list[dict[str, Any]], entry.get("tools", [])):
            name = cast(str, tool["name"])
            description = " ".join(cast(str, tool.get("description") or "").split())
            text_words = words(f"{server} {aliases} {name} {description}")
            tools.append((server, name, text_words, words(name), description))
    for path in sys.argv[1:]:
        for line in Path(path).read_text().splitlines():
            request = cast(dict[str, Any], json.loads(line))
            gold = (cast(str, request["server"]), cast(str, request["tool"]))
            asked = words(cast(str, request["query"])) | words(gold[1])
            scored = sorted(
                (
                    (len(asked & text_words) + len(asked & name_words), server, name, description)
                    for server, name, text_words, name_words, description in tools
                    if (server, name) != gold
                ),
                reverse=True,
            )
            print(f"\n## {request['id']} [{gold[0]}.{gold[1]}] {request['query']}")
            for score, server, name, description in scored[:SHOWN_PER_REQUEST]:
                print(f"   {score:2d} {server}.{name}: {description[:DESCRIPTION_CHARS_SHOWN]}")


if __name__ == "__main__":
    main()
