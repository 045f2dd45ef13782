"""Arguments checked against a tool's cached input schema before any server is woken.

A call the server would reject anyway should cost nothing: no process start, no round trip. The check
uses the schema's own JSON Schema draft (2020-12 when it names none). Contract:
- a real mistake in the arguments comes back as `problems`, for the model to fix;
- a call that cannot be checked goes out unchecked (the server still validates) and says why in
  `unchecked`: the server's schema is invalid or refers to what it does not hold (`schema_at_fault`), or
  checking hit a bound: the deadline (`VALIDATION_DEADLINE_SECONDS`, shared by every pattern match of one
  validation), a pattern the matcher cannot compile, a `$ref` cycle or arguments nested too deeply;
- checking runs on the event loop only when it is known to be quick: a schema already compiled, small, with
  no pattern and no reference, against small arguments (`QUICK_SCHEMA_BYTES`, `QUICK_ARGUMENT_BYTES`), the
  usual call, which then takes no hop to a thread and back; anything else runs in a worker thread, at most
  `VALIDATION_THREADS` at a time, and that thread ends by the deadline (see `bounded_validation`);
- jsonschema, referencing and regex are imported in one place under one lock (`prepare`), shared by the
  start-up warm-up and the first call: two threads importing them at once can see a partially initialized
  module (`cannot import name 'Draft3Validator'`), which once failed the first call of a session.
Validators are compiled once per schema text (compiling costs 50 to 100 times more than validating).
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import anyio
import anyio.to_thread

from mcp_gateway.bounds import clip
from mcp_gateway.errors import InvalidArgumentsError
from mcp_gateway.json_object import JsonObject
from mcp_gateway.service.names import ResolvedTool
from mcp_gateway.wire import depth_exceeds, fits_within
from mcp_gateway.wording import Message, Step

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

MAX_PROBLEMS = 8
MAX_PROBLEM_CHARS = 300
"""One problem as the model reads it: jsonschema quotes the offending value, which may be megabytes."""
MAX_FORWARDED_DEPTH = 200
"""Levels of nesting the arguments of a call may have: the SDK's client serializes a request with pydantic,
which gives up at about 255 levels (the request's own envelope takes a few)."""
MAX_COMPILED = 2048
VALIDATION_DEADLINE_SECONDS = 1.0
"""Longest one validation may take; past it the call is sent unchecked. A pattern match is timed by `regex` in
CPU time of the whole process, so validations running at once (or a busy event loop) use it up sooner: a call
may go out unchecked early, never later than its CPU share allows."""
QUICK_SCHEMA_BYTES = 8 * 1024
QUICK_ARGUMENT_BYTES = 4 * 1024
"""Validations done on the event loop: without patterns or references, the work is bounded by the schema's and
the arguments' sizes, and at these sizes it takes tens of microseconds (a thread hop costs more)."""
QUICK_UNSAFE_KEYWORDS = frozenset({"pattern", "patternProperties", "$ref", "$dynamicRef", "$recursiveRef"})
VALIDATION_THREADS = 2
"""Validations running at once: a burst of calls must not take every worker thread of the process."""
TOO_DEEP = "its schema refers to itself without end, or the arguments are nested too deeply to check"

logger = logging.getLogger(__name__)
_imports = threading.Lock()
_imported = threading.Event()


@dataclass(frozen=True)
class ArgumentCheck:
    problems: tuple[str, ...] = ()
    """Plain-language mistakes in the arguments, at most `MAX_PROBLEMS`; empty when they fit the schema."""
    unchecked: str | None = None
    """Why the arguments could not be checked (the call goes out unchecked); None when they were."""
    schema_at_fault: bool = False
    """`unchecked` because the server's schema is unusable, an expected case not worth a warning."""
    refused: str | None = None
    """Why the arguments cannot be passed on at all, whatever the schema says."""


@dataclass(frozen=True)
class _Compiled:
    validator: Validator | None
    unchecked: str | None = None
    schema_at_fault: bool = False
    quick: bool = False
    """Small and free of patterns and references: checking small arguments against it is quick."""


_compiled: dict[str, _Compiled] = {}


def prepare() -> None:
    """Import the validation machinery (about 40 ms); every import of it goes through here, under one lock.

    Called in a worker thread, by the warm-up after start and by every check (a no-op once done).
    """
    if _imported.is_set():
        return
    with _imports:
        if not _imported.is_set():
            import mcp_gateway.service.bounded_validation  # noqa: F401  # pyright: ignore[reportUnusedImport]

            _imported.set()


class ArgumentChecker:
    """Checks arguments in worker threads, a few at a time, so the event loop never waits for a check."""

    def __init__(self, *, deadline_seconds: float = VALIDATION_DEADLINE_SECONDS) -> None:
        self._limiter = anyio.CapacityLimiter(VALIDATION_THREADS)
        self._deadline_seconds = deadline_seconds

    async def check(self, schema: JsonObject | str, arguments: dict[str, Any]) -> ArgumentCheck:
        if _quick(schema, arguments):
            return self._check(schema, arguments)
        # Not abandoned on cancellation: the thread ends by the deadline, and the limiter counts it until then.
        return await anyio.to_thread.run_sync(self._check, schema, arguments, limiter=self._limiter)

    async def ensure_sendable(self, resolved: ResolvedTool, arguments: dict[str, Any]) -> None:
        """Return when `arguments` may be sent to the tool (checked, or uncheckable and said so in the log).

        Raises:
            InvalidArgumentsError: they do not match the tool's input schema, or are nested too deeply to send.
        """
        check = await self.check(resolved.tool.input_schema_json, arguments)
        if check.refused is not None:
            raise InvalidArgumentsError(
                Message.of(
                    f"The arguments for '{resolved.qualified}' cannot be sent: {check.refused}. "
                    "Send them less deeply nested and ",
                    _again(resolved),
                    ".",
                ),
                [check.refused],
            )
        if check.unchecked is not None:
            logger.log(
                logging.DEBUG if check.schema_at_fault else logging.WARNING,
                "server '%s', tool '%s': arguments sent unchecked because %s",
                resolved.server,
                resolved.tool.name,
                check.unchecked,
            )
        if check.problems:
            problems = list(check.problems)
            raise InvalidArgumentsError(
                Message.of(
                    f"The arguments for '{resolved.qualified}' do not match its input schema: {'; '.join(problems)}. "
                    "Fix them and ",
                    _again(resolved),
                    ".",
                ),
                problems,
            )

    def _check(self, schema: JsonObject | str, arguments: dict[str, Any]) -> ArgumentCheck:
        if depth_exceeds(arguments, MAX_FORWARDED_DEPTH):
            return ArgumentCheck(
                refused=f"they are nested more than {MAX_FORWARDED_DEPTH} levels deep, more than the gateway passes on"
            )
        return check_arguments(schema, arguments, deadline_seconds=self._deadline_seconds)


def _again(resolved: ResolvedTool) -> Step:
    return Step("execute", server=resolved.server, tool=resolved.qualified, again=True)


def check_arguments(
    schema: JsonObject | str, arguments: dict[str, Any], *, deadline_seconds: float = VALIDATION_DEADLINE_SECONDS
) -> ArgumentCheck:
    """Check `arguments` against `schema` (the schema or its JSON text, as a `ToolRecord` holds it).

    Blocks for up to `deadline_seconds`: call it from a worker thread.
    """
    prepare()
    from mcp_gateway.service import bounded_validation as bounded

    compiled = _validator(schema)
    if compiled.validator is None:
        return ArgumentCheck(unchecked=compiled.unchecked, schema_at_fault=compiled.schema_at_fault)
    try:
        with bounded.deadline(deadline_seconds):
            errors = sorted(compiled.validator.iter_errors(arguments), key=lambda error: list(error.absolute_path))  # pyright: ignore[reportUnknownMemberType, reportUnknownLambdaType, reportUnknownArgumentType]
    except bounded.Unresolvable:
        return ArgumentCheck(unchecked="its schema has a $ref that does not resolve", schema_at_fault=True)
    except bounded.UncheckableError as error:
        return ArgumentCheck(unchecked=str(error))
    except RecursionError:
        return ArgumentCheck(unchecked=TOO_DEEP)
    except Exception as error:  # jsonschema tripping over an odd schema is not the caller's mistake either
        return ArgumentCheck(unchecked=f"checking them failed ({type(error).__name__}: {error})")
    problems: list[str] = []
    for error in errors[:MAX_PROBLEMS]:
        path = ".".join(str(part) for part in error.absolute_path)  # pyright: ignore[reportUnknownVariableType, reportUnknownMemberType, reportUnknownArgumentType]
        problem = f"{path}: {error.message}" if path else str(error.message)
        problems.append(clip(problem, MAX_PROBLEM_CHARS))
    return ArgumentCheck(problems=tuple(problems))


def _quick(schema: JsonObject | str, arguments: dict[str, Any]) -> bool:
    """Whether checking `arguments` against `schema` may run on the event loop (see `QUICK_SCHEMA_BYTES`)."""
    if not _imported.is_set() or not isinstance(schema, str):
        return False
    compiled = _compiled.get(schema)
    return compiled is not None and compiled.quick and fits_within(arguments, QUICK_ARGUMENT_BYTES)


def _validator(schema: JsonObject | str) -> _Compiled:
    key = schema if isinstance(schema, str) else json.dumps(schema, separators=(",", ":"), ensure_ascii=False)
    cached = _compiled.get(key)
    if cached is not None:
        return cached
    compiled = _compile(schema)
    if len(_compiled) >= MAX_COMPILED:
        _compiled.clear()
    _compiled[key] = compiled
    return compiled


def _compile(schema: JsonObject | str) -> _Compiled:
    from mcp_gateway.service import bounded_validation as bounded

    try:
        document = cast(JsonObject, json.loads(schema)) if isinstance(schema, str) else schema
        if (reason := bounded.unbounded_keywords(document)) is not None:
            return _Compiled(None, reason)
        validator_class = bounded.validator_for(document)
        validator_class.check_schema(document)
        bounded_class = bounded.bounded_validator_class(validator_class)
        validator = bounded_class(document, registry=bounded.Registry())  # pyright: ignore[reportCallIssue]
        small = len(schema if isinstance(schema, str) else json.dumps(document)) <= QUICK_SCHEMA_BYTES
        return _Compiled(validator, quick=small and not QUICK_UNSAFE_KEYWORDS & bounded.keys_anywhere(document))
    except bounded.SchemaError as error:
        return _Compiled(None, f"its schema is not valid JSON Schema ({error.message})", schema_at_fault=True)
    except RecursionError:
        return _Compiled(None, TOO_DEEP)
    except Exception as error:  # e.g. OverflowError from a pattern's repeat count: the schema is unusable
        return _Compiled(None, f"its schema cannot be compiled ({type(error).__name__}: {error})", schema_at_fault=True)
