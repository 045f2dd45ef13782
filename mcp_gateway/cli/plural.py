"""Counts as a person reads them: "1 tool", "2 tools", "0 servers".

Every count the command line prints goes through `counted`, so no message says "1 tools".
"""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`count` and `noun`, the noun in the plural unless the count is exactly one (`plural`, else noun + "s")."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
