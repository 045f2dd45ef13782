"""Argument validation is bounded: hostile patterns, cyclic schemas and deep arguments end in a call sent
unchecked, never a frozen event loop, an endless thread or an error the model cannot fix."""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest

from mcp_gateway.json_object import JsonObject
from mcp_gateway.service.arguments import (
    TOO_DEEP,
    VALIDATION_THREADS,
    ArgumentCheck,
    ArgumentChecker,
    check_arguments,
)

pytestmark = pytest.mark.anyio

DEADLINE_SECONDS = 0.3
"""A short deadline for these tests; the gateway's own is `VALIDATION_DEADLINE_SECONDS`."""
GENEROUS = 5.0
"""How many deadlines a bounded validation may take on a busy machine before it counts as unbounded."""
TICK_SECONDS = 0.01
CATASTROPHIC = "^(a|aa)+$"
"""Backtracks exponentially in `re` and in `regex` alike (`^(a+)+$` is one `regex` decides at once)."""
HOSTILE_TEXT = "a" * 64 + "!"
"""Would take `re` about a day against CATASTROPHIC (each extra character multiplies the time by 1.6)."""


def schema_with(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


REDOS_SCHEMA = schema_with(text={"type": "string", "pattern": CATASTROPHIC})


class LoopWatch:
    """Ticks on the event loop and records the longest gap between two ticks: a frozen loop shows as one."""

    def __init__(self) -> None:
        self.ticks = 0
        self.longest_gap = 0.0

    async def run(self) -> None:
        last = time.monotonic()
        while True:
            await anyio.sleep(TICK_SECONDS)
            now = time.monotonic()
            self.ticks += 1
            self.longest_gap = max(self.longest_gap, now - last)
            last = now

    async def watching(self, work: Callable[[], Awaitable[ArgumentCheck]]) -> tuple[ArgumentCheck, float]:
        """`work()`'s outcome and how long it took, with the loop watched all along."""
        outcomes: list[tuple[ArgumentCheck, float]] = []
        async with anyio.create_task_group() as group:
            group.start_soon(self.run)
            started = time.monotonic()
            outcomes.append((await work(), time.monotonic() - started))
            group.cancel_scope.cancel()
        return outcomes[0]


async def test_a_catastrophic_pattern_is_cut_off_at_the_deadline_while_the_event_loop_keeps_running() -> None:
    checker = ArgumentChecker(deadline_seconds=DEADLINE_SECONDS)
    watch = LoopWatch()
    check, elapsed = await watch.watching(lambda: checker.check(REDOS_SCHEMA, {"text": HOSTILE_TEXT}))
    assert check.problems == ()
    assert check.unchecked is not None
    assert "took longer than the time allowed" in check.unchecked
    assert CATASTROPHIC in check.unchecked
    assert not check.schema_at_fault
    # The worker thread has returned (the check is not abandoned), within a bound set by the deadline.
    assert DEADLINE_SECONDS <= elapsed < GENEROUS * DEADLINE_SECONDS
    # The loop ran all along: the longest pause is a small part of the validation, not all of it.
    assert watch.ticks >= 5
    assert watch.longest_gap < elapsed / 3


async def test_a_burst_of_slow_validations_takes_only_a_few_worker_threads() -> None:
    class CountingChecker(ArgumentChecker):
        """Counts the checks running at once (in their worker threads)."""

        def __init__(self) -> None:
            super().__init__(deadline_seconds=DEADLINE_SECONDS)
            self.running = 0
            self.most = 0
            self._lock = threading.Lock()

        def _check(self, schema: JsonObject | str, arguments: dict[str, Any]) -> ArgumentCheck:
            with self._lock:
                self.running += 1
                self.most = max(self.most, self.running)
            try:
                return super()._check(schema, arguments)
            finally:
                with self._lock:
                    self.running -= 1

    checker = CountingChecker()
    async with anyio.create_task_group() as group:
        for _ in range(3 * VALIDATION_THREADS):
            group.start_soon(checker.check, REDOS_SCHEMA, {"text": HOSTILE_TEXT})
    assert checker.most == VALIDATION_THREADS


def test_one_time_out_ends_the_whole_validation() -> None:
    def timed(count: int) -> float:
        schema = schema_with(**{f"p{index}": {"type": "string", "pattern": CATASTROPHIC} for index in range(count)})
        arguments = {f"p{index}": HOSTILE_TEXT for index in range(count)}
        started = time.monotonic()
        assert check_arguments(schema, arguments, deadline_seconds=DEADLINE_SECONDS).unchecked is not None
        return time.monotonic() - started

    one, ten = timed(1), timed(10)
    # A deadline per pattern would take ten times as long; measured side by side, as the machine may be busy.
    assert ten < 3 * one, f"ten catastrophic matches, one deadline: {ten:.2f}s against {one:.2f}s for one"


def test_the_catastrophic_pattern_from_the_issue_is_decided_at_once_and_reported() -> None:
    # `^(a+)+$` froze the gateway for 17 s with `re`; `regex` finds the mismatch without backtracking.
    schema = schema_with(text={"type": "string", "pattern": "^(a+)+$"})
    check = check_arguments(schema, {"text": "a" * 29 + "!"}, deadline_seconds=DEADLINE_SECONDS)
    assert check.unchecked is None
    assert check.problems == (f"text: '{'a' * 29}!' does not match '^(a+)+$'",)


def test_a_pattern_mismatch_is_still_reported() -> None:
    schema = schema_with(code={"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"})
    assert check_arguments(schema, {"code": "ABC-12"}).problems == ()
    assert check_arguments(schema, {"code": "abc-12"}).problems == (
        "code: 'abc-12' does not match '^[A-Z]{3}-[0-9]+$'",
    )


def test_pattern_properties_and_additional_properties_still_apply_their_patterns() -> None:
    schema = {
        "type": "object",
        "patternProperties": {"^x-": {"type": "integer"}},
        "additionalProperties": False,
    }
    assert check_arguments(schema, {"x-count": 3}).problems == ()
    assert check_arguments(schema, {"x-count": "3"}).problems == ("x-count: '3' is not of type 'integer'",)
    assert check_arguments(schema, {"count": 3}).problems == ("'count' does not match any of the regexes: '^x-'",)
    typed_extras: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {}},
        "additionalProperties": {"type": "string"},
    }
    assert check_arguments(typed_extras, {"a": 1, "b": 2}).problems == ("b: 2 is not of type 'string'",)


