"""What `import` prints: one block per server, the gateway's needs, and the client's new entry.

Every entry printed goes through `mask_json` first: header values and token-like env values become
`***`, while `${VAR}` references stay visible, since they say which variables the gateway needs
without revealing them. Functions here return lines and never print, so the output is tested as text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from mcp_gateway.importers.client import ClientFormat
from mcp_gateway.importers.launch import LaunchPlan
from mcp_gateway.importers.masking import mask_json
from mcp_gateway.importers.merge import Outcome
from mcp_gateway.importers.model import ClientReading
from mcp_gateway.importers.variables import referenced_variables

INDENT = "  "


def server_blocks(reading: ClientReading, outcomes: Mapping[str, Outcome], client: str) -> list[str]:
    """One block per server of the client: imported (with its gateway entry) or skipped (with why)."""
    lines: list[str] = []
    for server in reading.servers:
        outcome = outcomes.get(server.name)
        if server.itself:
            lines.append(f"{INDENT}{server.name}: skipped: {server.skipped}")
            continue
        if outcome is None:
            lines.append(f"{INDENT}{server.name}: skipped: {server.skipped}; it stays in {client} as it is")
            continue
        lines.append(f"{INDENT}{server.name}: {_status(outcome)}")
        lines.append(f"{INDENT * 2}gateway entry: {compact(mask_json(outcome.entry))}")
        lines += [f"{INDENT * 2}note: {warning}" for warning in server.warnings]
    return lines


def needed_variables(reading: ClientReading) -> list[str]:
    """The `${VAR}` names the imported servers use, in order of first use."""
    names: dict[str, None] = {}
    for server in reading.imported:
        assert server.entry is not None
        names.update(dict.fromkeys(referenced_variables(server.entry)))
    return list(names)


def variables_line(names: Sequence[str], environ: Mapping[str, str]) -> str:
    described = [f"{name} ({'set in this shell' if environ.get(name) else 'not set in this shell'})" for name in names]
    return "The gateway now needs these environment variables (the client used to supply them): " + ", ".join(described)


def client_entry_block(client: ClientFormat, reading: ClientReading, plan: LaunchPlan) -> list[str]:
    """The exact entry `--write-client-config` puts into the client file, and what it replaces."""
    replaced = len(reading.imported)
    kept = len(reading.skipped)
    where = ".".join(reading.block)
    summary = f"replacing {replaced} imported server{_s(replaced)}" if replaced else "added"
    if kept:
        summary += f"; {kept} skipped server{_s(kept)} stay{'s' if kept == 1 else ''}"
    lines = [f"Client entry for {reading.path} ('{where}', {summary}):"]
    rendered = client.render_entry(plan.launch)
    masked = _mask_rendered(rendered)
    lines += [INDENT + line for line in masked.splitlines()]
    lines += [f"warning: {warning}" for warning in plan.warnings]
    return lines


def compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _status(outcome: Outcome) -> str:
    if outcome.status == "added":
        return "imported (new in the gateway)"
    if outcome.status == "updated":
        return f"imported (updates {', '.join(outcome.changed)} of the gateway's entry)"
    return "imported (the gateway already has it; unchanged)"


def _mask_rendered(rendered: str) -> str:
    """The client entry as it will be written, masked (it holds no secrets today; this keeps it so)."""
    name, _, body = rendered.partition(": ")
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        return rendered  # TOML: only the gateway's own command, home and variable names
    return f"{name}: {json.dumps(mask_json(value), indent=2, ensure_ascii=False)}"


def _s(count: int) -> str:
    return "" if count == 1 else "s"
