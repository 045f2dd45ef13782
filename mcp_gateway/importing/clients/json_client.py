"""`JsonClient`: a client whose servers are one object in a JSON or JSONC file.

Reading tolerates comments and trailing commas even in files the client calls strict, since people hand-edit
them. Rewriting splices the text (`jsonc`) and then checks its own work: the new text must parse to exactly the
old document with only the server object changed (and any `extra` edit), or nothing is written.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcp_gateway.config import as_object
from mcp_gateway.importing.clients.entries import EntryReader, convert_entry, stdio_launch
from mcp_gateway.importing.clients.jsonc import JsoncError, Node, apply_edits, parse, replace_value, splice_members
from mcp_gateway.importing.clients.model import (
    GATEWAY_NAME,
    ClientConfigError,
    ClientFormat,
    ClientReading,
    JsonObject,
    Launch,
    Scope,
    Where,
)
from mcp_gateway.importing.clients.variables import Syntax

BlockFinder = Callable[[Node, Path, Scope, Where], tuple[str, ...]]
"""The JSON path of the server object in this file, when it depends on the file and the document."""
Notes = Callable[[Node, Scope, Where], list[str]]
TurnedOff = Callable[[Node, Scope, Where], Mapping[str, str]]
"""The servers this client keeps turned off by a setting outside their entries, each with where it says so."""


@dataclass(frozen=True)
class ValueChange:
    """Another value the rewrite replaces (Gemini's `mcp.allowed` list), with its new value."""

    path: tuple[str, ...]
    value: object


ExtraChanges = Callable[[Node, ClientReading], list[ValueChange]]


@dataclass(frozen=True, kw_only=True)
class JsonClient(ClientFormat):
    read_entry: EntryReader
    syntax: Syntax
    shape: Callable[[Launch], JsonObject] = stdio_launch
    """The gateway's entry in this client's own shape."""
    block: tuple[str, ...] | BlockFinder = ("mcpServers",)
    notes: Notes | None = None
    turned_off: TurnedOff | None = None
    extra: ExtraChanges | None = None

    def read(self, path: Path, scope: Scope, where: Where) -> ClientReading:
        text = read_text(path)
        root = parse_document(text, path)
        block = self.block(root, path, scope, where) if callable(self.block) else self.block
        node = root.find(block)
        entries = as_object(node.value) if node is not None else {}
        if entries is None:
            raise ClientConfigError(f"{path}: '{'.'.join(block)}' is not an object of servers")
        off: Mapping[str, str] = self.turned_off(root, scope, where) if self.turned_off else {}
        servers = tuple(
            convert_entry(
                name, raw, self.read_entry, self.syntax, client=self.title, where=where, scope=scope, turned_off=off
            )
            for name, raw in entries.items()
        )
        notes = tuple(self.notes(root, scope, where)) if self.notes else ()
        return ClientReading(self.name, path, scope, text, block, servers, notes)

    def render_entry(self, launch: Launch) -> str:
        return f"{json.dumps(GATEWAY_NAME)}: {json.dumps(self.shape(launch), indent=2, ensure_ascii=False)}"

    def rewrite(self, reading: ClientReading, launch: Launch) -> str:
        text = reading.text
        root = parse_document(text, reading.path)
        drop = {server.name for server in reading.servers if server.imported or server.itself}
        entry = self.shape(launch)
        node = root.find(reading.block)
        expected = copy.deepcopy(root.value)
        if node is None:
            parent = root.find(reading.block[:-1])
            if parent is None or parent.members is None:
                raise ClientConfigError(f"{reading.path}: found no place for '{'.'.join(reading.block)}'")
            edits = [splice_members(text, parent, {}, [(reading.block[-1], {GATEWAY_NAME: entry})], root=root)]
            _set(expected, reading.block, {GATEWAY_NAME: entry})
        else:
            # The gateway entry takes the place of the first dropped server, else goes last.
            order = [member.key for member in node.members or () if member.key in drop]
            changes: dict[str, tuple[str, object] | None] = dict.fromkeys(order)
            if order:
                changes[order[0]] = (GATEWAY_NAME, entry)
            edits = [splice_members(text, node, changes, [] if order else [(GATEWAY_NAME, entry)], root=root)]
            kept = {key: value for key, value in (as_object(node.value) or {}).items() if key not in drop}
            _set(expected, reading.block, {**kept, GATEWAY_NAME: entry})
        for change in self.extra(root, reading) if self.extra else []:
            target = root.find(change.path)
            if target is not None:
                edits.append(replace_value(target, change.value))
                _set(expected, change.path, change.value)
        new_text = apply_edits(text, edits)
        try:
            unchanged_elsewhere = parse(new_text).value == expected
        except JsoncError as exc:  # a mismatch is a bug in the splice, and nothing may be written
            raise ClientConfigError(
                f"{reading.path}: the rewrite would not be valid JSON ({exc}); nothing was written"
            ) from exc
        if not unchanged_elsewhere:
            raise ClientConfigError(
                f"{reading.path}: the rewrite would change more than the MCP servers; nothing was written"
            )
        return new_text


def read_text(path: Path) -> str:
    """Exactly (newlines untranslated, a BOM kept), so a rewrite changes nothing else."""
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ClientConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise ClientConfigError(f"{path}: cannot read it ({exc.strerror or type(exc).__name__})") from exc


def side_document(path: Path) -> Mapping[str, object]:
    """Another file of the client that holds a setting worth knowing (which servers are off), as a JSON object;
    empty when it is missing or unusable: a hint, never a reason to fail the import."""
    try:
        return as_object(parse_document(read_text(path), path).value) or {}
    except ClientConfigError:
        return {}


def parse_document(text: str, path: Path) -> Node:
    if not text.strip():
        raise ClientConfigError(f"{path}: the file is empty")
    try:
        root = parse(text)
    except JsoncError as exc:
        raise ClientConfigError(f"{path}: not valid JSON: {exc}") from exc
    if root.members is None:
        raise ClientConfigError(f"{path}: the top level is not a JSON object")
    return root


def _set(document: object, path: Sequence[str], value: object) -> None:
    target = as_object(document)
    for key in path[:-1]:
        target = as_object(target.get(key)) if target is not None else None
    if target is not None:
        target[path[-1]] = value
