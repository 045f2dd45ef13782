"""Checks the outside request sets in this folder against the outside catalog and against how they were made.

The answerable files (`outside-en-*.jsonl`, `outside-zh-*.jsonl`) are checked by the rules of the styled sets
(`benchmarks.styled.check`: fields, known style, source, one gold equal to `server`/`tool`, every gold and
alternative a pair of the catalog they are judged against, here the outside catalog of `catalogs.py`), and
each set's files must hold exactly its seeded draw (`sample.py`) in order, styles round-robin, every third id
held out; the two sets share no target. The unanswerable files (`outside-unanswerable-*.jsonl`) carry exactly
the fields of `benchmarks/abstention/` (`id`, `query`, `lang`, `domain`), `UNANSWERABLE_PER_LANG` requests per
language numbered from 1, every third of each language held out. Ids are unique across all files.

Run: `python -m benchmarks.unseen.check` prints one line per file and exits 1 on any problem, one line each.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import cast

from benchmarks.styled.check import HELD_OUT_EVERY, STYLES, Row, construction_problems, row_problems, rows_of
from benchmarks.styled.sample_zh import pairs_of
from benchmarks.unseen.catalogs import catalog_pairs, outside_catalog
from benchmarks.unseen.sample import draw_all

FOLDER = Path(__file__).resolve().parent
# Each answerable set's language; files, ids and draws are named after the set.
ANSWERABLE_SETS = {"outside-en": "en", "outside-zh": "zh"}
SOURCE = "outside"
UNANSWERABLE = "outside-unanswerable"
UNANSWERABLE_FIELDS = {"id", "query", "lang", "domain"}
UNANSWERABLE_PER_LANG = 40
_UNANSWERABLE_ID = re.compile(rf"{UNANSWERABLE}-(en|zh)-(\d{{3}})")


def answerable_problems(rows_by_file: dict[str, list[Row]]) -> list[str]:
    """Every answerable request is well formed and names outside pairs; each set is exactly its draw."""
    catalog = outside_catalog()
    known = catalog_pairs(catalog)
    problems: list[str] = []
    for name, rows in rows_by_file.items():
        for row in rows:
            problems += row_problems(f"{name} {row.get('id')}", row, known, SOURCE)
    draws = draw_all(pairs_of(catalog))
    targets = {name: [(pick.server, pick.tool) for pick in draws[name][0]] for name in ANSWERABLE_SETS}
    for name, lang in ANSWERABLE_SETS.items():
        problems += construction_problems(name, targets[name], rows_by_file, lang, id_prefix="")
    english, chinese = (set(targets[name]) for name in ANSWERABLE_SETS)
    problems += [f"{server}.{tool} is a target of both sets" for server, tool in sorted(english & chinese)]
    return problems


def unanswerable_problems(rows_by_file: dict[str, list[Row]]) -> list[str]:
    """The abstention format, the numbering per language and the every-third split."""
    problems: list[str] = []
    numbers: dict[str, list[int]] = {"en": [], "zh": []}
    for name, rows in rows_by_file.items():
        held_out = name.endswith("-heldout.jsonl")
        for row in rows:
            where = f"{name} {row.get('id')}"
            if set(row) != UNANSWERABLE_FIELDS:
                problems.append(f"{where}: fields {sorted(set(row) ^ UNANSWERABLE_FIELDS)} differ from the format")
                continue
            matched = _UNANSWERABLE_ID.fullmatch(str(row["id"]))
            if matched is None or matched.group(1) != row["lang"]:
                problems.append(f"{where}: id does not name the set and the request's language")
                continue
            if not str(row["query"]).strip() or not str(row["domain"]).strip():
                problems.append(f"{where}: empty query or domain")
            number = int(matched.group(2))
            numbers[matched.group(1)].append(number)
            if held_out != (number % HELD_OUT_EVERY == 0):
                problems.append(f"{where}: in the wrong file for the every-third split")
    for lang, seen in numbers.items():
        if sorted(seen) != list(range(1, UNANSWERABLE_PER_LANG + 1)):
            problems.append(f"{UNANSWERABLE} {lang}: numbered {len(seen)} requests, not 1 to {UNANSWERABLE_PER_LANG}")
    return problems


def read_rows(path: Path) -> list[Row]:
    return [cast(Row, json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


def problems(folder: Path = FOLDER, report: bool = False) -> list[str]:
    """Every problem of the outside sets in `folder`; with `report`, one summary line per file is printed."""
    answerable: dict[str, list[Row]] = {}
    unanswerable: dict[str, list[Row]] = {}
    for path in sorted(folder.glob("outside-*.jsonl")):
        if path.name.startswith(UNANSWERABLE):
            rows = unanswerable[path.name] = read_rows(path)
            langs = Counter(str(row.get("lang")) for row in rows)
            summary = ", ".join(f"{lang} {count}" for lang, count in sorted(langs.items()))
        else:
            rows = answerable[path.name] = rows_of(path)
            styles = Counter(str(row.get("style")) for row in rows)
            summary = ", ".join(f"{style} {styles[style]}" for style in STYLES)
        if report:
            print(f"{path.name}: {len(rows)} requests, {summary}")
    found = answerable_problems(answerable) + unanswerable_problems(unanswerable)
    ids = Counter(str(row.get("id")) for rows in (*answerable.values(), *unanswerable.values()) for row in rows)
    return found + [f"id {request_id} appears {count} times" for request_id, count in ids.items() if count > 1]


def main() -> int:
    found = problems(report=True)
    for problem in found:
        print(problem, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
