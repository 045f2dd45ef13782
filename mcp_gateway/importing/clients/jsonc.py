"""JSON as client configs write it, read with every value's place in the text and edited in place.

Client configs are JSON, JSON with comments and trailing commas (VS Code, OpenCode, Zed, Gemini), or something
between (hand-edited files). Parsing and dumping a file again would drop its comments, reorder or reformat it,
and rewrite unrelated state (Claude Code keeps its whole history in `~/.claude.json`), so the reader returns,
besides the plain value, the span of every value and object member (`Node`, `Member`), and write-back edits the
text: `splice_members` rebuilds only the object that holds the servers, member by member. `//` and `/* */`
comments and trailing commas are accepted anywhere; a repeated key keeps its last value, as `JSON.parse` does.
A kept member keeps its exact text with the comment lines above it and the comment after it; a dropped member
takes its comments with it; a new one is rendered in the style of its neighbours (one line or indented, the
file's indent unit and newline). A trailing comma is written only where the object had one, so a strict JSON
file stays strict. Strings and numbers are matched by regular expressions: a multi-megabyte `~/.claude.json`
reads in well under a second.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
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


DEFAULT_INDENT = "  "


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    replacement: str


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """`text` with non-overlapping `edits` applied (from the end, so earlier offsets stay valid)."""
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[: edit.start] + edit.replacement + text[edit.end :]
    return text


def newline_of(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def replace_value(node: Node, value: object) -> Edit:
    """Replace a whole value with `value` written on one line (e.g. a short list of names)."""
    return Edit(node.start, node.end, json.dumps(value, ensure_ascii=False, separators=(", ", ": ")))


@dataclass(frozen=True)
class _Element:
    lead: str
    """Comment lines above the member and its indentation."""
    body: str
    """`"key": value`, exactly as written."""
    trailer: str
    """What follows its comma on the same line, up to and including the newline."""


def splice_members(
    text: str,
    obj: Node,
    changes: Mapping[str, tuple[str, object] | None],
    append: Sequence[tuple[str, object]] = (),
    *,
    root: Node,
) -> Edit:
    """Rebuild `obj`: each member named in `changes` is replaced in place by the (key, value) given, or
    dropped when that is None; `append` members go last.

    `root` is the document root, used to learn the file's indent unit when `obj` has no members.
    """
    members = obj.members or ()
    newline = newline_of(text)
    if not members:
        return Edit(obj.start, obj.end, _fresh_object(text, obj, append, root, newline))
    opening, closing, elements = _elements(text, obj, members)
    expanded = any("\n" in element.body for element in elements)
    one_line = "\n" not in text[obj.start : obj.end]
    indent = _member_indent(elements[0].lead, text, obj, root)
    unit = _indent_unit(text, obj, indent, root)
    rebuilt: list[_Element] = []
    replaced: set[str] = set()
    for member, element in zip(members, elements, strict=True):
        if member.key not in changes:
            rebuilt.append(element)
            continue
        replacement = changes[member.key]
        if replacement is None or member.key in replaced:
            continue
        replaced.add(member.key)
        body = _render_member(replacement, indent, unit, newline, expanded)
        trailer = newline if "\n" in element.trailer else ""
        rebuilt.append(_Element(_indentation(element.lead), body, trailer))
    last = elements[-1]
    for extra in append:
        lead = " " if one_line else _indentation(last.lead)
        trailer = newline if "\n" in last.trailer else ""
        rebuilt.append(_Element(lead, _render_member(extra, indent, unit, newline, expanded), trailer))
    trailing_comma = members[-1].comma is not None
    parts = ["{", opening]
    for index, element in enumerate(rebuilt):
        comma = "," if index < len(rebuilt) - 1 or trailing_comma else ""
        parts += [element.lead, element.body, comma, element.trailer]
    parts += [closing, "}"]
    return Edit(obj.start, obj.end, "".join(parts))


def _elements(text: str, obj: Node, members: Sequence[Member]) -> tuple[str, str, list[_Element]]:
    """Cut the object's inside into its opening line rest, its closing indentation, and one element per member."""
    opening, lead = _split_first_line(text[obj.start + 1 : members[0].key_start])
    elements: list[_Element] = []
    closing = ""
    for index, member in enumerate(members):
        body_end = member.comma if member.comma is not None else member.value.end
        after = body_end + 1 if member.comma is not None else body_end
        following = members[index + 1].key_start if index + 1 < len(members) else obj.end - 1
        trailer, rest = _split_first_line(text[after:following])
        elements.append(_Element(lead, text[member.key_start : body_end], trailer))
        lead = rest
        if index + 1 == len(members):
            closing = rest
    return opening, closing, elements


def _split_first_line(region: str) -> tuple[str, str]:
    """`region` cut after its first newline; without one, all of it belongs to what follows."""
    cut = region.find("\n") + 1
    return region[:cut], region[cut:]


def _indentation(lead: str) -> str:
    """The indentation of the last line of a lead (its comments removed)."""
    last = lead[lead.rfind("\n") + 1 :]
    return last if not last.strip() else ""


def _line_indent(text: str, position: int) -> str:
    start = text.rfind("\n", 0, position) + 1
    line = text[start:position]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _member_indent(lead: str, text: str, obj: Node, root: Node) -> str:
    indent = _indentation(lead)
    if indent or "\n" not in text[obj.start : obj.end]:
        return indent
    return _line_indent(text, obj.start) + _file_unit(text, root)


def _indent_unit(text: str, obj: Node, member_indent: str, root: Node) -> str:
    parent = _line_indent(text, obj.start)
    if member_indent.startswith(parent) and len(member_indent) > len(parent):
        return member_indent[len(parent) :]
    return _file_unit(text, root)


def _file_unit(text: str, root: Node) -> str:
    """The indentation of the root object's first member: the file's indent unit."""
    first = (root.members or ())[:1]
    if first and "\n" in text[root.start : first[0].key_start]:
        return _line_indent(text, first[0].key_start) or DEFAULT_INDENT
    return DEFAULT_INDENT


def _render_member(member: tuple[str, object], indent: str, unit: str, newline: str, expanded: bool) -> str:
    key, value = member
    if expanded:
        rendered = json.dumps(value, ensure_ascii=False, indent=unit).replace("\n", newline + indent)
    else:
        rendered = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return f"{json.dumps(key, ensure_ascii=False)}: {rendered}"


def _fresh_object(text: str, obj: Node, members: Sequence[tuple[str, object]], root: Node, newline: str) -> str:
    """An object that had no members: `{}` or the new members, indented like the rest of the file."""
    if not members:
        return text[obj.start : obj.end]
    if "\n" not in text:
        return "{" + ", ".join(_render_member(member, "", "", newline, expanded=False) for member in members) + "}"
    base = _line_indent(text, obj.start)
    unit = _file_unit(text, root)
    indent = base + unit
    rendered = ("," + newline + indent).join(
        _render_member(member, indent, unit, newline, expanded=True) for member in members
    )
    return "{" + newline + indent + rendered + newline + base + "}"
