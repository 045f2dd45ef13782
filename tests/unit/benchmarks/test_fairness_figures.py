"""The fairness benchmark's figures from what it recorded (`benchmarks.fairness_figures`)."""

from __future__ import annotations

import math

from benchmarks.fairness_figures import Echo, Memory, RssSample, Span, by_phase, latency, memory, percentile, phase_of

LOADS = [Span(10.0, 11.0), Span(12.0, 13.0)]


def test_a_call_overlapping_any_load_falls_during_it_else_before_or_after() -> None:
    assert phase_of(Span(9.0, 9.5), LOADS) == "before"
    assert phase_of(Span(9.9, 10.1), LOADS) == "during"
    assert phase_of(Span(11.2, 11.8), LOADS) == "after"  # between two loads: not before the first
    assert phase_of(Span(12.9, 13.5), LOADS) == "during"
    assert phase_of(Span(1.0, 2.0), []) == "before"
    grouped = by_phase([Echo(Span(9.0, 9.5), True), Echo(Span(10.5, 10.6), True)], LOADS)
    assert [len(grouped[phase]) for phase in ("before", "during", "after")] == [1, 1, 0]


def test_the_percentile_is_the_nearest_rank() -> None:
    values = [float(value) for value in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile([3.0, 1.0, 2.0], 0.99) == 3.0
    assert math.isnan(percentile([], 0.5))


def test_a_failed_call_counts_with_the_time_it_took() -> None:
    figure = latency([Echo(Span(0.0, 0.002), True), Echo(Span(0.0, 0.004), True), Echo(Span(0.0, 30.0), False)])
    assert (figure.count, figure.failed) == (3, 1)
    assert figure.p50_ms == 4.0
    assert figure.p99_ms == figure.max_ms == 30000.0


def test_memory_before_is_the_median_of_the_window_before_and_after_is_the_last_reading() -> None:
    samples = [RssSample(at, mb) for at, mb in [(6.0, 500.0), (8.0, 80.0), (9.0, 82.0), (9.5, 81.0), (10.5, 190.0)]]
    samples += [RssSample(12.5, 210.0), RssSample(18.0, 120.0)]
    kept = memory(samples, LOADS, before_seconds=3.0, hwm_mb=215.0)
    assert kept == Memory(before_mb=81.0, peak_mb=210.0, after_mb=120.0, hwm_mb=215.0)
    assert kept.kept_mb == 39.0
