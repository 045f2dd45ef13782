"""The catalog of the servers `catalog-xl.json` adds to `catalog.json`: servers the glossaries were not built from.

The search's glossaries were written from the words of `catalog.json`'s 300 servers; `catalog-xl.json` holds
those and 474 more (3,379 tools). The request sets of this folder are aimed at the 474 alone, and are judged
against a catalog of only them, in `catalog.json`'s format, so that a benchmark run over it ranks no server the
glossaries saw. That catalog is made here from the two shared files rather than kept as a copy.

Run: `python -m benchmarks.unseen.catalogs OUT.json` writes it; then, for example,
`python -m benchmarks.retrieval --catalog OUT.json --queries benchmarks/unseen/outside-en-dev.jsonl`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, cast

from benchmarks.bench_data import DEFAULT_DATA_DIR

Catalog = dict[str, Any]
"""A catalog document: `{"servers": {key: {"aliases": [...], "tools": [{name, description, inputSchema}]}}}`."""


def read_catalog(path: Path) -> Catalog:
    return cast(Catalog, json.loads(path.read_text()))


def outside(inner: Catalog, xl: Catalog) -> Catalog:
    """The servers of `xl` whose key `inner` does not have, in `xl`'s order, entries unchanged."""
    known = set(cast(dict[str, Any], inner["servers"]))
    servers = cast(dict[str, Any], xl["servers"])
    return {"servers": {key: entry for key, entry in servers.items() if key not in known}}


def outside_catalog(data_dir: Path = DEFAULT_DATA_DIR) -> Catalog:
    """The outside catalog of the shared bench data in `data_dir`."""
    return outside(read_catalog(data_dir / "catalog.json"), read_catalog(data_dir / "catalog-xl.json"))


def catalog_pairs(catalog: Catalog) -> set[tuple[str, str]]:
    """Every (server, tool) pair of a catalog."""
    return {
        (server, str(tool["name"]))
        for server, entry in cast(dict[str, dict[str, Any]], catalog["servers"]).items()
        for tool in cast(list[dict[str, Any]], entry.get("tools", []))
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("out", type=Path, help="where to write the outside catalog (JSON)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR, help="folder of catalog.json and catalog-xl")
    args = parser.parse_args()
    catalog = outside_catalog(cast(Path, args.data))
    out = cast(Path, args.out)
    out.write_text(json.dumps(catalog, ensure_ascii=False) + "\n")
    servers = cast(dict[str, Any], catalog["servers"])
    print(f"{out}: {len(servers)} servers, {len(catalog_pairs(catalog))} tools")


if __name__ == "__main__":
    main()
