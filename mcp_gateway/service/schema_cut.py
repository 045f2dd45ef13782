"""Cutting a JSON Schema down to a size budget without ever cutting JSON in the middle.

Search results carry each hit's input schema, and some servers publish schemas of many kilobytes. A
schema over budget is reduced in steps, each still a valid schema: first every `description`, `title`,
`examples` and similar prose is dropped; then nested detail below the top-level properties is reduced to
its type; finally only the top-level property names, types and `required` remain. The caller marks the
result as cut and points to `describe_tool` for the whole thing.
"""

from __future__ import annotations

from typing import Any, cast

from mcp_gateway.json_object import JsonObject
from mcp_gateway.tokens import compact_json

PROSE_KEYS = frozenset({"description", "title", "examples", "example", "$comment", "$schema", "markdownDescription"})


def without_boilerplate(schema: JsonObject) -> JsonObject:
    """The schema minus what tells the model nothing: the `$schema` dialect URL, the schema's own title, and
    property titles that only restate the property's name (`"message": {"title": "Message", ...}`, as
    generated from type hints). These are a tenth of a search response's tokens; nothing else changes."""
    cleaned = {key: value for key, value in schema.items() if key not in ("$schema", "title")}
    properties = cleaned.get("properties")
    if isinstance(properties, dict):
        cleaned["properties"] = {
            name: _without_echo_title(name, sub) for name, sub in cast(dict[str, Any], properties).items()
        }
    return cleaned


def _without_echo_title(name: str, node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    sub = cast(dict[str, Any], node)
    title = sub.get("title")
    if isinstance(title, str) and _bare(title) == _bare(name):
        return {key: value for key, value in sub.items() if key != "title"}
    return sub


def _bare(text: str) -> str:
    return "".join(char for char in text.lower() if char.isalnum())


def cut_schema(schema: JsonObject, budget: int) -> tuple[JsonObject, bool]:
    """The schema itself when its compact JSON fits `budget` characters, else the first reduction that fits
    (or the smallest one); the flag says whether anything was cut."""
    if len(compact_json(schema)) <= budget:
        return schema, False
    reduced = cast(JsonObject, _without_prose(schema))
    for step in (reduced, _shallow(reduced, depth=2), _shallow(reduced, depth=1)):
        if len(compact_json(step)) <= budget:
            return step, True
    return _skeleton(schema), True


def _without_prose(node: Any) -> Any:
    if isinstance(node, dict):
        result: dict[str, Any] = {}
        for key, value in cast(dict[str, Any], node).items():
            if key in PROSE_KEYS:
                continue
            if key in ("properties", "patternProperties", "$defs", "definitions") and isinstance(value, dict):
                # Keys of these maps are names (a property may be called "description"), not keywords.
                result[key] = {name: _without_prose(sub) for name, sub in cast(dict[str, Any], value).items()}
            else:
                result[key] = _without_prose(value)
        return result
    if isinstance(node, list):
        return [_without_prose(item) for item in cast(list[Any], node)]
    return node


def _shallow(schema: JsonObject, depth: int) -> JsonObject:
    """Keep properties down to `depth` levels; deeper schemas become just their type."""
    return cast(JsonObject, _trim(schema, depth))


def _trim(node: Any, depth: int) -> Any:
    if not isinstance(node, dict):
        return node
    source = cast(dict[str, Any], node)
    if "$ref" in source:
        # The definitions are dropped at this step, so a reference into them would dangle; any value is allowed.
        return {}
    if depth <= 0:
        return {key: source[key] for key in ("type", "enum") if key in source} or {}
    result: dict[str, Any] = {}
    for key, value in source.items():
        if key == "properties" and isinstance(value, dict):
            result[key] = {name: _trim(sub, depth - 1) for name, sub in cast(dict[str, Any], value).items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            result[key] = _trim(value, depth - 1)
        elif key in ("anyOf", "oneOf", "allOf") and isinstance(value, list):
            result[key] = [_trim(sub, depth - 1) for sub in cast(list[Any], value)]
        elif key in ("$defs", "definitions"):
            continue  # the bulk of a large schema; references into them were replaced above
        else:
            result[key] = value
    return result


def _skeleton(schema: JsonObject) -> JsonObject:
    properties = schema.get("properties")
    skeleton: JsonObject = {"type": "object"}
    if isinstance(properties, dict):
        skeleton["properties"] = {
            str(name): {"type": cast(dict[str, Any], sub).get("type", "any")} if isinstance(sub, dict) else {}
            for name, sub in cast(dict[str, Any], properties).items()
        }
    if isinstance(schema.get("required"), list):
        skeleton["required"] = schema["required"]
    return skeleton
