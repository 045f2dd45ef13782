"""Checks the registry catalog and the request sets over it (NOTES-registry.md).

The catalog: every server of `catalog-registry.json` has its provenance (with the SHA-256 of exactly the listing
kept), none is a copy of a server of the shared catalogs (tool-name sets with Jaccard at least `DUPLICATE_JACCARD`,
the rule the shared catalogs were built by) or is published under a name they list, and there are at least
`MIN_SERVERS` servers and `MIN_TOOLS` tools.

The answerable requests (`registry-{en,zh}-{dev,heldout}.jsonl`) are checked with `benchmarks/styled/check.py`'s
rules, against this catalog: fields, styles, ids, every gold and alternative a pair of the catalog, the targets
exactly each seeded draw in order (`sample_registry.py`), styles round-robin, every third id held out; and the two
draws share no target. The unanswerable requests (`registry-unanswerable-{dev,heldout}.jsonl`) have the fields of
`benchmarks/abstention/` plus `source`, numbered ids with every third held out, `UNANSWERABLE_PER_LANG` of each
language.

Run: `python -m benchmarks.unseen.check_registry` prints one line per file and exits 1 on any problem.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any, cast

from benchmarks.bench_data import DEFAULT_DATA_DIR
from benchmarks.styled.check import (
    HELD_OUT_EVERY,
    STYLES,
    Row,
    catalog_pairs,
    construction_problems,
    row_problems,
    rows_of,
)
from benchmarks.unseen import sample_registry
from benchmarks.unseen.list_registry_servers import CATALOG, PROVENANCE, listing_sha256

FOLDER = Path(__file__).resolve().parent
SOURCE = "registry"
LANGS = ("en", "zh")
SHARED_CATALOG = DEFAULT_DATA_DIR / "catalog-xl.json"  # holds every server of catalog.json too
SHARED_PROVENANCE = DEFAULT_DATA_DIR / "provenance.json"
DUPLICATE_JACCARD = 0.8
MIN_SERVERS = 30
MIN_TOOLS = 300
UNANSWERABLE = "registry-unanswerable"
UNANSWERABLE_FIELDS = {"id", "query", "lang", "domain", "source"}
UNANSWERABLE_PER_LANG = 30


def servers_of(path: Path) -> dict[str, dict[str, Any]]:
    return cast(dict[str, dict[str, Any]], json.loads(path.read_text())["servers"])


def tool_names(entry: dict[str, Any]) -> set[str]:
    return {str(tool["name"]) for tool in cast(list[dict[str, Any]], entry.get("tools", []))}


def shared_names() -> set[str]:
    """Every server key, alias and published id the shared catalogs and their provenance record, lower-cased."""
    names: set[str] = set()
    for key, entry in servers_of(SHARED_CATALOG).items():
        names |= {key, *cast(list[str], entry.get("aliases", []))}
    provenance = cast(dict[str, Any], json.loads(SHARED_PROVENANCE.read_text()))
    for record in cast(dict[str, dict[str, Any]], provenance["catalog-xl.json"]).values():
        names |= {str(record[field]) for field in ("smithery_id", "upstream") if record.get(field)}
    return {name.lower() for name in names}


def catalog_problems() -> list[str]:
    servers, provenance = servers_of(CATALOG), servers_of(PROVENANCE)
    problems: list[str] = []
    if set(servers) != set(provenance):
        problems.append(f"servers without provenance or listing: {sorted(set(servers) ^ set(provenance))}")
    shared = servers_of(SHARED_CATALOG)
    published = shared_names()
    for key, entry in servers.items():
        record = provenance.get(key, {})
        if record and record["listing_sha256"] != listing_sha256(cast(list[dict[str, Any]], entry["tools"])):
            problems.append(f"{key}: the listing differs from the one its provenance hashed")
        if record and str(record["package"]).lower() in published:
            problems.append(f"{key}: {record['package']} is already in the shared catalogs")
        names = tool_names(entry)
        for other, other_entry in shared.items():
            theirs = tool_names(other_entry)
            if theirs and len(names & theirs) / len(names | theirs) >= DUPLICATE_JACCARD:
                problems.append(f"{key}: its tool names copy {other}'s in the shared catalogs")
    tools = sum(len(entry["tools"]) for entry in servers.values())
    if len(servers) < MIN_SERVERS or tools < MIN_TOOLS:
        problems.append(f"{len(servers)} servers and {tools} tools, fewer than {MIN_SERVERS} and {MIN_TOOLS}")
    return problems


def answerable_problems(rows_by_file: dict[str, list[Row]]) -> list[str]:
    known = catalog_pairs(CATALOG)
    problems: list[str] = []
    for name, rows in rows_by_file.items():
        problems += [problem for row in rows for problem in row_problems(f"{name} {row.get('id')}", row, known, SOURCE)]
    drawn = {lang: sample_registry.targets(lang) for lang in LANGS}
    for lang, targets in drawn.items():
        problems += construction_problems(f"registry-{lang}", targets, rows_by_file, lang, id_prefix="")
    problems += [f"{s}.{t} is a target of both draws" for s, t in sorted(set(drawn["en"]) & set(drawn["zh"]))]
    return problems


def unanswerable_problems(rows_by_file: dict[str, list[Row]]) -> list[str]:
    dev, held_out = f"{UNANSWERABLE}-dev.jsonl", f"{UNANSWERABLE}-heldout.jsonl"
    problems: list[str] = []
    langs: Counter[str] = Counter()
    numbers: list[int] = []
    for name in (dev, held_out):
        for row in rows_by_file.get(name, []):
            where = f"{name} {row.get('id')}"
            if set(row) != UNANSWERABLE_FIELDS:
                problems.append(f"{where}: fields {sorted(set(row) ^ UNANSWERABLE_FIELDS)} differ from the format")
                continue
            if row["source"] != SOURCE or row["lang"] not in LANGS or not row["query"].strip() or not row["domain"]:
                problems.append(f"{where}: source, lang, query or domain is wrong or empty")
            number = int(str(row["id"]).removeprefix(f"{UNANSWERABLE}-"))
            numbers.append(number)
            if name != (held_out if number % HELD_OUT_EVERY == 0 else dev):
                problems.append(f"{where}: in the wrong file for the every-third split")
            langs[str(row["lang"])] += 1
    if sorted(numbers) != list(range(1, len(numbers) + 1)):
        problems.append(f"{UNANSWERABLE}: ids are not numbered 1..{len(numbers)} once each")
    problems += [
        f"{UNANSWERABLE}: {langs[lang]} {lang} requests, not {UNANSWERABLE_PER_LANG}"
        for lang in LANGS
        if langs[lang] != UNANSWERABLE_PER_LANG
    ]
    return problems


def main() -> int:
    answerable: dict[str, list[Row]] = {}
    unanswerable: dict[str, list[Row]] = {}
    ids: Counter[str] = Counter()
    for path in sorted(FOLDER.glob("registry-*.jsonl")):
        is_unanswerable = path.name.startswith(UNANSWERABLE)
        rows = [cast(Row, json.loads(line)) for line in path.read_text().splitlines() if line.strip()]
        (unanswerable if is_unanswerable else answerable)[path.name] = rows if is_unanswerable else rows_of(path)
        ids.update(str(row.get("id")) for row in rows)
        styles = Counter(str(row.get("style")) for row in rows)
        shown = ", ".join(f"{style} {styles[style]}" for style in STYLES) if not is_unanswerable else ""
        print(f"{path.name}: {len(rows)} requests" + (f", {shown}" if shown else ""))
    problems = catalog_problems() + answerable_problems(answerable) + unanswerable_problems(unanswerable)
    problems += [f"id {request_id} appears {count} times" for request_id, count in ids.items() if count > 1]
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
