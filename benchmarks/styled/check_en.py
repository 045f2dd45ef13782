"""Checks the styled request files in this folder against the catalog and, for the English ones, against
the seeded sample they were written from (see NOTES-en.md).

Every `*.jsonl` here must load with `benchmarks.bench_data.load_queries`, carry the fields and values of
`queries.jsonl` plus a known `style`, have unique ids across files, and name only (server, tool) pairs that
exist in `catalog.json`, with no alternative repeating its gold pair. The English files (`en-*.jsonl`) must
together hold exactly the pairs `sample_en.py` picks, in walk order, with the styles dealt round-robin and
every third request (by id number) in the held-out file.

Run: `.venv/bin/python -m benchmarks.styled.check_en` prints one line per file and exits 1 on any problem.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, cast

from benchmarks.bench_data import DEFAULT_DATA_DIR, load_queries
from benchmarks.styled.sample_en import sample

FOLDER = Path(__file__).resolve().parent
STYLES = ("paraphrase", "task", "keyword", "server-named", "typo")
HELD_OUT_EVERY = 3
REQUIRED = ("id", "query", "server", "tool", "source", "kind", "lang", "style", "gold")


def catalog_pairs() -> set[tuple[str, str]]:
    servers = cast(dict[str, dict[str, Any]], json.loads((DEFAULT_DATA_DIR / "catalog.json").read_text())["servers"])
    return {
        (server, cast(str, tool["name"]))
        for server, entry in servers.items()
        for tool in cast(list[dict[str, Any]], entry.get("tools", []))
    }


def check_file(path: Path, known: set[tuple[str, str]], seen_ids: set[str]) -> list[str]:
    """Problems in one file, each naming the request it is about."""
    problems: list[str] = []
    load_queries(path)  # raises on anything the benchmark loader cannot read
    for line in path.read_text().splitlines():
        raw = cast(dict[str, Any], json.loads(line))
        request_id = str(raw.get("id"))
        missing = [field for field in REQUIRED if field not in raw]
        if missing:
            problems.append(f"{request_id}: missing {missing}")
            continue
        if request_id in seen_ids:
            problems.append(f"{request_id}: duplicate id")
        seen_ids.add(request_id)
        if raw["style"] not in STYLES or raw["source"] != "styled" or raw["kind"] != "single":
            problems.append(f"{request_id}: style/source/kind {raw['style']}/{raw['source']}/{raw['kind']}")
        if not str(raw["query"]).strip():
            problems.append(f"{request_id}: empty query")
        golds = cast(list[dict[str, Any]], raw["gold"])
        if len(golds) != 1 or (golds[0]["server"], golds[0]["tool"]) != (raw["server"], raw["tool"]):
            problems.append(f"{request_id}: gold does not match server/tool")
        for gold in golds:
            pair = (cast(str, gold["server"]), cast(str, gold["tool"]))
            alternatives = [(a["server"], a["tool"]) for a in cast(list[dict[str, str]], gold.get("alternatives", []))]
            for candidate in [pair, *alternatives]:
                if candidate not in known:
                    problems.append(f"{request_id}: {candidate[0]}.{candidate[1]} is not in the catalog")
            if pair in alternatives or len(set(alternatives)) != len(alternatives):
                problems.append(f"{request_id}: alternatives repeat the gold or each other")
    return problems


def check_english_sample(dev: Path, held_out: Path) -> list[str]:
    """The English files hold the seeded sample, styles round-robin, every third id held out."""
    problems: list[str] = []
    picked, _ = sample(DEFAULT_DATA_DIR / "catalog.json")
    rows: dict[int, tuple[dict[str, Any], bool]] = {}
    for path, is_held_out in ((dev, False), (held_out, True)):
        for line in path.read_text().splitlines():
            raw = cast(dict[str, Any], json.loads(line))
            rows[int(str(raw["id"]).rsplit("-", 1)[1])] = (raw, is_held_out)
    if sorted(rows) != list(range(1, len(picked) + 1)):
        return [f"English ids are not exactly 1..{len(picked)}"]
    for number, (server, tool) in enumerate(picked, start=1):
        raw, is_held_out = rows[number]
        if (raw["server"], raw["tool"]) != (server, tool):
            problems.append(f"{raw['id']}: targets {raw['server']}.{raw['tool']}, the sample picked {server}.{tool}")
        if raw["style"] != STYLES[(number - 1) % len(STYLES)]:
            problems.append(f"{raw['id']}: style {raw['style']} breaks the round-robin")
        if is_held_out != (number % HELD_OUT_EVERY == 0):
            problems.append(f"{raw['id']}: in the wrong file for the every-third split")
    return problems


def main() -> None:
    known = catalog_pairs()
    seen_ids: set[str] = set()
    problems: list[str] = []
    for path in sorted(FOLDER.glob("*.jsonl")):
        found = check_file(path, known, seen_ids)
        print(f"{path.name}: {len(path.read_text().splitlines())} requests, {len(found)} problems")
        problems += found
    dev, held_out = FOLDER / "en-dev.jsonl", FOLDER / "en-heldout.jsonl"
    if dev.exists() and held_out.exists():
        found = check_english_sample(dev, held_out)
        print(f"English sample, styles and split: {len(found)} problems")
        problems += found
    for problem in problems:
        print(f"  {problem}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
