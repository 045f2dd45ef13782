"""A tolerant JSON reader that remembers where every value sits in the text.

Client configs are JSON, JSON with comments and trailing commas (VS Code, OpenCode, Zed, Gemini), or
something between (hand-edited files). Write-back must change only the MCP block and keep every other
byte, so the reader returns, besides the plain Python value, the span of every value and of every object
member (`Node`, `Member`). `//` and `/* */` comments and trailing commas are accepted anywhere; a
repeated key keeps its last value, as `JSON.parse` does. Strings and numbers are matched by regular
expressions, so a multi-megabyte `~/.claude.json` reads in well under a second.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

MAX_DEPTH = 200
"""Nesting levels; real configs use fewer than ten, and deeper input would exhaust the stack."""

_TRIVIA = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LITERALS: dict[str, object] = {"true": True, "false": False, "null": None}


class JsoncError(ValueError):
    """The text is not JSON even by the tolerant rules; the message names the line and column."""


@dataclass(frozen=True)
class Member:
    """`"key": value` inside an object; `comma` is the offset of the comma after it, if there is one."""

    key: str
    key_start: int
    value: Node
    comma: int | None


@dataclass(frozen=True)
class Node:
    """A value and its span `[start, end)`; objects also list their members in text order."""

    start: int
    end: int
    value: object
    members: tuple[Member, ...] | None = None
    """None for anything that is not an object."""

    def member(self, key: str) -> Member | None:
        """The last member named `key` (the one a JSON reader keeps)."""
        for member in reversed(self.members or ()):
            if member.key == key:
                return member
        return None

    def find(self, path: Sequence[str]) -> Node | None:
        """The value at `path` (object keys only), or None when a step is missing or not an object."""
        node: Node = self
        for key in path:
            member = node.member(key)
            if member is None:
                return None
            node = member.value
        return node


def parse(text: str) -> Node:
    """The document's root value with spans.

    Raises:
        JsoncError: the text is not (tolerant) JSON.
    """
    parser = _Parser(text)
    start = 1 if text.startswith("\ufeff") else 0  # a BOM from a Windows editor
    node, position = parser.value(parser.skip(start), 0)
    position = parser.skip(position)
    if position != len(text):
        raise parser.error(position, "unexpected text after the end of the document")
    return node


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text

    def skip(self, position: int) -> int:
        match = _TRIVIA.match(self.text, position)
        end = match.end() if match else position
        if self.text.startswith("/*", end):
            raise self.error(end, "unterminated /* comment")
        return end

    def value(self, position: int, depth: int) -> tuple[Node, int]:
        if depth > MAX_DEPTH:
            raise self.error(position, "nested too deeply")
        char = self.text[position : position + 1]
        if char == "{":
            return self.object(position, depth)
        if char == "[":
            return self.array(position, depth)
        if char == '"':
            text, end = self.string(position)
            return Node(position, end, text), end
        number = _NUMBER.match(self.text, position)
        if number:
            token = number.group()
            value: object = float(token) if any(c in token for c in ".eE") else int(token)
            return Node(position, number.end(), value), number.end()
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, position):
                return Node(position, position + len(word), literal), position + len(word)
        raise self.error(position, "expected a value" if char else "unexpected end of the document")

    def string(self, position: int) -> tuple[str, int]:
        match = _STRING.match(self.text, position)
        if match is None:
            raise self.error(position, "unterminated string")
        token = match.group()
        if "\\" not in token:
            return token[1:-1], match.end()  # most strings have no escapes: skip the decoder
        try:
            decoded: str = json.loads(token, strict=False)
        except json.JSONDecodeError as exc:
            raise self.error(position + exc.pos, f"invalid string: {exc.msg}") from exc
        return decoded, match.end()

    def object(self, start: int, depth: int) -> tuple[Node, int]:
        members: list[Member] = []
        value: dict[str, object] = {}
        position = self.skip(start + 1)
        while not self.text.startswith("}", position):
            if not self.text.startswith('"', position):
                raise self.error(position, "expected a quoted key or '}'")
            member_start = position
            key, position = self.string(position)
            position = self.skip(position)
            if not self.text.startswith(":", position):
                raise self.error(position, "expected ':' after the key")
            node, position = self.value(self.skip(position + 1), depth + 1)
            position = self.skip(position)
            comma = None
            if self.text.startswith(",", position):
                comma = position
                position = self.skip(position + 1)
            elif not self.text.startswith("}", position):
                raise self.error(position, "expected ',' or '}'")
            members.append(Member(key, member_start, node, comma))
            value.pop(key, None)  # a repeated key moves to its last position, as in JSON.parse
            value[key] = node.value
        end = position + 1
        return Node(start, end, value, tuple(members)), end

    def array(self, start: int, depth: int) -> tuple[Node, int]:
        items: list[object] = []
        position = self.skip(start + 1)
        while not self.text.startswith("]", position):
            node, position = self.value(position, depth + 1)
            items.append(node.value)
            position = self.skip(position)
            if self.text.startswith(",", position):
                position = self.skip(position + 1)
            elif not self.text.startswith("]", position):
                raise self.error(position, "expected ',' or ']'")
        end = position + 1
        return Node(start, end, items), end

    def error(self, position: int, message: str) -> JsoncError:
        line = self.text.count("\n", 0, position) + 1
        column = position - (self.text.rfind("\n", 0, position) + 1) + 1
        return JsoncError(f"line {line}, column {column}: {message}")
