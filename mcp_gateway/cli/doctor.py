"""`refresh` and `doctor`: start servers now, list their tools, and say what works (and, for `doctor`, what
it costs in tokens and what is wrong).

Progress goes to stderr, a line as each server's turn comes and one as it answers, and the report to stdout,
so `refresh > out.txt` or `doctor --json | jq` stay parseable. Progress is printed whether or not stderr is a
terminal: a CI log or a client that captures stderr shows which server a slow or failed run was waiting for;
no line is rewritten in place, so a log reads the same as a terminal. Server errors arrive masked (the gateway
masks them where they are made); the reasons for rejected entries are masked here. Exit 1 when a server failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from mcp_gateway.cli.context import load, secret_mask, with_gateway
from mcp_gateway.cli.people import PersonWords
from mcp_gateway.cli.signing_in import sign_in_json, sign_in_lines
from mcp_gateway.cli.status import awaiting_line
from mcp_gateway.service.doctor import DoctorReport, ServerCheck
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.service.progress import ServerProgress
from mcp_gateway.service.reports import RefreshReport
from mcp_gateway.sign_in import SignInState
from mcp_gateway.tokens import TokenCounter, token_counter
from mcp_gateway.wording import counted

SOME_FAILED = 1
INDENT = "    "
NO_SERVERS = "no enabled servers; run `mcp-gateway import --client NAME`, or add servers under 'mcpServers'"


class ProgressLines:
    """Prints the `ServerProgress` events of one command; `total` is how many servers it will start."""

    def __init__(self) -> None:
        self.total = 0
        self.started = 0

    def show(self, event: ServerProgress) -> None:
        if event.stage == "starting":
            self.started += 1
            line = f"[{self.started}/{self.total}] starting {event.server} …"
        elif event.stage == "listed":
            line = f"{event.server}: {counted(event.tool_count, 'tool')} ({_seconds(event.seconds)})"
        else:  # its first line: a server's stderr quoted below it is in the report on stdout
            lines = (event.error or "").strip().splitlines()
            reason = lines[0] if lines else event.error or "no reason given"
            line = f"{event.server}: failed after {_seconds(event.seconds)}: {reason}"
        print(f"mcp-gateway: {line}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    return _refresh(args) if args.command == "refresh" else _doctor(args)


def _seconds(value: float | None) -> str:
    return f"{value:.2f} s" if value is not None else "not started"


def _refresh(args: argparse.Namespace) -> int:
    config = load(args)
    progress = ProgressLines()

    async def work(gateway: Gateway) -> RefreshReport:
        names = [gateway.resolve_server(args.server)] if args.server else None
        # Named servers are listed as named; without names, the enabled ones are (see `Gateway.refresh`).
        progress.total = len(names) if names is not None else len(config.enabled_servers)
        return await gateway.refresh(names, on_progress=progress.show)

    report = with_gateway(args, work, config=config)
    if report.cache_notice is not None:  # listed, but not saved for the next start: a failure too
        print(f"mcp-gateway: {report.cache_notice}", file=sys.stderr)
    failed = SOME_FAILED if report.failed or report.cache_notice is not None else 0
    if not report.outcomes:
        print(f"Nothing to refresh: {NO_SERVERS}.")
        return failed
    for outcome in report.outcomes:
        if outcome.failure is not None:
            print(f"{outcome.server}: failed: {outcome.failure}")
        else:
            print(f"{outcome.server}: {counted(outcome.tool_count or 0, 'tool')}")
    total = counted(len(report.outcomes), "server")
    tools = counted(sum(outcome.tool_count or 0 for outcome in report.outcomes), "tool")
    if report.failed:
        listed = len(report.outcomes) - len(report.failed)
        print(f"Refreshed {listed} of {total}: {tools}; {len(report.failed)} failed.")
    else:
        print(f"Refreshed {total}: {tools}.")
    return failed


def _doctor(args: argparse.Namespace) -> int:
    config = load(args, quiet=args.json)
    counter = token_counter()
    progress = ProgressLines()

    async def work(gateway: Gateway) -> tuple[DoctorReport, dict[str, SignInState | None], int]:
        names = [gateway.resolve_server(name) for name in args.servers] or None
        chosen = names if names is not None else list(config.servers)
        progress.total = sum(1 for name in chosen if not config.servers[name].spec.disabled)
        report = await gateway.doctor(counter, servers=names, on_progress=progress.show)
        # Read after the checks: a start that was refused for want of a sign-in is part of the state.
        status = await gateway.status()
        return report, {server.name: server.sign_in for server in status.servers}, status.awaiting_review

    report, sign_ins, awaiting = with_gateway(args, work, config=config)
    if args.json:
        shown = _as_json(report, counter)
        shown["awaitingReview"] = awaiting
        for row in shown["servers"]:
            row["signIn"] = sign_in_json(sign_ins.get(row["name"]))
        print(json.dumps(shown, indent=2))
    else:
        print(f"config: {config.path}")
        program = PersonWords.of(args).program
        for check in report.checks:
            print(
                "\n".join(_check_lines(check, counter) + sign_in_lines(check.name, sign_ins.get(check.name), program))
            )
        print()
        print(_summary_text(report, counter))
        if awaiting:
            print(awaiting_line(awaiting, program))
        secrets = secret_mask(config)
        for name, reason in config.rejected.items():
            print(f"{name}: not checked, its config entry is invalid: {secrets.mask(reason)}")
    return SOME_FAILED if any(not c.listed and not c.disabled for c in report.checks) else 0


def _check_lines(check: ServerCheck, counter: TokenCounter) -> list[str]:
    kind = f"{check.transport}, {check.lifecycle}"
    if check.disabled:
        return [f"{check.name}: disabled ({kind})"]
    if check.listed:
        tokens = f"{_approx(counter)}{check.schema_tokens:,} tokens"
        protocol = f", protocol {check.protocol_version}" if check.protocol_version else ""
        lines = [
            f"{check.name}: ok, {counted(check.tool_count, 'tool')}, {tokens} of definitions, "
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
        f"({counted(summary.tools, 'tool')} from {counted(summary.listed, 'server')}) with every request; "
        f"through the gateway it sends {approx}{summary.gateway_tokens:,} "
        f"(four meta-tools and their instructions){share}."
    )
    failed = summary.servers - summary.listed
    if failed:
        text += f"\nNot counted: {counted(failed, 'server')} that did not list tools."
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
