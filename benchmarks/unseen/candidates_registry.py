"""Lists tools of `catalog-registry.json` that might serve a registry pick's request as well as the pick does.

`python -m benchmarks.unseen.candidates_registry --set zh 12 --pattern 'calendar|日历'` prints, for pick 12 of
the Chinese draw (`sample_registry.py`), the other tools sharing words with the pick's name and every tool whose
server key, aliases, name or description matches a pattern (the request's content words, in English and Chinese).
It is `benchmarks/styled/candidates_zh.py`'s lister pointed at this catalog: nothing here decides an alternative,
the lists are read and each true equivalent is written into the request by hand (NOTES-registry.md).
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any, cast

from benchmarks.styled.candidates_zh import print_candidates
from benchmarks.unseen.list_registry_servers import CATALOG
from benchmarks.unseen.sample_registry import SEEDS, draw


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("picks", nargs="*", type=int, help="1-based positions in the draw (default: all)")
    parser.add_argument("--pattern", action="append", default=[], help="content-word regex, repeatable")
    parser.add_argument("--set", choices=sorted(SEEDS), default="en")
    args = parser.parse_args()
    servers = cast(dict[str, dict[str, Any]], json.loads(CATALOG.read_text())["servers"])
    patterns = [re.compile(p, re.IGNORECASE) for p in cast(list[str], args.pattern)]
    picks, _ = draw(cast(str, args.set))
    for index, pick in enumerate(picks, start=1):
        if not args.picks or index in args.picks:
            print_candidates(index, pick, servers, patterns)


if __name__ == "__main__":
    main()
