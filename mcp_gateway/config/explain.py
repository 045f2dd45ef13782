"""pydantic validation errors rewritten in plain words, with the JSON path and an example of a good value.

pydantic's own messages ("Input should be a valid tuple") speak Python; a user editing JSON needs "must be
a list, not a string" and an example to copy. The input value itself is never echoed, only its JSON kind:
the failing field may be an env or header value, which are secrets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from mcp_gateway.config.diagnostics import did_you_mean, join_path
from mcp_gateway.config.models import MAX_REFRESH_CONCURRENCY, MAX_TOOL_SEARCH_LIMIT
from mcp_gateway.config.normalize import camel_case


@dataclass(frozen=True)
class Hint:
    expected: str
    example: str


_BOOL = Hint("true or false", "true")
_MILLISECONDS = Hint("a number of milliseconds greater than 0", "60000")
_STRINGS_OBJECT = Hint("an object of string values", '{"API_TOKEN": "${API_TOKEN}"}')

FIELD_HINTS: dict[str, Hint] = {
    "idleTimeout": Hint("a number of minutes (0 or less: never stop it)", "10"),
    "cacheTtlDays": Hint("a number of days (0: never expires)", "7"),
    "toolSearchLimit": Hint(f"a whole number from 1 to {MAX_TOOL_SEARCH_LIMIT}", "10"),
    "refreshConcurrency": Hint(f"a whole number from 1 to {MAX_REFRESH_CONCURRENCY}", "4"),
    "failureBackoffMs": Hint("a number of milliseconds (0: retry at once)", "60000"),
    "connectTimeoutMs": _MILLISECONDS,
    "requestTimeoutMs": _MILLISECONDS,
    "closeTimeoutMs": _MILLISECONDS,
    "startupMetadataCheck": _BOOL,
    "debug": _BOOL,
    "trust": Hint('"auto" (a new server\'s first listing is trusted) or "manual" (held for review)', '"auto"'),
    "shared": _BOOL,
    "daemonGraceSeconds": Hint("a number of seconds (0: stop as the last session leaves)", "30"),
    "maxCallsPerSession": Hint("a whole number of 1 or more", "16"),
    "policy": Hint('an object of rules, each "allow", "confirm" or "deny"', '{"github.delete_*": "deny"}'),
    "auditValues": _BOOL,
    "disabled": _BOOL,
    "refreshOnStartup": _BOOL,
    "inheritEnv": _BOOL,
    "shareAcrossProjects": _BOOL,
    "aliases": Hint("a list of names", '["gh"]'),
    "lifecycle": Hint('"lazy", "eager" or "keep-alive"', '"lazy"'),
    "includeTools": Hint("a list of tool-name globs", '["get_*"]'),
    "excludeTools": Hint("a list of tool-name globs", '["delete_*"]'),
    "protocol": Hint('"auto", "legacy" or a protocol version', '"auto"'),
    "description": Hint("a short text", '"issues and pull requests"'),
    "command": Hint("the program to run", '"npx"'),
    "args": Hint("a list of strings", '["-y", "@modelcontextprotocol/server-github"]'),
    "env": _STRINGS_OBJECT,
    "cwd": Hint("a directory path", '"~/projects"'),
    "url": Hint("an http:// or https:// URL", '"https://mcp.example.com/mcp"'),
    "headers": Hint("an object of string values", '{"Authorization": "Bearer ${API_TOKEN}"}'),
    "bearerTokenEnv": Hint("the name of an environment variable", '"API_TOKEN"'),
}

_EXPECTED_KIND: dict[str, str] = {
    "string_type": "a string",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "tuple_type": "a list",
    "list_type": "a list",
    "dict_type": "an object",
}


_BOUNDS: dict[str, tuple[str, str]] = {
    "greater_than": ("greater than", "gt"),
    "greater_than_equal": ("at least", "ge"),
    "less_than": ("less than", "lt"),
    "less_than_equal": ("at most", "le"),
}

# bool before int: in Python, True is an int.
_JSON_KINDS: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (type(None), "null"),
    (bool, "true/false"),
    ((int, float), "a number"),
    (str, "a string"),
    ((list, tuple), "a list"),
    (dict, "an object"),
)


@dataclass(frozen=True)
class InvalidValue:
    """One invalid value: where it is, what is wrong, and how to fix it. `field` is the top-level key."""

    field: str
    json_path: str
    message: str
    suggestion: str | None


def explain(
    error: ValidationError,
    json_path: str,
    spelled: Mapping[str, str],
    near_misses: Mapping[str, str] | None = None,
) -> list[InvalidValue]:
    """One `InvalidValue` per pydantic error, in file order; `spelled` maps camelCase keys to the file's spelling,
    `near_misses` a field to the unknown key that was probably meant as it (named when the field is missing)."""
    problems = [
        _explain_one(detail, json_path, spelled, near_misses or {}) for detail in error.errors(include_url=False)
    ]
    position = {key: index for index, key in enumerate(spelled)}
    return sorted(problems, key=lambda problem: position.get(problem.field, len(position)))


def _explain_one(
    detail: ErrorDetails, json_path: str, spelled: Mapping[str, str], near_misses: Mapping[str, str]
) -> InvalidValue:
    loc = detail["loc"]
    field = camel_case(str(loc[0])) if loc else ""
    written = spelled.get(field, field)
    label = join_path("", written, *loc[1:])
    path = join_path(json_path, written, *loc[1:]) if loc else json_path
    message, suggestion = _describe(detail, field, label)
    near = near_misses.get(field)
    if detail["type"] == "missing" and len(loc) == 1 and near is not None:
        message = f"{message} (it has '{near}', which is probably '{label}')"
        suggestion = f"rename '{near}' to '{label}'"
    return InvalidValue(field, path, message, suggestion)


def _describe(detail: ErrorDetails, field: str, label: str) -> tuple[str, str | None]:
    kind = detail["type"]
    value = detail["input"]
    ctx = detail.get("ctx") or {}
    hint = FIELD_HINTS.get(field)
    suggestion = f"expected {hint.expected}, e.g. {hint.example}" if hint else None
    if kind == "missing":
        message = f"required field '{label}' is missing"
        suggestion = f'add "{label}": {hint.example}' if hint else None
    elif kind == "string_too_short":
        message = f"'{label}' is empty"
    elif kind == "string_pattern_mismatch" and field == "url":
        message = f"'{label}' must start with http:// or https://"
    elif kind == "literal_error":
        allowed = str(ctx.get("expected", "one of the allowed values"))
        message = f"'{label}' must be {allowed}"
        guess = did_you_mean(value, _choices(allowed)) if isinstance(value, str) else None
        suggestion = guess or suggestion
    elif kind in _BOUNDS:
        phrase, key = _BOUNDS[kind]
        message = f"'{label}' must be {phrase} {ctx.get(key)}"
    elif kind in _EXPECTED_KIND:
        message = f"'{label}' must be {_EXPECTED_KIND[kind]}, not {_json_kind(value)}"
        if kind == "string_type" and isinstance(value, int | float):
            suggestion = "write the value in double quotes"
    elif kind == "value_error" and "error" in ctx:
        message = f"'{label}': {ctx['error']}"
        suggestion = None  # the model's own message already says what to write
    else:
        text = detail["msg"]
        message = f"'{label}' is invalid: {text[:1].lower()}{text[1:]}"
    return message, suggestion


def _choices(expected: str) -> list[str]:
    """The quoted choices in pydantic's "'lazy', 'eager' or 'keep-alive'"."""
    return [part.strip(" '\"") for part in expected.replace(" or ", ", ").split(",")]


def _json_kind(value: object) -> str:
    """The JSON kind of a value, never the value: it may be a secret."""
    if isinstance(value, float) and not value.is_integer():
        return "a fractional number"
    for kind, name in _JSON_KINDS:
        if isinstance(value, kind):
            return name
    return "another kind of value"
