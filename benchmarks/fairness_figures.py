"""The figures of the fairness benchmark, from what it recorded: which echo calls fell before, during or after the
load, their percentiles, and what a daemon's resident memory was before, at its peak and after. Pure logic:
nothing is started or read here.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Phase = Literal["before", "during", "after"]
PHASES: tuple[Phase, ...] = ("before", "during", "after")


@dataclass(frozen=True)
class Span:
    """From `started` to `ended`, in seconds of one clock."""

    started: float
    ended: float

    @property
    def seconds(self) -> float:
        return self.ended - self.started

    def overlaps(self, other: Span) -> bool:
        return self.started <= other.ended and other.started <= self.ended


@dataclass(frozen=True)
class Echo:
    """One warm echo call of the measuring session: when it ran, and whether it was answered as it should be."""

    span: Span
    ok: bool


def phase_of(span: Span, loads: Sequence[Span]) -> Phase:
    """`during` for a call that overlaps any load; else before the first load or after it."""
    if any(span.overlaps(load) for load in loads):
        return "during"
    return "before" if not loads or span.ended < loads[0].started else "after"


def by_phase(echoes: Sequence[Echo], loads: Sequence[Span]) -> dict[Phase, list[Echo]]:
    grouped: dict[Phase, list[Echo]] = {phase: [] for phase in PHASES}
    for echo in echoes:
        grouped[phase_of(echo.span, loads)].append(echo)
    return grouped


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile: the smallest value at least `fraction` of the values are no greater than."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


@dataclass(frozen=True)
class Latency:
    """Echo round trips of one phase, in milliseconds."""

    count: int
    failed: int
    p50_ms: float
    p99_ms: float
    max_ms: float


def latency(echoes: Sequence[Echo]) -> Latency:
    """A failed call counts with the time it took to fail (a timeout, its whole bound)."""
    values = [echo.span.seconds * 1000 for echo in echoes]
    failed = sum(not echo.ok for echo in echoes)
    if not values:
        return Latency(0, 0, math.nan, math.nan, math.nan)
    return Latency(len(values), failed, percentile(values, 0.5), percentile(values, 0.99), max(values))


@dataclass(frozen=True)
class RssSample:
    at: float
    mb: float


@dataclass(frozen=True)
class Memory:
    """A daemon's VmRSS before the first load (the median of the samples in the window before it), at its peak
    during the loads (sampled), and at the end of the wait after them; its VmHWM (the true peak, never missed by
    sampling) at the end."""

    before_mb: float
    peak_mb: float
    after_mb: float
    hwm_mb: float

    @property
    def kept_mb(self) -> float:
        return self.after_mb - self.before_mb


def memory(samples: Sequence[RssSample], loads: Sequence[Span], before_seconds: float, hwm_mb: float) -> Memory:
    if not samples or not loads:
        return Memory(math.nan, math.nan, math.nan, hwm_mb)
    first, last = loads[0].started, loads[-1].ended
    before = [s.mb for s in samples if first - before_seconds <= s.at <= first] or [samples[0].mb]
    during = [s.mb for s in samples if first <= s.at <= last] or [before[-1]]
    return Memory(statistics.median(before), max(during), samples[-1].mb, hwm_mb)
