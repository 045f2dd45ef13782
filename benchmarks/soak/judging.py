"""Judging a whole run's calls against their kinds: an outcome the kind cannot explain becomes unexpected.

A lost connection is explained by a crash of that server overlapping the call, which only the whole run's
records can tell; a single call's result cannot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from benchmarks.soak.outcomes import CallRecord, Outcome
from benchmarks.soak.plan import Kind

EXPECTED: dict[Kind, Outcome] = {
    "fast": "ok",
    "slow": "ok",
    "failing": "tool_error",
    "big": "ok",
    "cancelled": "cancelled",
    "timed_out": "timeout",
    "crashing": "connection_lost",
}


def judge(records: Sequence[CallRecord]) -> list[CallRecord]:
    """Mark outcomes the call's kind cannot explain as unexpected.

    A lost connection is expected of a crash, and of any call in flight on that server while a crash
    was; backoff may follow a failed restart. Anything else must be the kind's own outcome.
    """
    crashes = [r for r in records if r.plan.kind == "crashing"]
    judged: list[CallRecord] = []
    for record in records:
        outcome = record.outcome
        acceptable = outcome in (EXPECTED[record.plan.kind], "backoff", "unexpected", "lost")
        if outcome == "connection_lost" and not acceptable:
            acceptable = any(
                c.plan.server == record.plan.server and c.started < record.ended and c.ended > record.started
                for c in crashes
            )
        if not acceptable:
            detail = f"a {record.plan.kind} call ended as {outcome}"
            if outcome == "connection_lost":
                detail += " with no crash of that server during the call"
            judged.append(replace(record, outcome="unexpected", detail=detail))
        else:
            judged.append(record)
    return judged
