"""What the command line writes to a terminal: never a control character it did not mean.

A person's terminal acts on what it is sent: ESC sequences clear the screen, move the cursor, retitle the
window or (OSC 52) write the clipboard, BEL rings, a carriage return overwrites the line before it, and
bidirectional overrides reorder what is read. The command line shows text from outside (a server's stderr in
`doctor` and in a failed start, its error messages, tool descriptions, a client's file), so every character of
those kinds is shown as a visible stand-in instead, whoever's text it is: the Unicode control pictures for C0
(␛ for ESC), ␡ for DEL, and the replacement character for C1 controls and bidirectional controls. Newlines and
tabs are layout and stay. Only a terminal is guarded: output piped on (`--json | jq`) is the bytes as they are.
"""

from __future__ import annotations

import sys
from typing import TextIO

KEPT = frozenset({"\n", "\t"})
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
SHOWN = {
    **{code: 0x2400 + code for code in range(0x20) if chr(code) not in KEPT},
    0x7F: 0x2421,
    **dict.fromkeys(range(0x80, 0xA0), 0xFFFD),
    **dict.fromkeys(map(ord, BIDI_CONTROLS), 0xFFFD),
}
"""What each control character is shown as (`str.translate`)."""


def shown(text: str) -> str:
    """`text` as it may reach a terminal."""
    return text.translate(SHOWN)


class GuardedTerminal:
    """A text stream writing to a terminal through `shown`; everything else is the stream's own."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(shown(text))
        return len(text)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def guard_terminals() -> None:
    """Guard stdout and stderr where they are terminals (before anything is written, logging set up included)."""
    for name in ("stdout", "stderr"):
        stream: TextIO = getattr(sys, name)
        if not isinstance(stream, GuardedTerminal) and _is_terminal(stream):
            setattr(sys, name, GuardedTerminal(stream))


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):  # closed
        return False
