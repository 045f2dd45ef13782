"""Checks the styled request files in this folder against the catalog and against how each set was made.

Every `*.jsonl` here must load with `benchmarks.bench_data.load_queries`, carry exactly the fields of
`queries.jsonl` plus a known `style` (source `styled`, kind `single`, a non-empty query), have ids unique across
files, and name only (server, tool) pairs of `catalog.json`, for its one gold (the same as its `server` and
`tool`) and every alternative, none repeating the gold or another. Each set's files (`en`, `zh`, `zh2`) must also
hold exactly the targets its seeded sample picks (`sample_en.py`, `sample_zh.py`), in order, with the styles dealt
round-robin and every third request (by id number) in the held-out file (NOTES-en.md, NOTES-zh.md, NOTES-zh2.md),
and no two sets may share a target.

Run: `python -m benchmarks.styled.check` prints one line per file and exits 1 on any problem, one line each.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any, cast

from benchmarks.bench_data import DEFAULT_DATA_DIR, load_queries
from benchmarks.styled import sample_en, sample_zh

FOLDER = Path(__file__).resolve().parent
CATALOG = DEFAULT_DATA_DIR / "catalog.json"
STYLES = ("paraphrase", "task", "keyword", "server-named", "typo")
FIELDS = {"id", "query", "server", "tool", "source", "kind", "lang", "style", "gold"}
HELD_OUT_EVERY = 3

Row = dict[str, Any]


def catalog_pairs(catalog: Path = CATALOG) -> set[tuple[str, str]]:
    servers = cast(dict[str, dict[str, Any]], json.loads(catalog.read_text())["servers"])
    return {
        (server, str(tool["name"]))
        for server, entry in servers.items()
        for tool in cast(list[dict[str, Any]], entry.get("tools", []))
    }


def rows_of(path: Path) -> list[Row]:
    load_queries(path)  # raises on anything the benchmark's loader cannot read
    return [cast(Row, json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


def row_problems(where: str, row: Row, known: set[tuple[str, str]], source: str = "styled") -> list[str]:
    """Problems of one request, each naming it; `source` is the value every request of the set carries."""
    if set(row) != FIELDS:
        return [f"{where}: fields {sorted(set(row) ^ FIELDS)} differ from the format"]
    problems: list[str] = []
    if row["style"] not in STYLES or row["source"] != source or row["kind"] != "single":
        problems.append(f"{where}: style/source/kind {row['style']}/{row['source']}/{row['kind']}")
    if not str(row["query"]).strip():
        problems.append(f"{where}: empty query")
    golds = cast(list[dict[str, Any]], row["gold"])
    if len(golds) != 1 or (golds[0]["server"], golds[0]["tool"]) != (row["server"], row["tool"]):
        problems.append(f"{where}: gold does not match server/tool")
    for gold in golds:
        pair = (str(gold["server"]), str(gold["tool"]))
        alternatives = [
            (str(a["server"]), str(a["tool"])) for a in cast(list[dict[str, Any]], gold.get("alternatives", []))
        ]
        problems += [f"{where}: {s}.{t} is not in the catalog" for s, t in [pair, *alternatives] if (s, t) not in known]
        if pair in alternatives or len(set(alternatives)) != len(alternatives):
            problems.append(f"{where}: alternatives repeat the gold or each other")
    return problems


# Each set's language; a set's files, ids and sample are named after the set, its requests carry the language.
SET_LANGS = {"en": "en", "zh": "zh", "zh2": "zh"}


def construction_problems(
    set_name: str,
    targets: list[tuple[str, str]],
    rows_by_file: dict[str, list[Row]],
    lang: str | None = None,
    id_prefix: str = "styled-",
) -> list[str]:
    """A set's files hold its sample's targets in order, styles round-robin, every third id held out.

    The files are `<set>-dev.jsonl` and `<set>-heldout.jsonl`, the ids `<id_prefix><set>-NNN` in sample order.
    """
    lang = lang or set_name
    dev, held_out = f"{set_name}-dev.jsonl", f"{set_name}-heldout.jsonl"
    by_id = {str(row["id"]): (name, row) for name in (dev, held_out) for row in rows_by_file.get(name, [])}
    problems: list[str] = []
    if len(by_id) != len(targets):
        problems.append(f"{set_name}: {len(by_id)} requests, {len(targets)} sampled targets")
    for number, (server, tool) in enumerate(targets, start=1):
        request_id = f"{id_prefix}{set_name}-{number:03d}"
        if request_id not in by_id:
            problems.append(f"{request_id}: missing")
            continue
        name, row = by_id[request_id]
        if name != (held_out if number % HELD_OUT_EVERY == 0 else dev):
            problems.append(f"{request_id}: in the wrong file for the every-third split")
        if (row["server"], row["tool"]) != (server, tool):
            problems.append(f"{request_id}: targets {row['server']}.{row['tool']}, the sample picked {server}.{tool}")
        if row["style"] != STYLES[(number - 1) % len(STYLES)] or row["lang"] != lang:
            problems.append(f"{request_id}: style or lang break the round-robin")
    return problems


def sampled_targets() -> dict[str, list[tuple[str, str]]]:
    english, _ = sample_en.sample(CATALOG)
    pairs = sample_zh.load_pairs()
    targets = {"en": list(english)}
    for name in ("zh", "zh2"):
        picks, _ = sample_zh.sample_set(name, pairs)
        targets[name] = [(pick.server, pick.tool) for pick in picks]
    return targets


def shared_target_problems(targets: dict[str, list[tuple[str, str]]]) -> list[str]:
    """A set drawn after others (`sample_zh.DRAWS[...].after`) shares no target with them.

    The English and the first Chinese set were drawn independently and share 10 targets (NOTES-zh2.md); only
    the sets drawn later promise to be disjoint from those before them.
    """
    problems: list[str] = []
    for name, draw in sample_zh.DRAWS.items():
        own = set(targets[name])
        for earlier in draw.after:
            problems += [
                f"{s}.{t} is a target of both {earlier} and {name}" for s, t in sorted(own & set(targets[earlier]))
            ]
    return problems


def main() -> int:
    known = catalog_pairs()
    problems: list[str] = []
    ids: Counter[str] = Counter()
    rows_by_file: dict[str, list[Row]] = {}
    for path in sorted(FOLDER.glob("*.jsonl")):
        rows = rows_by_file[path.name] = rows_of(path)
        for row in rows:
            problems += row_problems(f"{path.name} {row.get('id')}", row, known)
        ids.update(str(row.get("id")) for row in rows)
        styles = Counter(str(row.get("style")) for row in rows)
        print(f"{path.name}: {len(rows)} requests, " + ", ".join(f"{style} {styles[style]}" for style in STYLES))
    problems += [f"id {request_id} appears {count} times" for request_id, count in ids.items() if count > 1]
    targets = sampled_targets()
    for name, set_targets in targets.items():
        problems += construction_problems(name, set_targets, rows_by_file, SET_LANGS[name])
    problems += shared_target_problems(targets)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
