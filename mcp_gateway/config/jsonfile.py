"""Reading `config.json` as raw JSON: the only failures that make the whole file unusable.

An unreadable file, one that is not a regular file (a FIFO, a device, a directory: refused at once, never
waited on) or is larger than `MAX_CONFIG_BYTES`, text that is not JSON, or a top level that is not an
object raise `ConfigError` with one line naming the file, the place and the fix. The file may be a
symbolic link (dotfiles repositories link it); what it points to must be a regular file. Everything else
is left to per-field diagnostics. JSON allows a key twice and keeps the last value; that is legal but
almost always an editing mistake, so the repeated keys are returned for the loader to report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from mcp_gateway.config.diagnostics import join_path
from mcp_gateway.errors import ConfigError, UnusableFileError
from mcp_gateway.workspace_files import read_regular

REPEATED_KEY_SCAN_DEPTH = 8
"""Levels searched for repeated keys; the config's own objects nest at most four deep (mcpServers.x.env)."""
MAX_CONFIG_BYTES = 16 * 1024 * 1024
"""A config of a thousand servers is well under 1 MiB; anything past this is not a config file."""


@dataclass(frozen=True)
class RepeatedKey:
    json_path: str
    key: str


class _JsonObject(dict[str, Any]):
    """A parsed JSON object that remembers which of its keys the file repeated."""

    repeated: tuple[str, ...] = ()


def read_json_object(path: Path) -> tuple[dict[str, Any], list[RepeatedKey]]:
    """The file's top-level object and every repeated key in it.

    Raises:
        ConfigError: the file cannot be read, is not JSON, or its top level is not an object.
    """
    try:
        data = read_regular(path, MAX_CONFIG_BYTES, follow_symlinks=True)
    except UnusableFileError as exc:
        raise ConfigError(
            f"{path}: the config file {exc.problem}; replace it with a JSON file (or remove it to get a template)"
        ) from exc
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ConfigError(f"{path}: cannot read the config file ({reason}); check that it is a readable file") from exc
    try:
        text = data.decode("utf-8-sig")  # a BOM from a Windows editor is not an error
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from exc
    if not text.strip():
        raise ConfigError(
            f'{path}: the config file is empty; write {{"mcpServers": {{}}}} or delete it to get a template'
        )
    try:
        root: object = json.loads(text, object_pairs_hook=_object_with_repeats)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}; "
            "fix the syntax there (often a trailing comma, a missing comma or quote, or a comment)"
        ) from exc
    except RecursionError as exc:
        raise ConfigError(f"{path}: the JSON is nested too deeply to read; simplify the file") from exc
    if not isinstance(root, _JsonObject):
        raise ConfigError(
            f'{path}: the top level must be a JSON object such as {{"mcpServers": {{}}}}, not {_kind(root)}; '
            "wrap the content in an object"
        )
    repeated: list[RepeatedKey] = []
    _collect_repeats(root, "", repeated)
    return root, repeated


def as_object(value: object) -> dict[str, object] | None:
    """`value` as a parsed JSON object (whose keys are always strings), or None if it is not one."""
    return cast(dict[str, object], value) if isinstance(value, dict) else None


def as_list(value: object) -> list[object] | None:
    """`value` as a parsed JSON array, or None if it is not one."""
    return cast(list[object], value) if isinstance(value, list) else None


def _object_with_repeats(pairs: list[tuple[str, Any]]) -> _JsonObject:
    obj = _JsonObject(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        repeated: dict[str, None] = {}
        for key, _ in pairs:
            if key in seen:
                repeated[key] = None
            seen.add(key)
        obj.repeated = tuple(repeated)
    return obj


def _collect_repeats(value: object, json_path: str, found: list[RepeatedKey], depth: int = 0) -> None:
    if depth > REPEATED_KEY_SCAN_DEPTH:
        return
    if isinstance(value, _JsonObject):
        found.extend(RepeatedKey(join_path(json_path, key), key) for key in value.repeated)
        for key, item in value.items():
            _collect_repeats(item, join_path(json_path, key), found, depth + 1)
    elif (items := as_list(value)) is not None:
        for index, item in enumerate(items):
            _collect_repeats(item, join_path(json_path, index), found, depth + 1)


def _kind(value: object) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return "a number or true/false"
