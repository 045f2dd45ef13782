"""What the glossary file checks share: reading a glossary, its `word: entries` lines, and the problems of the
line structure common to both (a missing word or colon, a word with two lines); each file's own check judges its
entries."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import mcp_gateway.search

EntryCheck = Callable[[int, str, list[str]], list[str]]
"""(line number, the line's word, its entries) → the problems of those entries, one sentence each."""


def glossary_lines(name: str) -> list[str]:
    return (Path(mcp_gateway.search.__file__).resolve().parent / name).read_text(encoding="utf-8").splitlines()


def entries(lines: list[str]) -> dict[str, list[str]]:
    """Each line's word → its entries, comments and blank lines left out."""
    return {
        line.partition(":")[0]: line.partition(":")[2].split()
        for line in lines
        if line.strip() and not line.startswith("#")
    }


def header(lines: list[str]) -> str:
    return "\n".join(line for line in lines if line.startswith("#"))


def line_problems(lines: list[str], word: re.Pattern[str], kind: str, check_entries: EntryCheck) -> list[str]:
    """Every way `lines` break the format, one sentence each with its line number; `kind` names the word
    (`lower-case English word`) in the sentence for a line that does not start with one."""
    problems: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        head, colon, rest = line.partition(":")
        if not colon or not word.fullmatch(head):
            problems.append(f"line {number}: {line!r} does not start with a {kind} and a colon")
            continue
        if head in seen:
            problems.append(f"line {number}: {head!r} already has line {seen[head]}")
        seen[head] = number
        problems.extend(check_entries(number, head, rest.split()))
    return problems
