"""Arguments checked against a tool's cached input schema before any server is woken: what is reported."""

from __future__ import annotations

import json
from typing import Any

import anyio.to_thread
import pytest

from mcp_gateway.json_object import JsonObject
from mcp_gateway.service.arguments import MAX_PROBLEMS, QUICK_ARGUMENT_BYTES, ArgumentChecker, check_arguments

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "options": {"type": "object", "properties": {"depth": {"type": "integer"}}},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["path"],
    "additionalProperties": False,
}


def argument_problems(schema: JsonObject, arguments: dict[str, Any]) -> list[str]:
    check = check_arguments(schema, arguments)
    assert check.unchecked is None or not check.problems, "an unchecked call has no problems to report"
    return list(check.problems)


def test_valid_arguments_have_no_problems() -> None:
    assert argument_problems(SCHEMA, {"path": "/tmp", "options": {"depth": 2}, "tags": ["a"]}) == []


def test_a_missing_required_argument_is_named() -> None:
    assert argument_problems(SCHEMA, {}) == ["'path' is a required property"]


def test_a_wrong_type_is_reported_with_its_path() -> None:
    assert argument_problems(SCHEMA, {"path": 3}) == ["path: 3 is not of type 'string'"]


def test_a_nested_wrong_type_is_reported_with_its_dotted_path() -> None:
    assert argument_problems(SCHEMA, {"path": "/", "options": {"depth": "deep"}}) == [
        "options.depth: 'deep' is not of type 'integer'"
    ]


def test_an_array_item_is_reported_with_its_index() -> None:
    assert argument_problems(SCHEMA, {"path": "/", "tags": ["ok", 7]}) == ["tags.1: 7 is not of type 'string'"]


def test_an_unexpected_argument_is_named_when_additional_properties_are_forbidden() -> None:
    problems = argument_problems(SCHEMA, {"path": "/", "recursive": True})
    assert problems == ["Additional properties are not allowed ('recursive' was unexpected)"]


def test_every_problem_is_reported_up_to_the_cap() -> None:
    many: dict[str, Any] = {
        "type": "object",
        "properties": {f"p{i}": {"type": "integer"} for i in range(20)},
    }
    problems = argument_problems(many, {f"p{i}": "x" for i in range(20)})
    assert len(problems) == MAX_PROBLEMS
    assert len(argument_problems(SCHEMA, {"path": 1, "options": {"depth": "x"}, "extra": 1})) == 3


def test_a_schema_that_is_itself_invalid_lets_the_call_through_unchecked() -> None:
    invalid: dict[str, Any] = {"type": "object", "properties": {"path": {"type": "text"}}, "required": "path"}
    check = check_arguments(invalid, {"anything": object()})
    assert check.problems == ()
    assert check.unchecked is not None
    assert "not valid JSON Schema" in check.unchecked
    assert check.schema_at_fault


def test_a_draft_07_schema_is_validated_by_draft_07_rules() -> None:
    # Tuple validation with an `items` array exists in draft-07; in 2020-12 the same schema is invalid.
    tuple_schema: dict[str, Any] = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}},
    }
    assert argument_problems(tuple_schema, {"pair": ["a", 1]}) == []
    assert argument_problems(tuple_schema, {"pair": ["a", "b"]}) == ["pair.1: 'b' is not of type 'integer'"]


def test_a_schema_without_schema_keyword_uses_draft_2020_12() -> None:
    # `prefixItems` is 2020-12 only; an older draft would ignore it.
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}},
    }
    assert argument_problems(schema, {"pair": ["a", "b"]}) == ["pair.1: 'b' is not of type 'integer'"]


def test_a_local_reference_inside_the_schema_is_followed() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"when": {"$ref": "#/$defs/date"}},
        "$defs": {"date": {"type": "string"}},
    }
    assert argument_problems(schema, {"when": 5}) == ["when: 5 is not of type 'string'"]


@pytest.mark.parametrize("reference", ["#/$defs/missing", "https://schemas.example.invalid/thing.json"])
def test_a_schema_with_an_unresolvable_reference_lets_the_call_through_unchecked(reference: str) -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"thing": {"$ref": reference}}}
    check = check_arguments(schema, {"thing": 1})
    assert check.problems == ()
    assert check.unchecked is not None
    assert check.schema_at_fault


def test_the_same_schema_object_validates_consistently_on_repeated_calls() -> None:
    assert argument_problems(SCHEMA, {}) == argument_problems(SCHEMA, {}) == ["'path' is a required property"]
    assert argument_problems(SCHEMA, {"path": "/"}) == []


def _checked_off_the_loop(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The checks `ArgumentChecker.check` hands to a worker thread, by the schema they are for."""
    sent_off: list[str] = []
    run_sync = anyio.to_thread.run_sync

    async def counted(function: Any, schema: Any, *args: Any, **kwargs: Any) -> Any:
        sent_off.append(schema)
        return await run_sync(function, schema, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    return sent_off


@pytest.mark.anyio
async def test_small_arguments_against_a_compiled_plain_schema_are_checked_without_a_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = json.dumps(SCHEMA)
    patterned = json.dumps({"type": "object", "properties": {"path": {"type": "string", "pattern": "^/"}}})
    referring = json.dumps({"$defs": {"p": {"type": "string"}}, "properties": {"path": {"$ref": "#/$defs/p"}}})
    checker = ArgumentChecker()
    sent_off = _checked_off_the_loop(monkeypatch)
    for schema in (plain, patterned, referring):
        first = await checker.check(schema, {"path": 3})  # compiled in a thread the first time
        assert first.problems
        assert sent_off[-1] == schema
    sent_off.clear()

    assert (await checker.check(plain, {"path": 3})).problems == ("path: 3 is not of type 'string'",)
    assert (await checker.check(plain, {"path": "/tmp"})).problems == ()
    assert sent_off == [], "a compiled plain schema and small arguments take no thread"
    for schema in (patterned, referring):
        assert (await checker.check(schema, {"path": 3})).problems
    big = {"path": "x" * QUICK_ARGUMENT_BYTES}
    assert (await checker.check(plain, big)).problems == ()
    assert sent_off == [patterned, referring, plain], "patterns, references and big arguments go to a thread"
