"""The names a client sees for downstream prompts: `<server>__<prompt>`, unambiguous and within clients' limits.

Why this scheme: the gateway is one MCP server to its client, so every prompt of every server is listed under
one namespace, and two servers may both have a prompt `summarize`. Claude Code shows a prompt as the slash
command `/mcp__<gateway>__<prompt>` and takes names of at most 64 characters made of letters, digits, `_` and
`-`; other clients show the name as is. So:

- a prompt is named `<server>__<prompt>` (the server's key in config.json, two underscores, the prompt's own
  name) when that is at most `MAX_PROMPT_NAME_CHARS` characters of `[A-Za-z0-9_-]` and no other prompt gets
  the same name: the common case, readable and stable;
- otherwise (too long, another character, or two prompts that would read the same) it is that name with every
  other character made `_`, cut to leave room for `-` and the first `HASH_CHARS` hex digits of the SHA-256 of
  the server key and the prompt's own name: still readable, deterministic (the same prompt gets the same
  name in every session) and, for different (server, prompt) pairs, different.

The name is never parsed back: `prompts/get` looks it up in the same table (`PromptNames`), so a server key
or prompt name holding `__` reads right. The original names are kept in the listed prompt's `_meta`.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

MAX_PROMPT_NAME_CHARS = 64
"""Claude Code's limit for a prompt (slash command) name; other clients show longer names, none needs them."""
SEPARATOR = "__"
"""Between the server key and the prompt's name: Claude Code's own separator in `mcp__server__prompt`."""
HASH_CHARS = 8
"""Hex digits of the SHA-256 that tell apart shortened names: 32 bits, no collision among thousands of prompts."""
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class PromptRef:
    """One downstream prompt: its server's key and its own name."""

    server: str
    prompt: str


def plain_name(ref: PromptRef) -> str:
    return f"{ref.server}{SEPARATOR}{ref.prompt}"


def shortened_name(ref: PromptRef) -> str:
    """The safe, bounded, hashed form of `ref`'s name (see the module docstring)."""
    digest = hashlib.sha256(f"{ref.server}\0{ref.prompt}".encode()).hexdigest()[:HASH_CHARS]
    readable = _UNSAFE.sub("_", plain_name(ref))[: MAX_PROMPT_NAME_CHARS - HASH_CHARS - 1]
    return f"{readable}-{digest}"


def _usable_as_is(name: str) -> bool:
    return len(name) <= MAX_PROMPT_NAME_CHARS and _UNSAFE.search(name) is None


class PromptNames:
    """The client-facing name of every listed prompt, both ways, for one set of (server, prompt) pairs."""

    def __init__(self, refs: Iterable[PromptRef]) -> None:
        listed = list(dict.fromkeys(refs))  # a prompt listed twice is one prompt
        plain = Counter(plain_name(ref) for ref in listed)
        self._names: dict[PromptRef, str] = {}
        self._refs: dict[str, PromptRef] = {}
        for ref in listed:
            name = plain_name(ref)
            if not _usable_as_is(name) or plain[name] > 1:
                name = shortened_name(ref)
            if name in self._refs:
                # Only if a server's own prompt name is exactly another's shortened form: the first listed keeps it.
                name = shortened_name(PromptRef(ref.server, f"{ref.prompt}\0{len(self._refs)}"))
            self._names[ref] = name
            self._refs[name] = ref

    def name(self, ref: PromptRef) -> str:
        return self._names[ref]

    def ref(self, name: str) -> PromptRef | None:
        """The prompt a client-facing name stands for, or None when no listed prompt has it."""
        return self._refs.get(name)
