"""The soak's workload: the options it runs with, the mix of call kinds, and each call planned so that its
answer can be recognized (a token, or the call's index in a sleep's seconds, echoed back).

One seeded RNG draws every kind and server in call order, so a seed names a workload. One server at a time
rests, in turn, so the idle timeout reaps servers during the run as well.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Literal

from benchmarks.soak.workspace import REQUEST_TIMEOUT_MS

REST_SECONDS = 8.0
"""How long each server in turn gets no calls: the idle timeout (3 s) plus the longest call, with margin."""
BIG_BYTES = 200_000
CANCEL_SLEEP_SECONDS = 5.0

Kind = Literal["fast", "slow", "failing", "crashing", "cancelled", "timed_out", "big"]
KIND_WEIGHTS: dict[Kind, int] = {
    "fast": 30,
    "slow": 15,
    "failing": 10,
    "big": 10,
    "cancelled": 10,
    "timed_out": 5,
    # Each crash also fails every call in flight on that server, so crashes stay rare.
    "crashing": 3,
}


@dataclass
class Options:
    seconds: float
    servers: int
    concurrency: int
    seed: int
    sessions: int = 1
    """N session fronts of the workspace's one shared daemon, the workers spread over them."""
    standalone: bool = False
    """One session served by its private daemon instead (`--sessions` must be 1)."""


@dataclass(frozen=True)
class Plan:
    """One `execute_tool` call and what must come back from it."""

    index: int
    kind: Kind
    server: str
    tool: str
    arguments: dict[str, Any]
    expected_text: str | None = None
    cancel_after: float | None = None


def unique_seconds(seconds: float, index: int) -> float:
    # The call's index in the low digits: `sleep` echoes its argument, so the answer names its call.
    return float(f"{seconds:.3f}{index % 1_000_000:06d}")


def plan_call(index: int, kind: Kind, server: str, rng: random.Random) -> Plan:
    token = f"soak-{index}-{rng.getrandbits(32):08x}"
    expected: str | None = None
    cancel_after: float | None = None
    match kind:
        case "fast":
            tool, arguments, expected = "echo", {"message": token}, token
        case "slow":
            seconds = unique_seconds(rng.uniform(0.2, 1.0), index)
            tool, arguments, expected = "sleep", {"seconds": seconds}, f"slept {seconds}"
        case "failing":
            expected = f"failed on purpose: {token}"
            tool, arguments = "fail", {"message": expected}
        case "crashing":
            tool, arguments = "crash", {}
        case "cancelled":
            tool, arguments = "sleep", {"seconds": unique_seconds(CANCEL_SLEEP_SECONDS, index)}
            cancel_after = rng.uniform(0.1, 0.5)
        case "timed_out":
            seconds = unique_seconds(REQUEST_TIMEOUT_MS / 1000 + rng.uniform(0.5, 1.5), index)
            tool, arguments = "sleep", {"seconds": seconds}
        case "big":
            tool, arguments, expected = "big", {"bytes": BIG_BYTES}, "x" * BIG_BYTES
    return Plan(index, kind, server, tool, arguments, expected, cancel_after)


@dataclass
class Schedule:
    """Hands out the next call: kinds and servers drawn from one seeded RNG, in call order."""

    servers: list[str]
    rng: random.Random
    started: float
    next_index: int = 0

    def resting(self, now: float) -> str | None:
        """The server that gets no calls now, in turn, so idle reaping happens during the run."""
        if len(self.servers) < 2:
            return None
        return self.servers[int((now - self.started) / REST_SECONDS) % len(self.servers)]

    def next_plan(self, now: float) -> Plan:
        resting = self.resting(now)
        kind = self.rng.choices(list(KIND_WEIGHTS), weights=list(KIND_WEIGHTS.values()))[0]
        server = self.rng.choice([name for name in self.servers if name != resting])
        self.next_index += 1
        return plan_call(self.next_index, kind, server, self.rng)
