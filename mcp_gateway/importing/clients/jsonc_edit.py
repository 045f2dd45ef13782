"""Text-level edits of a JSON(C) document: replace some members of one object, keep every other byte.

Parsing a client file and dumping it again would drop its comments, reorder or reformat it, and rewrite
unrelated state (Claude Code keeps its whole history in `~/.claude.json`). So write-back edits the text:
`splice_members` rebuilds only the object that holds the MCP servers, member by member. A kept member
keeps its exact text together with the comment lines above it and the comment after it on the same
line; a dropped member takes its own comments with it; the new member is rendered in the style of its
neighbours (one line or indented, the file's indent unit and newline). A trailing comma is written only
where the original object had one, so a strict JSON file stays strict.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mcp_gateway.importing.clients.jsonc import Member, Node

DEFAULT_INDENT = "  "


@dataclass(frozen=True)
class Edit:
    """Replace `text[start:end]` with `replacement`."""

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
