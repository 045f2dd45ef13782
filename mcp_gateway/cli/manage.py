"""`refresh`, `status` and `config`: looking after the workspace.

`status` reports what this workspace knows without starting anything: each server's cache state and tool
count from cache.json, whether a running gateway has it started (from the process records gateways keep),
and its last error (from errors.json, written by whichever gateway saw it). Then what failed in the
background of the running gateways (the gateway served on; the traceback is in its log). What keeps the
workspace from working fully (a `logs` that is a file, a cache.json that cannot be read or a newer gateway
wrote) is said too, and is not a failure: a serving gateway carries on through it, so `status` exits 0.
Every message it prints passes through the config's `SecretMask`: errors.json may have been written by a
gateway that did not mask.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from typing import Any

from mcp_gateway.cli.context import load, secret_mask, with_gateway, workspace_of
from mcp_gateway.downstream.error_journal import ErrorJournal
from mcp_gateway.downstream.process_records import running_servers
from mcp_gateway.errors import CliError, ToolCallError
from mcp_gateway.service.gateway import Gateway

REFRESH_FAILED = 1
CONFIG_INVALID = 1


def run_refresh(args: argparse.Namespace) -> int:
    async def work(gateway: Gateway) -> int:
        try:
            names = [gateway.resolve_server(args.server)] if args.server else None
        except ToolCallError as error:
            raise CliError(error.message, REFRESH_FAILED) from error
        await gateway.refresh_servers(names)
        failed = 0
        if gateway.catalog.notice is not None:  # listed, but not saved for the next start
            failed += 1
            print(f"mcp-gateway: {gateway.catalog.notice}", file=sys.stderr)
        for report in await gateway.status():
            if names is not None and report.name not in names:
                continue
            if report.failure:
                failed += 1
                print(f"{report.name}: failed: {report.failure}")
            elif report.state != "disabled":
                print(f"{report.name}: {report.tool_count} tools")
        return REFRESH_FAILED if failed else 0

    return with_gateway(args, work)


def run_status(args: argparse.Namespace) -> int:
    workspace, config = load(args, quiet=args.json)
    secrets = secret_mask(config)
    running = running_servers(workspace.process_records_dir)
    errors = ErrorJournal(workspace.errors_path, secrets.mask).read()
    rejected = {name: secrets.mask(reason) for name, reason in config.rejected.items()}

    notes: dict[str, Any] = {}

    async def work(gateway: Gateway) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        rows: list[dict[str, Any]] = []
        for report in await gateway.status():
            error = errors.get(report.name)
            rows.append(
                {
                    "server": report.name,
                    "transport": report.transport,
                    "lifecycle": report.lifecycle,
                    "cache": report.state,
                    "tools": report.tool_count,
                    "fetchedAt": report.fetched_at,
                    "protocol": report.protocol_version,
                    "running": [{"gatewayPid": g, "pid": p} for g, p in running.get(report.name, [])],
                    "lastError": asdict(error) if error else None,
                    "skippedTools": list(report.skipped),
                }
            )
        problems = [
            {"gatewayPid": found.gateway_pid, **asdict(found.problem), "error": secrets.mask(found.problem.error)}
            for found in await gateway.background_problems()
        ]
        notes["workspaceProblems"] = list(gateway.workspace_problems)
        notes["cacheNotice"] = gateway.catalog.notice
        return rows, problems

    rows, problems = with_gateway(args, work, loaded=(workspace, config))
    if args.json:
        document = {
            "config": str(config.path),
            "servers": rows,
            "rejected": rejected,
            "backgroundProblems": problems,
            **notes,
        }
        print(json.dumps(document, indent=2))
        return 0
    print(f"config: {config.path}")
    for problem in notes["workspaceProblems"]:
        print(f"workspace problem: {problem}")
    if notes["cacheNotice"]:
        print(f"cache: {notes['cacheNotice']}")
    if not rows and not rejected:
        print("no servers configured (add them under 'mcpServers', or run `mcp-gateway import --client NAME`)")
    for row in rows:
        running_text = ", ".join(f"pid {r['pid']}" for r in row["running"]) or "not running"
        age = f", fetched {_ago(row['fetchedAt'])}" if row["fetchedAt"] else ""
        print(f"{row['server']}: {row['cache']}, {row['tools']} tools{age}; {running_text} ({row['lifecycle']})")
        if row["skippedTools"]:
            skipped = row["skippedTools"]
            print(f"    left out of its tool list as unusable: {'; '.join(skipped)}")
        if row["lastError"]:
            error = row["lastError"]
            retry = "a retry may help" if error["retryable"] else "a retry will not help"
            print(f"    last error ({error['phase']}, {_ago(error['at'])}; {retry}): {error['message']}")
    for name, reason in rejected.items():
        print(f"{name}: invalid config entry: {reason}")
    if problems:
        print("background problems (the gateway served on; details in its log):")
    for problem in problems:
        print(f"    gateway pid {problem['gatewayPid']}, {_ago(problem['at'])}: {problem['task']}: {problem['error']}")
    return 0


def run_config(args: argparse.Namespace) -> int:
    if args.config_command == "path":
        print(workspace_of(args).config_path)
        return 0
    _, config = load(args)
    enabled = sum(1 for server in config.servers.values() if not server.spec.disabled)
    counts = f"{enabled} enabled servers, {len(config.rejected)} invalid, {len(config.diagnostics)} diagnostics"
    print(f"{config.path}: {counts}")
    return CONFIG_INVALID if config.errors else 0


def _ago(epoch: float) -> str:
    seconds = max(0.0, time.time() - epoch)
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f}{unit} ago"
    return f"{seconds:.0f}s ago"
