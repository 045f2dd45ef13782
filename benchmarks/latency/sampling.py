"""How every latency series is taken and summarized: durations in milliseconds, their median and p90, and
the order of the sides, rotated each turn so that no side always runs first after a pause.

The machine is shared and noisy: a gateway figure is only ever compared with its baseline from the same
run, taken in the same rotation.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from benchmarks.latency.failure import BenchError


@dataclass(frozen=True)
class Sample:
    """Durations in milliseconds."""

    values: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def p90(self) -> float:
        if len(self.values) == 1:
            return self.values[0]
        return statistics.quantiles(self.values, n=10, method="inclusive")[-1]

    def as_json(self) -> dict[str, float | int]:
        return {"median_ms": round(self.median, 3), "p90_ms": round(self.p90, 3), "n": len(self.values)}


def sample(values: Sequence[float]) -> Sample:
    if not values:
        raise BenchError("no measurement was taken")
    return Sample(tuple(values))


async def timed(step: Callable[[], Awaitable[object]]) -> float:
    started = time.perf_counter()
    await step()
    return (time.perf_counter() - started) * 1000


def rotated(items: Sequence[str], turn: int) -> list[str]:
    """`items` starting at a different one each turn, so none is always first after a pause."""
    shift = turn % len(items)
    return [*items[shift:], *items[:shift]]
