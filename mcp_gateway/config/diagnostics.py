"""Diagnostics: what is wrong with one place in `config.json`, and what to write instead.

A diagnostic names the file, the JSON path and the problem, and usually a fix, so that a user can act on
it without reading the gateway's source. Problems that leave a server or a setting unusable are errors;
problems the loader worked around (an ignored field, a migrated one) are warnings. Messages name keys and
environment variables but never echo configured values: env and header values are secrets.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Severity = Literal["error", "warning"]

MAX_SUGGESTIONS = 1
"""Did-you-mean offers one candidate: a list of guesses reads like noise."""
SUGGESTION_CUTOFF = 0.6
"""difflib similarity below which a candidate is not worth suggesting."""

_PLAIN_KEY = re.compile(r"^[\w-]+$")


@dataclass(frozen=True)
class Diagnostic:
    severity: Severity
    file: Path
    json_path: str
    """Where in the file, e.g. `mcpServers.github.args[1]`; empty for the file as a whole."""
    message: str
    suggestion: str | None = None

    def __str__(self) -> str:
        where = f"{self.file}: {self.json_path}: " if self.json_path else f"{self.file}: "
        fix = f" ({self.suggestion})" if self.suggestion else ""
        return f"{where}{self.message}{fix}"


@dataclass
class DiagnosticReport:
    """Collects the diagnostics of one file while it is loaded."""

    file: Path
    items: list[Diagnostic] = field(default_factory=list[Diagnostic])

    def error(self, json_path: str, message: str, suggestion: str | None = None) -> None:
        self.items.append(Diagnostic("error", self.file, json_path, message, suggestion))

    def warning(self, json_path: str, message: str, suggestion: str | None = None) -> None:
        self.items.append(Diagnostic("warning", self.file, json_path, message, suggestion))


def join_path(base: str, *parts: str | int) -> str:
    """Extend a JSON path: `a.b` for plain keys, `a["my.server"]` for keys with dots or spaces, `a[2]`."""
    path = base
    for part in parts:
        if isinstance(part, int):
            path = f"{path}[{part}]"
        elif _PLAIN_KEY.match(part):
            path = f"{path}.{part}" if path else part
        else:
            path = f"{path}[{json.dumps(part, ensure_ascii=False)}]"
    return path


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate `word` most likely meant, ignoring case and `_`/`-`, or None when none is close."""
    by_folded = {_fold(candidate): candidate for candidate in candidates}
    matches = difflib.get_close_matches(_fold(word), list(by_folded), n=MAX_SUGGESTIONS, cutoff=SUGGESTION_CUTOFF)
    return by_folded[matches[0]] if matches else None


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    match = closest(word, candidates)
    return f"did you mean '{match}'?" if match is not None else None


def _fold(word: str) -> str:
    return word.replace("_", "").replace("-", "").casefold()
