"""The meta-tools' own arguments, validated at the boundary, with errors a model can fix.

Models make predictable mistakes here: a limit as a string, `arguments` sent as a JSON string, or the
downstream tool's arguments put next to `tool` instead of inside `arguments`. The first two are
accepted as meant; the last one is named precisely.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from mcp_gateway.config import MAX_TOOL_SEARCH_LIMIT
from mcp_gateway.service.surface import LIST_PAGE_SIZE, MAX_LIST_PAGE_SIZE, MAX_SEARCH_ALTERNATIVES

_Args = TypeVar("_Args", bound="_MetaArguments")


class _MetaArguments(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class SearchArguments(_MetaArguments):
    query: str = Field(min_length=1)
    alternatives: list[str] = Field(default_factory=list[str], max_length=MAX_SEARCH_ALTERNATIVES)
    server: str | None = None
    limit: int | None = Field(default=None, ge=1, le=MAX_TOOL_SEARCH_LIMIT)

    @field_validator("alternatives", mode="before")
    @classmethod
    def _one_phrasing_is_a_list_of_one(cls, value: Any) -> Any:
        if value is None:
            return []
        return [value] if isinstance(value, str) else value


class ListArguments(_MetaArguments):
    server: str = Field(min_length=1)
    limit: int = Field(default=LIST_PAGE_SIZE, ge=1, le=MAX_LIST_PAGE_SIZE)
    offset: int = Field(default=0, ge=0)


class DescribeArguments(_MetaArguments):
    tool: str = Field(min_length=1)
    server: str | None = None


class ExecuteArguments(_MetaArguments):
    tool: str = Field(min_length=1)
    server: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict[str, Any])

    @field_validator("arguments", mode="before")
    @classmethod
    def _json_text_is_an_object(cls, value: Any) -> Any:
        if value is None:
            return {}
        if isinstance(value, str):
            try:
                return json.loads(value) if value.strip() else {}
            except ValueError:
                return value  # fails validation below with "must be an object"
        return value


def parse_arguments(model: type[_Args], tool: str, raw: dict[str, Any] | None) -> _Args | str:
    """The validated arguments, or one sentence saying what is wrong with them."""
    raw = raw or {}
    stray = sorted(set(raw) - set(model.model_fields))
    misplaced = f"Put the tool's own arguments ({', '.join(stray)}) inside 'arguments'."
    try:
        parsed = model.model_validate(raw)
    except ValidationError as error:
        problems = "; ".join(_describe(cast(dict[str, Any], detail)) for detail in error.errors())
        message = f"Invalid arguments for {tool}: {problems}."
        return f"{message} {misplaced}" if model is ExecuteArguments and stray else message
    if isinstance(parsed, ExecuteArguments) and stray:
        # Guessing which stray keys were meant for the tool could run it with the wrong arguments.
        return f"{tool} takes only tool, server and arguments. {misplaced}"
    return parsed


def _describe(detail: dict[str, Any]) -> str:
    location = ".".join(str(part) for part in detail.get("loc", ())) or "arguments"
    kind = detail.get("type", "")
    if kind == "missing":
        return f"'{location}' is required"
    if kind in ("dict_type", "model_type"):
        return f"'{location}' must be an object"
    return f"'{location}': {detail.get('msg', 'invalid value')}"
