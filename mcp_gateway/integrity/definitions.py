"""What a pin is taken over: a listed definition, normalized, and its SHA-256.

A tool is pinned over everything the model reads of it (name, title, description, inputSchema, outputSchema),
with key order, JSON spacing and line endings normalized, so a server that reorders keys or pads a description
raises no alarm and one that changes a word does. Its annotations are pinned apart: they are hints a server may
restate at will, and only a hint that gets less safe quarantines (`less_safe`). Prompts and resource templates
are pinned the same way over what a client reads of them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any, Literal, cast

Kind = Literal["tool", "prompt", "template"]

PINNED_FIELDS: dict[Kind, tuple[str, ...]] = {
    "tool": ("name", "title", "description", "inputSchema", "outputSchema"),
    "prompt": ("name", "title", "description", "arguments"),
    "template": ("name", "title", "description", "uriTemplate", "mimeType"),
}

SAFE_HINTS: dict[str, bool] = {"destructiveHint": False, "readOnlyHint": True, "openWorldHint": False}
"""Each hint's safe value; a hint moving away from it (false → true for destructiveHint) quarantines. The
protocol's defaults (destructive and open world when unsaid, not read-only) count for a hint left out."""
DEFAULT_HINTS: dict[str, bool] = {"destructiveHint": True, "readOnlyHint": False, "openWorldHint": True}

_TRAILING_SPACE = re.compile(r"[ \t]+(?=\n|\Z)")


def normalized(definition: Mapping[str, Any], kind: Kind = "tool") -> dict[str, Any]:
    """The pinned fields of `definition`, each present one with its strings' line endings and trailing spaces
    normalized (its keys are sorted when it is serialized). An empty text is no text, and a tool without an input
    schema takes `{"type": "object"}`, as the catalog keeps it: a listing and its cached copy pin alike."""
    given = {**({"inputSchema": {"type": "object"}} if kind == "tool" else {}), **definition}
    return {key: _plain(given[key]) for key in PINNED_FIELDS[kind] if given.get(key) not in (None, "")}


def canonical(value: object) -> str:
    """`value` as canonical JSON: sorted keys, no spacing, non-ASCII kept (so a homoglyph is a change)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(definition: Mapping[str, Any], kind: Kind = "tool") -> str:
    return hashlib.sha256(canonical(normalized(definition, kind)).encode("utf-8")).hexdigest()


def hints(definition: Mapping[str, Any]) -> dict[str, Any]:
    """A tool's annotations as listed (an object, else none)."""
    annotations = definition.get("annotations")
    return _plain(cast(dict[str, Any], annotations)) if isinstance(annotations, dict) else {}


def less_safe(pinned: Mapping[str, Any], listed: Mapping[str, Any]) -> list[str]:
    """The hints of `listed` annotations that are less safe than the `pinned` ones, worded ("destructiveHint
    false → true")."""
    worse: list[str] = []
    for hint, safe in SAFE_HINTS.items():
        before, now = _hint(pinned, hint), _hint(listed, hint)
        if before == safe and now != safe:
            worse.append(f"{hint} {str(before).lower()} → {str(now).lower()}")
    return worse


def changed_fields(pinned: Mapping[str, Any], listed: Mapping[str, Any]) -> list[str]:
    """The names of the normalized fields that differ between two normalized definitions."""
    keys = sorted({*pinned, *listed})
    return [key for key in keys if canonical(pinned.get(key)) != canonical(listed.get(key))]


def _hint(annotations: Mapping[str, Any], hint: str) -> bool:
    value = annotations.get(hint)
    return value if isinstance(value, bool) else DEFAULT_HINTS[hint]


def _plain(value: Any) -> Any:
    if isinstance(value, str):
        return _TRAILING_SPACE.sub("", value.replace("\r\n", "\n").replace("\r", "\n")).strip()
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in cast(dict[Any, Any], value).items()}
    if isinstance(value, list):
        return [_plain(item) for item in cast(list[Any], value)]
    return value
