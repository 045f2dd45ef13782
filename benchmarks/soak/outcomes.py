"""What one call came to: the outcome the gateway reported, checked against the call that asked (its
server and tool named, its token or size returned), and the record of it with its start and end.

A result that belongs to another call, or that the call cannot have produced, is `unexpected`, with a
detail that says why; `lost` is for a call whose await never returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import mcp_types as types

from benchmarks.gateway_session import text_of
from benchmarks.soak.plan import Plan

Outcome = Literal["ok", "tool_error", "connection_lost", "timeout", "cancelled", "backoff", "unexpected", "lost"]
OUTCOMES: tuple[Outcome, ...] = (
    "ok",
    "tool_error",
    "connection_lost",
    "timeout",
    "cancelled",
    "backoff",
    "unexpected",
    "lost",
)


@dataclass(frozen=True)
class CallRecord:
    plan: Plan
    started: float
    ended: float
    outcome: Outcome
    detail: str = ""

    @property
    def milliseconds(self) -> float:
        return (self.ended - self.started) * 1000


def preview(text: str, limit: int = 160) -> str:
    return repr(text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)")


def classify(plan: Plan, result: types.CallToolResult) -> tuple[Outcome, str]:
    """The outcome the gateway reported, checked against the call that asked (names, tokens, sizes)."""
    text = text_of(result)
    named = f"'{plan.server}.{plan.tool}'" in text or (f"'{plan.server}'" in text and f"'{plan.tool}'" in text)
    # First: a backoff message quotes the server's last error, which may read like any of the others.
    if result.is_error and "will not be retried for" in text:
        return ("backoff", "") if f"'{plan.server}'" in text else ("unexpected", f"other backoff: {preview(text)}")
    if result.is_error and "did not answer within" in text:
        return ("timeout", "") if named else ("unexpected", f"timeout for another call: {preview(text)}")
    if result.is_error and "was lost while" in text:
        return ("connection_lost", "") if named else ("unexpected", f"lost for another call: {preview(text)}")
    if plan.expected_text is not None and text == plan.expected_text:
        return ("tool_error" if result.is_error else "ok"), ""
    state = "isError" if result.is_error else "ok"
    wanted = "" if plan.expected_text is None else f", expected {preview(plan.expected_text)}"
    return "unexpected", f"{state} result {preview(text)}{wanted}"
