"""`review` and `trust`: what the gateway holds back from the model until a person approves it.

`review` prints what awaits review (each held definition, why, and a unified diff against what was approved),
what was rejected, and the servers whose first listing was trusted as the user put them there; it starts
nothing (the catalog and the pins file are read). `trust SERVER [TOOL…]` approves, `--reject` keeps out and
stops asking; a running daemon takes either in at its next request. The service masks every text and writes
invisible characters as code points; the terminal guard (`terminal.py`) stands behind it.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Any

from mcp_gateway.cli.context import with_gateway
from mcp_gateway.cli.people import PersonWords, ago
from mcp_gateway.integrity import Awaiting, Review
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.trust import Decision
from mcp_gateway.wording import counted


def run(args: argparse.Namespace) -> int:
    program = PersonWords.of(args).program
    if args.command == "review":
        report = with_gateway(args, Gateway.review)
        print(json.dumps(review_json(report), indent=2) if args.json else review_text(report, program))
        return 0

    async def decide(gateway: Gateway) -> Decision:
        return await gateway.trust(args.server, args.tools, reject=args.reject)

    decision = with_gateway(args, decide)
    print(json.dumps(asdict(decision)) if args.json else decision_text(decision))
    return 0


def review_json(report: Review) -> dict[str, Any]:
    return {
        "awaiting": [asdict(item) for item in report.awaiting],
        "rejected": [asdict(item) for item in report.rejected],
        "firstSight": [asdict(seen) for seen in report.first_sight],
        "notice": report.notice,
    }


def review_text(report: Review, program: str) -> str:
    lines = [f"notice: {report.notice}"] if report.notice else []
    if report.awaiting:
        lines.append(f"Awaiting review ({len(report.awaiting)}):")
        for item in report.awaiting:
            lines += _item_lines(item)
        lines.append(f"Approve with `{program} trust SERVER [TOOL…]`; keep out with `{program} trust SERVER --reject`.")
    else:
        lines.append("Nothing awaits review.")
    if report.rejected:
        lines.append(f"Rejected ({len(report.rejected)}), kept out until they change:")
        lines += [f"  {item.server}.{item.name} ({item.kind})" for item in report.rejected]
    for seen in report.first_sight:
        lines.append(
            f"{seen.server}: first listing trusted as you put it there ({counted(seen.count, 'definition')}, "
            f"{ago(seen.at)})"
        )
    return "\n".join(lines)


def decision_text(decision: Decision) -> str:
    if not decision.names:
        return f"Nothing awaits review on '{decision.server}'."
    done = "Rejected" if decision.rejected else "Approved"
    then = "kept out, and not asked about again until it changes" if decision.rejected else "served again"
    names = ", ".join(decision.names)
    return f"{done} {counted(len(decision.names), 'definition')} of '{decision.server}' ({names}): {then}."


def _item_lines(item: Awaiting) -> list[str]:
    lines = [f"  {item.server}.{item.name} ({item.kind}): {item.reason}"]
    return lines + [f"    {line}" for line in item.diff.split("\n") if line] if item.diff else lines
