"""`mcp-gateway doctor [SERVER ...] [--json]`: start each server, and show what works and what it costs.

Progress goes to stderr as servers start and answer (a refresh of many servers takes a while); the
report goes to stdout, as text or as one JSON object, with each remote server's sign-in state (never a
token). Exit 1 when any enabled server failed. Server errors arrive masked (the gateway masks them where
they are made); the reasons for rejected entries are masked here.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Any

from mcp_gateway.cli.context import load, secret_mask, with_gateway
from mcp_gateway.cli.people import PersonWords
from mcp_gateway.cli.progress import ProgressLines, seconds
from mcp_gateway.cli.signing_in import sign_in_json, sign_in_words
from mcp_gateway.service.doctor import DoctorReport, ServerCheck
from mcp_gateway.service.gateway import Gateway
from mcp_gateway.sign_in import SignInState
from mcp_gateway.tokens import TokenCounter, token_counter
from mcp_gateway.wording import counted

SOME_FAILED = 1
INDENT = "    "


def run_doctor(args: argparse.Namespace) -> int:
    config = load(args, quiet=args.json)
    counter = token_counter()
    progress = ProgressLines()

    async def work(gateway: Gateway) -> tuple[DoctorReport, dict[str, SignInState], int]:
        names = [gateway.resolve_server(name) for name in args.servers] or None
        chosen = names if names is not None else list(config.servers)
        progress.total = sum(1 for name in chosen if not config.servers[name].spec.disabled)
        report = await gateway.doctor(counter, servers=names, on_progress=progress.show)
        # Read after the checks: a start that was refused for want of a sign-in is part of the state.
        status = await gateway.status()
        states = {server.name: server.sign_in for server in status.servers}
        return report, {name: state for name, state in states.items() if state is not None}, status.awaiting_review

    report, sign_ins, awaiting = with_gateway(args, work, config=config)
    if args.json:
        shown = _as_json(report, counter)
        shown["awaitingReview"] = awaiting
        for row in shown["servers"]:
            state = sign_ins.get(row["name"])
            row["signIn"] = None if state is None else sign_in_json(state)
        print(json.dumps(shown, indent=2))
    else:
        print(f"config: {config.path}")
        program = PersonWords.of(args).program
        for check in report.checks:
            print("\n".join(_check_lines(check, counter)))
            state = sign_ins.get(check.name)
            if state is not None and state.state != "not needed":
                print(f"{INDENT}sign-in: {sign_in_words(check.name, state, program)}")
        print()
        print(_summary_text(report, counter))
        if awaiting:
            print(awaiting_line(awaiting, PersonWords.of(args).program))
        secrets = secret_mask(config)
        for name, reason in config.rejected.items():
            print(f"{name}: not checked, its config entry is invalid: {secrets.mask(reason)}")
    return SOME_FAILED if any(not c.listed and not c.disabled for c in report.checks) else 0


def awaiting_line(awaiting: int, program: str) -> str:
    """What is held back from the model until a person reviews it (`status` says it too)."""
    return f"{counted(awaiting, 'definition')} await your review, held back from the model: run {program} review"


def _check_lines(check: ServerCheck, counter: TokenCounter) -> list[str]:
    kind = f"{check.transport}, {check.lifecycle}"
    if check.disabled:
        return [f"{check.name}: disabled ({kind})"]
    if check.listed:
        tokens = f"{_approx(counter)}{check.schema_tokens:,} tokens"
        protocol = f", protocol {check.protocol_version}" if check.protocol_version else ""
        lines = [
            f"{check.name}: ok, {counted(check.tool_count, 'tool')}, {tokens} of definitions, "
            f"started and listed in {seconds(check.seconds)} ({kind}{protocol})"
        ]
    else:
        lines = [f"{check.name}: FAILED after {seconds(check.seconds)} ({kind})"]
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
