"""Checks the styled request files in this folder against the bench catalog.

Every `*.jsonl` here must load with `benchmarks.bench_data.load_queries`, carry the fields of the public
`queries.jsonl` plus `style`, use unique ids and a known style, and name only (server, tool) pairs that exist in
`catalog.json`, for its gold and for every alternative (a gold never lists itself as its own alternative).
The Chinese set is checked further against how it was made (NOTES-zh.md): its targets are exactly the seeded
sample of `sample_zh.py` in order, styles go round-robin, ids divisible by 3 are in the held-out file and the
rest in the dev file. Run `python -m benchmarks.styled.check_zh`; it exits non-zero with one line per problem.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any, cast

from benchmarks.bench_data import load_queries
from benchmarks.styled.sample_zh import CATALOG, load_pairs, sample

FOLDER = Path(__file__).resolve().parent
STYLES = ("paraphrase", "task", "keyword", "server-named", "typo")
FIELDS = {"id", "query", "server", "tool", "source", "kind", "lang", "style", "gold"}
ZH_FILES = ("zh-dev.jsonl", "zh-heldout.jsonl")
HELD_OUT_EVERY = 3


def catalog_pairs() -> set[tuple[str, str]]:
    document = cast(dict[str, Any], json.loads(CATALOG.read_text()))
    servers = cast(dict[str, dict[str, Any]], document["servers"])
    return {(name, str(tool["name"])) for name, entry in servers.items() for tool in entry.get("tools", [])}


def check_file(path: Path, known: set[tuple[str, str]]) -> tuple[list[str], list[dict[str, Any]]]:
    problems: list[str] = []
    rows = [cast(dict[str, Any], json.loads(line)) for line in path.read_text().splitlines() if line.strip()]
    load_queries(path)
    for row in rows:
        where = f"{path.name} {row.get('id')}"
        if set(row) != FIELDS:
            problems.append(f"{where}: fields {sorted(set(row) ^ FIELDS)} differ from the format")
            continue
        if row["style"] not in STYLES:
            problems.append(f"{where}: unknown style {row['style']!r}")
        gold = cast(list[dict[str, Any]], row["gold"])
        if (gold[0]["server"], gold[0]["tool"]) != (row["server"], row["tool"]):
            problems.append(f"{where}: top-level server/tool differ from the first gold")
        for entry in gold:
            target = (str(entry["server"]), str(entry["tool"]))
            if target not in known:
                problems.append(f"{where}: gold {target} is not in the catalog")
            alternatives = [(str(a["server"]), str(a["tool"])) for a in entry.get("alternatives", [])]
            problems += [f"{where}: alternative {a} is not in the catalog" for a in alternatives if a not in known]
            if target in alternatives or len(set(alternatives)) != len(alternatives):
                problems.append(f"{where}: alternatives repeat the gold or each other")
    return problems, rows


def check_zh_construction(rows_by_file: dict[str, list[dict[str, Any]]]) -> list[str]:
    problems: list[str] = []
    taken, _ = sample(load_pairs())
    by_id = {row["id"]: (name, row) for name, rows in rows_by_file.items() for row in rows}
    for index, pick in enumerate(taken, start=1):
        row_id = f"styled-zh-{index:03d}"
        if row_id not in by_id:
            problems.append(f"{row_id}: missing")
            continue
        name, row = by_id[row_id]
        expected_file = ZH_FILES[1] if index % HELD_OUT_EVERY == 0 else ZH_FILES[0]
        if name != expected_file:
            problems.append(f"{row_id}: in {name}, belongs in {expected_file}")
        if (row["server"], row["tool"]) != (pick.server, pick.tool):
            problems.append(f"{row_id}: target {row['server']}.{row['tool']} is not sample pick {index}")
        if row["style"] != STYLES[(index - 1) % len(STYLES)] or row["lang"] != "zh":
            problems.append(f"{row_id}: style or lang break the round-robin")
    if len(by_id) != len(taken):
        problems.append(f"{len(by_id)} Chinese requests, {len(taken)} sampled targets")
    return problems


def main() -> int:
    known = catalog_pairs()
    problems: list[str] = []
    ids: Counter[str] = Counter()
    zh_rows: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(FOLDER.glob("*.jsonl")):
        found, rows = check_file(path, known)
        problems += found
        ids.update(str(row.get("id")) for row in rows)
        if path.name in ZH_FILES:
            zh_rows[path.name] = rows
        styles = Counter(str(row.get("style")) for row in rows)
        print(f"{path.name}: {len(rows)} requests, " + ", ".join(f"{s} {styles[s]}" for s in STYLES))
    problems += [f"id {row_id} appears {count} times" for row_id, count in ids.items() if count > 1]
    if set(zh_rows) == set(ZH_FILES):
        problems += check_zh_construction(zh_rows)
    else:
        problems.append(f"expected both {ZH_FILES}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
