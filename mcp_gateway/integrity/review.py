"""What awaits a person's review, as a report: each held definition with why, and the diff from what was approved.

The diff is a unified diff (difflib) of the definition as approved against the definition as listed now, each
written as its description's lines and then its other fields as indented JSON (annotations last), so a changed
word shows as a changed line. Every text passes the caller's mask (a server may echo a credential), and each
invisible, direction-changing or control character is written as its code point (`⟨U+200B⟩`): what the model
would read unseen, a person sees.
"""

from __future__ import annotations

import difflib
import json
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from mcp_gateway.integrity.decisions import State, Verdict
from mcp_gateway.integrity.definitions import Kind
from mcp_gateway.integrity.gate import ServerVerdicts
from mcp_gateway.terminal import KEPT


@dataclass(frozen=True)
class Awaiting:
    server: str
    kind: Kind
    name: str
    state: State
    reason: str
    diff: str


@dataclass(frozen=True)
class FirstSight:
    server: str
    at: float
    count: int


@dataclass(frozen=True)
class Review:
    awaiting: tuple[Awaiting, ...]
    """Held definitions not rejected: what a person is asked about."""
    rejected: tuple[Awaiting, ...]
    first_sight: tuple[FirstSight, ...]
    notice: str | None = None


def held_items(servers: Iterable[ServerVerdicts], mask: Callable[[str], str]) -> list[Awaiting]:
    return [
        Awaiting(server.server, verdict.kind, verdict.name, verdict.state, mask(verdict.reason), diff_of(verdict, mask))
        for server in servers
        for verdict in server.verdicts
        if verdict.held
    ]


def diff_of(verdict: Verdict, mask: Callable[[str], str]) -> str:
    before = _written(verdict.pin.definition, verdict.pin.hints) if verdict.pin is not None else []
    after = _written(verdict.definition, verdict.hints)
    label = f"{verdict.kind} {verdict.name}"
    lines = difflib.unified_diff(
        before, after, fromfile=f"{label} (approved)", tofile=f"{label} (listed now)", lineterm=""
    )
    return visible(mask("\n".join(lines)))


def visible(text: str) -> str:
    """`text` with every character a terminal would act on or not show written as its code point."""
    return "".join(
        f"⟨U+{ord(char):04X}⟩" if char not in KEPT and unicodedata.category(char) in ("Cc", "Cf", "Co", "Cn") else char
        for char in text
    )


def _written(definition: dict[str, Any], hints: dict[str, Any]) -> list[str]:
    description = definition.get("description")
    lines = ["description:", *(f"  {line}" for line in str(description).split("\n"))] if description else []
    rest = {key: value for key, value in definition.items() if key != "description"}
    if hints:
        rest["annotations"] = hints
    return [*lines, *json.dumps(rest, indent=2, sort_keys=True, ensure_ascii=False).split("\n")]
