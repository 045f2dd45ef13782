"""Bounds on text the gateway repeats: whatever arrives from outside is echoed at most this long.

A model may send a 5 MB "tool name"; a server may answer with a 50 MB error message. Either would come back in
the error a model reads, in `errors.json` and in `status`, costing tokens, disk and memory for nothing. Each
outside value is cut where it is quoted, and the cut says how much was left out, so nobody mistakes a cut
value for the whole.
"""

from __future__ import annotations

MAX_ECHOED_NAME_CHARS = 200
"""A tool or server name quoted back: real ones stay under 128 characters (the MCP spec's advice)."""
MAX_DOWNSTREAM_MESSAGE_CHARS = 2000
"""A server's own error text, quoted in the error the model reads (about 500 tokens)."""
MAX_STORED_MESSAGE_CHARS = 4000
"""One error message as `errors.json` keeps it."""
MAX_SERVER_INSTRUCTIONS_CHARS = 4096
"""A server's own `instructions` as the catalog keeps them and the model reads them: what Claude Code itself
shows of a server's instructions (2.1.332 cuts them at 4,096 characters, unless
CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH says otherwise)."""
MAX_SERVER_INFO_CHARS = 300
"""A server's `serverInfo` title or description: a line about the server, not a document."""


def clip(text: str, limit: int) -> str:
    """`text` itself when it fits, else its start and how many characters were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"
