"""Which of a server's tools the gateway exposes: `includeTools` / `excludeTools` globs.

A filtered-out tool is invisible everywhere (search, listing, description) and refused by
`execute_tool`; the catalog still keeps it, so editing a filter never needs a refresh. Globs use `*`
and `?` only (no character classes): tool names are identifiers, and `[` in a name must stay literal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache


@lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str]:
    parts = (".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in pattern)
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


def glob_match(name: str, pattern: str) -> bool:
    return _compile(pattern).match(name) is not None


def tool_allowed(name: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    """Allowed when it matches an include glob (or there are none) and no exclude glob."""
    if include and not any(glob_match(name, pattern) for pattern in include):
        return False
    return not any(glob_match(name, pattern) for pattern in exclude)
