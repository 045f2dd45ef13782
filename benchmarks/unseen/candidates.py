"""Lists outside-catalog tools that might serve a target's request as well as the target, for reading by hand.

`python -m benchmarks.unseen.candidates --set outside-en 12 --pattern 'tunnel' --pattern 'ngrok'` prints pick 12
of the English draw (`sample.py`) with its server's aliases, description and input schema, then every other
tool of the outside catalog that shares words with the target's name (scored, best `SHOWN`), that shares
content words with the written request (when the set's files hold it; best `SHOWN`), or whose server key,
aliases, name or description matches one of the patterns (the request's content words in English and Chinese,
case-insensitive regular expressions). Nothing here decides an alternative: the lists are read, and each true
equivalent is written into the request's gold by hand (NOTES-outside.md).

`--requests FILE [--id ID]` lists, for requests no target was drawn for (the unanswerable ones), every tool
sharing content words (English words, or pairs of Chinese characters) with the request, and the pattern
matches: what was read to judge that no tool serves it.

This is plain word overlap, not the gateway's search, which the writers of these sets did not run.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from benchmarks.styled.candidates_zh import words
from benchmarks.unseen.catalogs import outside_catalog
from benchmarks.unseen.sample import SEEDS, sample_set

FOLDER = Path(__file__).resolve().parent
SHOWN = 15
DESCRIPTION_SHOWN = 110


@dataclass(frozen=True)
class Tool:
    server: str
    name: str
    description: str
    text: str
    """Server key, aliases, name and description: what patterns and request words are matched against."""
    schema: dict[str, Any]


def tools_of(catalog: dict[str, Any]) -> list[Tool]:
    found: list[Tool] = []
    for server, entry in cast(dict[str, dict[str, Any]], catalog["servers"]).items():
        aliases = " ".join(cast(list[str], entry.get("aliases", [])))
        for tool in cast(list[dict[str, Any]], entry.get("tools", [])):
            description = " ".join(str(tool.get("description") or "").split())
            text = f"{server} {aliases} {tool['name']} {description}"
            found.append(Tool(server, str(tool["name"]), description, text, cast(dict[str, Any], tool["inputSchema"])))
    return found


def written_requests(set_name: str) -> dict[int, str]:
    """The requests already written for a set, by pick number (the id's number)."""
    requests: dict[int, str] = {}
    for path in FOLDER.glob(f"{set_name}-*.jsonl"):
        for line in path.read_text().splitlines():
            if line.strip():
                row = cast(dict[str, Any], json.loads(line))
                requests[int(str(row["id"]).rsplit("-", 1)[1])] = str(row["query"])
    return requests


def cjk_pairs(text: str) -> set[str]:
    """Pairs of adjacent Chinese characters: the content words of a Chinese request, without a segmenter."""
    return {text[i : i + 2] for i in range(len(text) - 1) if all("\u4e00" <= ch <= "\u9fff" for ch in text[i : i + 2])}


def overlap(query: str, tool: Tool) -> int:
    return len(words(query) & words(tool.text)) + len({pair for pair in cjk_pairs(query) if pair in tool.text})


def show(line_head: str, tool: Tool) -> str:
    return f"   {line_head} {tool.server}.{tool.name}: {tool.description[:DESCRIPTION_SHOWN]!r}"


def list_for_requests(path: Path, only: str | None, tools: list[Tool], patterns: list[re.Pattern[str]]) -> None:
    for line in path.read_text().splitlines():
        row = cast(dict[str, Any], json.loads(line)) if line.strip() else {}
        if not row or (only and row["id"] != only):
            continue
        print(f"== {row['id']} {row['query']}")
        ranked = sorted(((overlap(str(row["query"]), tool), tool) for tool in tools), key=lambda scored: -scored[0])
        for score, tool in [scored for scored in ranked if scored[0] >= 2][:SHOWN]:
            print(show(f"words {score:2d}", tool))
        for tool in tools:
            if any(pattern.search(tool.text) for pattern in patterns):
                print(show("pattern", tool))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("picks", nargs="*", type=int, help="1-based sample positions (default: all)")
    parser.add_argument("--set", choices=sorted(SEEDS), default="outside-en", help="which draw (default: English)")
    parser.add_argument("--pattern", action="append", default=[], help="content-word regex, repeatable")
    parser.add_argument("--requests", type=Path, help="a JSON-lines file of requests with no drawn target")
    parser.add_argument("--id", help="with --requests: only this request")
    args = parser.parse_args()
    catalog = outside_catalog()
    servers = cast(dict[str, dict[str, Any]], catalog["servers"])
    tools = tools_of(catalog)
    patterns = [re.compile(p, re.IGNORECASE) for p in cast(list[str], args.pattern)]
    if args.requests is not None:
        list_for_requests(cast(Path, args.requests), cast("str | None", args.id), tools, patterns)
        return
    set_name = cast(str, args.set)
    requests = written_requests(set_name)
    taken, _ = sample_set(set_name)
    for index, pick in enumerate(taken, start=1):
        if args.picks and index not in args.picks:
            continue
        target = next(tool for tool in tools if (tool.server, tool.name) == (pick.server, pick.tool))
        print(f"== {index} {pick.server}.{pick.tool} {servers[pick.server].get('aliases', [])}")
        print(f"   {target.description}")
        print(f"   schema {json.dumps(target.schema.get('properties', {}), ensure_ascii=False)[:800]}")
        others = [tool for tool in tools if tool is not target]
        name_words = words(pick.tool)
        by_name = sorted(
            ((2 * len(name_words & words(t.name)) + 0.5 * len(name_words & words(t.description)), t) for t in others),
            key=lambda scored: -scored[0],
        )
        for score, tool in [scored for scored in by_name if scored[0] >= 2][:SHOWN]:
            print(show(f"name {score:4.1f}", tool))
        if index in requests:
            print(f"   request: {requests[index]}")
            asked = words(requests[index])
            by_request = sorted(((len(asked & words(t.text)), t) for t in others), key=lambda scored: -scored[0])
            for score, tool in [scored for scored in by_request if scored[0] >= 2][:SHOWN]:
                print(show(f"request {score:2d}", tool))
        for tool in others:
            if any(pattern.search(tool.text) for pattern in patterns):
                print(show("pattern", tool))


if __name__ == "__main__":
    main()
