"""The figures, as a table for a person or one JSON object."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from benchmarks.client_context.measure import DIRECT, GATEWAY, Measured
from benchmarks.tokens import ENCODING


def ratio(results: Sequence[Measured], client: str) -> float | None:
    """The gateway's MCP tokens over the direct configuration's, for one client."""
    by_configuration = {m.configuration: m.share.total for m in results if m.client == client}
    direct, gateway = by_configuration.get(DIRECT), by_configuration.get(GATEWAY)
    return gateway / direct if direct and gateway is not None else None


def print_report(results: Sequence[Measured]) -> None:
    print(f"MCP in each client's first model request ({ENCODING} tokens of what the client sent)")
    print("(asked s: from the client's start to that request; run s: the client's whole run)")
    header = f"{'client':12} {'configuration':32} {'tools':>6} {'tool tk':>8} {'deferred':>9} {'instr':>6}"
    print(header + f" {'MCP':>6} {'request':>8} {'share':>6} {'asked s':>7} {'run s':>6}")
    for m in results:
        share = m.share
        part = f"{share.total / share.request_tokens:6.1%}" if share.request_tokens else "     -"
        print(
            f"{m.client:12} {m.configuration:32} {len(share.tool_names):6d} {share.tool_tokens:8,d} "
            f"{share.deferred_tokens:9,d} {share.instruction_tokens:6,d} {share.total:6,d} "
            f"{share.request_tokens:8,d} {part} {m.first_request_after:7.1f} {m.seconds:6.1f}"
        )
    print()
    for client in dict.fromkeys(m.client for m in results):
        value = ratio(results, client)
        shown = f"{value:.1%}" if value is not None else "n/a"
        print(f"{client}: gateway / direct = {shown}")
    tried = sorted({line for m in results for line in m.tried_to_reach})
    if tried:
        print("\nRefused by the offline proxy (what the clients tried to reach):")
        for line in tried:
            print(f"  {line}")


def report_json(results: Sequence[Measured]) -> dict[str, Any]:
    clients = list(dict.fromkeys(m.client for m in results))
    return {
        "encoding": ENCODING,
        "measured": [{**asdict(m), "mcp_tokens": m.share.total} for m in results],
        "ratios": {client: ratio(results, client) for client in clients},
    }
