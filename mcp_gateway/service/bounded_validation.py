"""JSON Schema validators that finish within a deadline, whatever the schema's patterns and the arguments.

A schema comes from a downstream server and the arguments from a model; neither is ours to trust. The
stock jsonschema keywords run `pattern`, `patternProperties` and the pattern half of `additionalProperties`
through `re`, which backtracks without bound (`^(a|aa)+$` against 40 characters runs for hours) and holds
the GIL for the whole match, so not even a worker thread keeps the rest of the process running.

Contract:
- `bounded_validator_class(cls)` is `cls` with those keywords matched by `regex` (which releases the GIL
  while matching a `str`), each match given only the time left before the validation's deadline, and
  every other keyword checking that deadline before it runs;
- `deadline(seconds)` sets that deadline for the validation run inside it (per thread of execution: a
  compiled validator is shared by concurrent validations);
- `UncheckableError` is raised from inside a validation that cannot be finished within its bounds: the
  deadline passed (`DeadlinePassedError`) or a pattern `regex` cannot compile (`BadPatternError`);
- `unbounded_keywords(schema)` names what these validators cannot bound: jsonschema evaluates
  `unevaluatedProperties` with a helper of its own that runs `re` on property names when the schema also
  has `patternProperties`, and that helper cannot be replaced piecemeal.

`format` is not checked (the validators are built without a format checker), so no other keyword runs
a regular expression on the arguments.

Importing this module imports jsonschema, referencing and regex: do it only through
`arguments.prepare()`, which serializes those imports.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, cast

import regex
from jsonschema import SchemaError, ValidationError
from jsonschema.validators import extend, validator_for  # pyright: ignore[reportUnknownVariableType]
from referencing import Registry
from referencing.exceptions import Unresolvable

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = [
    "BadPatternError",
    "DeadlinePassedError",
    "Registry",
    "SchemaError",
    "UncheckableError",
    "Unresolvable",
    "bounded_validator_class",
    "deadline",
    "unbounded_keywords",
    "validator_for",
]

MAX_CACHED_PATTERNS = 1024
"""Compiled patterns kept (a tool's patterns are matched on every call of it)."""

Keyword = Callable[[Any, Any, Any, Any], Iterable[ValidationError] | None]

_deadline: ContextVar[float] = ContextVar("validation_deadline", default=math.inf)


class UncheckableError(Exception):
    """The arguments cannot be checked within the validation's bounds; the message says why."""


class DeadlinePassedError(UncheckableError):
    pass


class BadPatternError(UncheckableError):
    pass


@contextmanager
def deadline(seconds: float) -> Generator[None]:
    """Validations run inside end with `DeadlinePassedError` once `seconds` (monotonic) have passed."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def bounded_validator_class(cls: type[Validator]) -> type[Validator]:
    """`cls` with every keyword under the deadline and every regular expression matched by `regex`."""
    return _bounded(cls)


def unbounded_keywords(schema: object) -> str | None:
    """Why validating against `schema` could not be bounded, or None when it can be."""
    keys = keys_anywhere(schema)
    if "unevaluatedProperties" in keys and "patternProperties" in keys:
        return "its schema combines unevaluatedProperties with patternProperties, which has no bounded check"
    return None


@functools.cache
def _bounded(cls: type[Validator]) -> type[Validator]:
    keywords: dict[str, Keyword] = {
        name: _under_deadline(keyword) for name, keyword in cast(dict[str, Keyword], cls.VALIDATORS).items()
    }
    replacements: dict[str, Keyword] = {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    }
    keywords |= {name: _under_deadline(keyword) for name, keyword in replacements.items() if name in keywords}
    # No `version`: the extended class stays out of jsonschema's registry, so `validator_for` is unchanged.
    return cast("type[Validator]", extend(cls, validators=keywords))  # pyright: ignore[reportUnknownArgumentType]


def _under_deadline(keyword: Keyword) -> Keyword:
    def checked(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
        _time_left()
        errors = keyword(validator, value, instance, schema)
        if errors is not None:
            yield from errors

    return checked


def _time_left() -> float:
    left = _deadline.get() - time.monotonic()
    if left <= 0:
        raise DeadlinePassedError("checking them took longer than the time allowed")
    return left


@functools.lru_cache(maxsize=MAX_CACHED_PATTERNS)
def _compiled(pattern: str) -> regex.Pattern[str] | None:
    try:
        return regex.compile(pattern)
    except regex.error:
        return None


def _matches(pattern: str, text: str) -> bool:
    compiled = _compiled(pattern)
    if compiled is None:
        raise BadPatternError(f"its schema's pattern {pattern!r} cannot be compiled")
    try:
        return compiled.search(text, timeout=_time_left()) is not None
    except TimeoutError as error:
        raise DeadlinePassedError(f"matching the pattern {pattern!r} took longer than the time allowed") from error


# The keywords below behave as jsonschema's own (`jsonschema._keywords`), with `_matches` for `re.search`.


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _matches(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for name, value in cast(dict[str, Any], instance).items():
            if _matches(pattern, name):
                yield from validator.descend(value, subschema, path=name, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    properties = cast(dict[str, Any], schema.get("properties", {}))
    patterns = list(cast(dict[str, Any], schema.get("patternProperties", {})))
    extras = [
        name
        for name in cast(dict[str, Any], instance)
        if name not in properties and not any(_matches(pattern, name) for pattern in patterns)
    ]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        names = ", ".join(repr(extra) for extra in sorted(extras))
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            regexes = ", ".join(repr(pattern) for pattern in sorted(patterns))
            yield ValidationError(f"{names} {verb} not match any of the regexes: {regexes}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(f"Additional properties are not allowed ({names} {verb} unexpected)")


def keys_anywhere(document: object) -> set[str]:
    """Every object key in a JSON document, walked without recursion (a schema may be nested deeply)."""
    keys: set[str] = set()
    pending: list[object] = [document]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            mapping = cast(dict[str, object], node)
            keys.update(mapping)
            pending.extend(mapping.values())
        elif isinstance(node, list):
            pending.extend(cast(list[object], node))
    return keys
