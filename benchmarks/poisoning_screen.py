"""False alarms of the poisoning screen: the share of real tool definitions it flags.

    python -m benchmarks.poisoning_screen [--json] [--data DIR] [--file catalog-xl.json]

Runs `mcp_gateway.integrity.screened` (description, title and every key and string of the schemas, as the
gateway screens a listing) over every tool of the catalog file (catalog-xl.json: 5,645 tools of 1,000 public
servers, English and Chinese) and prints how many it flags, the share, and each flagged tool with its reasons.
Every flag is a review a person must make: the target is at most 0.5% flagged. Exits 1 when it is missed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.bench_data import DEFAULT_DATA_DIR, load_catalog
from mcp_gateway.integrity import screened

TARGET_SHARE = 0.005


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="False alarms of the poisoning screen.")
    parser.add_argument("--data", default=str(DEFAULT_DATA_DIR), help="the bench-data directory")
    parser.add_argument("--file", default="catalog-xl.json", help="the catalog file in it")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    servers = load_catalog(Path(args.data) / args.file)
    flagged = [
        {"server": server.name, "tool": tool.name, "reasons": reasons}
        for server in servers
        for tool in server.tools
        if (reasons := screened(tool.to_wire()))
    ]
    tools = sum(len(server.tools) for server in servers)
    share = len(flagged) / tools if tools else 0.0
    if args.json:
        print(json.dumps({"file": args.file, "tools": tools, "flagged": flagged, "share": share}, indent=2))
    else:
        print(f"{args.file}: {len(flagged)} of {tools:,} tools flagged ({share:.3%}; target ≤ {TARGET_SHARE:.1%})")
        for row in flagged:
            print(f"  {row['server']}.{row['tool']}: {'; '.join(row['reasons'])}")
    return 0 if share <= TARGET_SHARE else 1


if __name__ == "__main__":
    sys.exit(main())