def test_a_catastrophic_pattern_on_property_names_is_bounded_too() -> None:
    schema = {"type": "object", "patternProperties": {CATASTROPHIC: {"type": "string"}}, "additionalProperties": False}
    check = check_arguments(schema, {HOSTILE_TEXT: "value"}, deadline_seconds=DEADLINE_SECONDS)
    assert check.unchecked is not None
    assert "took longer" in check.unchecked


def test_a_schema_whose_ref_cycles_forever_lets_the_call_through_unchecked() -> None:
    cyclic = {"$ref": "#/$defs/node", "$defs": {"node": {"$ref": "#/$defs/node"}}}
    check = check_arguments(cyclic, {"anything": 1})
    assert check == check_arguments(cyclic, {"anything": 1})  # and again: the outcome is not a one-off
    assert check.problems == ()
    assert check.unchecked == TOO_DEEP


def test_arguments_nested_deeper_than_the_validator_can_walk_go_unchecked() -> None:
    tree = {"type": "object", "properties": {"child": {"$ref": "#"}, "name": {"type": "string"}}}
    shallow: dict[str, Any] = {"name": 1}
    assert check_arguments(tree, {"child": shallow}).problems == ("child.name: 1 is not of type 'string'",)
    deep: dict[str, Any] = {}
    for _ in range(5000):
        deep = {"child": deep}
    check = check_arguments(tree, deep)
    assert check.unchecked == TOO_DEEP


def test_a_pattern_the_matcher_cannot_compile_lets_the_call_through_unchecked() -> None:
    # Draft 4 does not require patternProperties names to be regular expressions, so this schema is valid.
    schema = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "patternProperties": {"((": {"type": "string"}},
    }
    check = check_arguments(schema, {"key": 1})
    assert check.problems == ()
    assert check.unchecked is not None
    assert "cannot be compiled" in check.unchecked


def test_a_pattern_too_large_to_compile_makes_the_schema_unusable_not_the_call() -> None:
    schema = schema_with(text={"type": "string", "pattern": "a{4294967295}"})
    check = check_arguments(schema, {"text": "a"})
    assert check.problems == ()
    assert check.unchecked is not None
    assert check.schema_at_fault


def test_unevaluated_properties_with_pattern_properties_go_unchecked_rather_than_unbounded() -> None:
    schema: dict[str, Any] = {"type": "object", "patternProperties": {"^a": {}}, "unevaluatedProperties": False}
    check = check_arguments(schema, {"b": 1})
    assert check.problems == ()
    assert check.unchecked is not None
    assert "unevaluatedProperties" in check.unchecked
    plain: dict[str, Any] = {"type": "object", "properties": {"a": {}}, "unevaluatedProperties": False}
    assert check_arguments(plain, {"b": 1}).problems == ("Unevaluated properties are not allowed ('b' was unexpected)",)
