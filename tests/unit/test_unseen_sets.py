"""The outside request sets (`benchmarks/unseen/`) keep the rules they were written by.

`benchmarks.unseen.check` holds the rules: fields, styles round-robin, unique ids, every gold and alternative
a pair of the outside catalog, each set exactly its seeded draw, every third id held out. These tests run it on
the committed files, and on a copy broken in known ways to see that it notices. They read the shared bench data
(`../shared/bench-data`), which is not in the repository, and are skipped where it is missing; they start no
gateway and use no network.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from benchmarks.bench_data import DEFAULT_DATA_DIR
from benchmarks.unseen import check
from benchmarks.unseen.catalogs import catalog_pairs, outside

needs_bench_data = pytest.mark.skipif(
    not (DEFAULT_DATA_DIR / "catalog-xl.json").is_file(), reason="the shared bench data is not on this machine"
)


def test_outside_keeps_the_servers_the_inner_catalog_lacks_unchanged() -> None:
    tool = {"name": "t", "description": "d", "inputSchema": {"type": "object"}}
    inner = {"servers": {"a": {"aliases": [], "tools": [tool]}}}
    xl = {"servers": {"a": {"aliases": [], "tools": [tool]}, "b": {"aliases": ["B"], "tools": [tool]}}}

    assert outside(inner, xl) == {"servers": {"b": {"aliases": ["B"], "tools": [tool]}}}
    assert catalog_pairs(outside(inner, xl)) == {("b", "t")}


@needs_bench_data
def test_the_committed_sets_pass_every_check() -> None:
    assert check.problems() == []


@needs_bench_data
def test_the_check_notices_an_unknown_alternative_a_broken_split_and_a_repeated_id(tmp_path: Path) -> None:
    for path in check.FOLDER.glob("outside-*.jsonl"):
        shutil.copy(path, tmp_path / path.name)
    dev, held_out = tmp_path / "outside-en-dev.jsonl", tmp_path / "outside-en-heldout.jsonl"
    rows = [json.loads(line) for line in dev.read_text().splitlines()]
    first: dict[str, Any] = rows[0]
    first["gold"][0]["alternatives"] = [{"server": "no-such-server", "tool": "no-such-tool"}]
    moved = rows.pop()  # a dev request written into the held-out file breaks the every-third split
    dev.write_text("".join(json.dumps(row) + "\n" for row in rows))
    held_out.write_text(held_out.read_text() + json.dumps(moved) + "\n")
    unanswerable = tmp_path / "outside-unanswerable-dev.jsonl"
    unanswerable.write_text(unanswerable.read_text() + unanswerable.read_text().splitlines()[0] + "\n")

    found = check.problems(tmp_path)

    assert any("no-such-server.no-such-tool is not in the catalog" in problem for problem in found)
    assert any(f"{moved['id']}: in the wrong file" in problem for problem in found)
    assert any("appears 2 times" in problem for problem in found)
