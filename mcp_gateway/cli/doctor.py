"""`mcp-gateway doctor [SERVER ...] [--json]`: start each server, and show what works and what it costs.

Progress goes to stderr as servers start and answer (a refresh of many servers takes a while); the
report goes to stdout, as text or as one JSON object. Exit 1 when any enabled server failed. Server errors
arrive masked (the gateway masks them where they are made); the reasons for rejected entries are masked here.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from mcp_gateway.cli.context import load, secret_mask, with_gateway
from mcp_gateway.cli.people import PersonWords
from mcp_gateway.errors import ToolCallError
from mcp_gateway.service.doctor import DoctorReport, ServerCheck, Stage
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.tokens import TokenCounter, token_counter

SOME_FAILED = 1
INDENT = "    "


def run_doctor(args: argparse.Namespace) -> int:
    config = load(args, quiet=args.json)
    counter = token_counter()
    progress = _Progress()

    async def work(gateway: Gateway) -> DoctorReport:
        try:
            names = [gateway.resolve_server(name) for name in args.servers] or None
        except ToolCallError as error:
            raise PersonWords.of(args).failure(error) from error
        chosen = names if names is not None else list(config.servers)
        progress.total = sum(1 for name in chosen if not config.servers[name].spec.disabled)
        return await gateway.doctor(counter, servers=names, on_progress=progress.show)

    report = with_gateway(args, work, config=config)
    if args.json:
        print(json.dumps(_as_json(report, counter), indent=2))
    else:
        print(f"config: {config.path}")
        for check in report.checks:
            print("\n".join(_check_lines(check, counter)))
        print()
        print(_summary_text(report, counter))
        secrets = secret_mask(config)
        for name, reason in config.rejected.items():
            print(f"{name}: not checked, its config entry is invalid: {secrets.mask(reason)}")
    return SOME_FAILED if any(not c.listed and not c.disabled for c in report.checks) else 0


class _Progress:
    """One stderr line per server as it starts and as it answers."""

    def __init__(self) -> None:
        self.total = 0
        self.started = 0

    def show(self, server: str, stage: Stage, check: ServerCheck | None) -> None:
        if stage == "starting":
            self.started += 1
            print(f"mcp-gateway: [{self.started}/{self.total}] starting {server} …", file=sys.stderr)
        elif check is not None:
            outcome = f"{check.tool_count} tools" if check.listed else "failed"
            print(f"mcp-gateway: {server}: {outcome} ({_seconds(check.seconds)})", file=sys.stderr)


def _check_lines(check: ServerCheck, counter: TokenCounter) -> list[str]:
    kind = f"{check.transport}, {check.lifecycle}"
    if check.disabled:
        return [f"{check.name}: disabled ({kind})"]
    if check.listed:
        tokens = f"{_approx(counter)}{check.schema_tokens:,} tokens"
        protocol = f", protocol {check.protocol_version}" if check.protocol_version else ""
        lines = [
            f"{check.name}: ok, {check.tool_count} tools, {tokens} of definitions, "
            f"started and listed in {_seconds(check.seconds)} ({kind}{protocol})"
        ]
    else:
        lines = [f"{check.name}: FAILED after {_seconds(check.seconds)} ({kind})"]
        if check.problem is not None:
            retry = "a retry may help" if check.problem.retryable else "a retry will not help"
            lines.append(f"{INDENT}{check.problem.phase}, {retry}: {check.problem.message}")
    lines += [f"{INDENT}name: {problem}" for problem in check.name_problems]
    if check.stderr_log is not None and (not check.listed or check.name_problems):
        lines.append(f"{INDENT}stderr log: {check.stderr_log}")
    return lines


def _summary_text(report: DoctorReport, counter: TokenCounter) -> str:
    summary = report.summary
    if summary is None or summary.servers == 0:
        return "No enabled servers: add them under 'mcpServers', or run `mcp-gateway import --client NAME`."
    approx = _approx(counter)
    share = f", {summary.gateway_tokens / summary.direct_tokens:.1%} of that" if summary.direct_tokens else ""
    text = (
        f"Directly, a client would send {approx}{summary.direct_tokens:,} tokens of tool definitions "
        f"({summary.tools:,} tools from {summary.listed} servers) with every request; through the gateway it "
        f"sends {approx}{summary.gateway_tokens:,} (four meta-tools and their instructions){share}."
    )
    failed = summary.servers - summary.listed
    if failed:
        text += f"\nNot counted: {failed} server{'s' if failed > 1 else ''} that did not list tools."
    if not counter.exact:
        text += f"\nCounts are {counter.unit}."
    return text


def _as_json(report: DoctorReport, counter: TokenCounter) -> dict[str, Any]:
    def server(check: ServerCheck) -> dict[str, Any]:
        row = asdict(check)
        row["stderr_log"] = str(check.stderr_log) if check.stderr_log is not None else None
        return {_camel(key): value for key, value in row.items()}

    summary = asdict(report.summary) if report.summary is not None else None
    return {
        "tokenizer": "cl100k" if counter.exact else "estimate",
        "servers": [server(check) for check in report.checks],
        "summary": {_camel(key): value for key, value in summary.items()} if summary else None,
    }


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _approx(counter: TokenCounter) -> str:
    return "" if counter.exact else "≈"


def _seconds(seconds: float | None) -> str:
    return f"{seconds:.2f} s" if seconds is not None else "not started"
