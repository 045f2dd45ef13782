"""`mcp-gateway audit`: the last calls of the audit trail as a table, filtered, or exported as JSONL or CSV.

The trail is read from the workspace's logs (every rotated file too); no gateway is started. What the lines
hold was masked when written, and is masked again with the secrets the config knows now; in the table each
outside text (names, reasons, clients) is shown without its control characters.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, cast

from mcp_gateway.audit import AuditFilter, as_csv, as_jsonl, checked_outcome, parse_since, read_audit
from mcp_gateway.cli.context import load, secret_mask
from mcp_gateway.paths import Workspace
from mcp_gateway.terminal import shown

DEFAULT_LAST = 20
MAX_REASON_CHARS = 120
"""A refusal's or error's reason in the table; --json and the exports keep it whole."""
COLUMNS = ("time", "client", "call", "outcome", "ms", "bytes", "reason")


def run(args: argparse.Namespace) -> int:
    query = AuditFilter(
        server=args.server,
        tool=args.tool,
        outcome=checked_outcome(args.outcome),
        since=parse_since(args.since) if args.since else None,
    )
    secrets = secret_mask(load(args, quiet=True))
    workspace = Workspace.from_environment(args.home)
    reading = read_audit(workspace.logs_dir)
    for problem in reading.problems:
        print(f"mcp-gateway: {secrets.mask(problem)}", file=sys.stderr)
    if reading.unreadable_lines:
        skipped = reading.unreadable_lines
        print(f"mcp-gateway: {skipped} lines of the audit trail are not JSON; they are skipped", file=sys.stderr)
    calls = [call for call in reading.calls if query.admits(call)]
    last = args.last if args.last is not None else (0 if args.format else DEFAULT_LAST)
    calls = calls[-last:] if last > 0 else calls
    if args.format == "jsonl":
        sys.stdout.write(secrets.mask(as_jsonl(calls)))
    elif args.format == "csv":
        sys.stdout.write(secrets.mask(as_csv(calls)))
    elif args.json:
        document = {"file": str(workspace.logs_dir / "audit.jsonl"), "calls": calls, "shown": len(calls)}
        print(secrets.mask(json.dumps(document, indent=2, ensure_ascii=False)))
    elif not calls:
        print(f"No calls recorded{' that match' if query != AuditFilter() else ''} in {workspace.logs_dir}.")
    else:
        print(secrets.mask("\n".join(_table(calls))))
    return 0


def _table(calls: list[dict[str, Any]]) -> list[str]:
    rows = [COLUMNS, *(_row(call) for call in calls)]
    widths = [max(len(row[index]) for row in rows) for index in range(len(COLUMNS) - 1)]
    return [
        "  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[-1]]).rstrip()
        for row in rows
    ]


def _row(call: dict[str, Any]) -> tuple[str, ...]:
    session = cast(dict[str, Any], call.get("session") if isinstance(call.get("session"), dict) else {})
    client = session.get("client")
    server, name = call.get("server"), call.get("name")
    reason = str(call.get("reason") or "")
    cells = (
        str(call.get("time", "")).replace("T", " "),
        str(client or "-"),
        f"{server}.{name}" if server else str(name),
        str(call.get("outcome", "")),
        str(call.get("durationMs", "")),
        str(call.get("resultBytes", "")),
        reason if len(reason) <= MAX_REASON_CHARS else reason[: MAX_REASON_CHARS - 1] + "…",
    )
    return tuple(shown(cell).replace("\n", " ") for cell in cells)
