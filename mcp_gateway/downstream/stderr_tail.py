"""The last words a local server wrote on stderr during one run: what its start failure quotes.

A server that cannot start usually says why on stderr (`Please set SLACK_BOT_TOKEN`, `Error: None of the
specified directories are accessible`) and exits. The whole text is in the server's log (`stderr_log.py`), but
the error a model or a person reads should carry the reason itself. So each process gets its own `StderrTail`,
fed by the transport's stderr pump with the lines `StderrLog` has already masked: only this run's lines (never
an earlier run's, which share the log file), kept in memory (no file is read back), and complete once `ended`
is set, which the pump does when the server's stderr closes.

What is quoted (`quoted`), chosen by rules simple enough to predict from the log:
- blank lines and stack frames are skipped (JavaScript's `    at f (file:1:2)`, Python's `Traceback …` header,
  its `  File "…", line N` lines with the source line under each, and `^^^`/`~~~` markers): they say where, not
  why, and would crowd the reason out;
- the most recent lines, most recent last, at most `MAX_QUOTED_LINES` of them and `MAX_QUOTED_CHARS` in all,
  each whole unless it alone is longer than `MAX_LINE_CHARS`;
- unless a line mentioning an error (error, fatal, exception, panic) came before those: then the quote starts at
  the last such line, so a usage text printed after the error does not push the error itself out.
"""

from __future__ import annotations

import re
from collections import deque

import anyio

MAX_QUOTED_LINES = 5
"""An error line and a few lines of context: the start failures of real servers say why in one to three lines
(server-filesystem's is an `Error:` line then a five-line usage text)."""
MAX_QUOTED_CHARS = 600
"""About 150 tokens, under a third of what an error may quote of a server's words (`MAX_DOWNSTREAM_MESSAGE_CHARS`):
enough for the reason, while the full text stays one path away in the log."""
SEPARATOR = " | "
MAX_LINE_CHARS = (MAX_QUOTED_CHARS - len(SEPARATOR)) // 2
"""One line as quoted: two always fit, and a minified source line or a JSON dump is cut."""
KEPT_LINES = 64
"""Lines remembered per run, the newest: room for a stack trace's frames, which are skipped, above its error."""
ENDING_WAIT_SECONDS = 1.0
"""How long a server that ended (or closed its stdout) gets to finish its stderr, and to exit, before what it
said is quoted: its stderr pump may still be reading when the end is seen. A process that exited closes its
pipes at once (within milliseconds: the fake server, server-filesystem); only one that closed its stdout and
lives on, or a process outside its group holding the pipe, costs this."""
CUT_MARK = " …"

_BLANK = re.compile(r"\s*")
_JS_FRAME = re.compile(r"\s+at\s")
_PY_FRAME = re.compile(r'\s+File "')
_PY_TRACEBACK = re.compile(r"Traceback \(most recent call last\):")
_MARKERS = re.compile(r"\s*[~^]+\s*")
_MENTIONS_ERROR = re.compile(r"error|fatal|exception|panic", re.IGNORECASE)


class StderrTail:
    """This run's last stderr lines (already masked), and whether its stderr has ended."""

    def __init__(self) -> None:
        self._lines: deque[str] = deque(maxlen=KEPT_LINES)
        self.ended = anyio.Event()
        """Set when the server's stderr has closed and every line of it is here."""

    def extend(self, lines: list[str]) -> None:
        """Remember `lines` (masked, complete), each cut to what could ever be quoted of it."""
        self._lines.extend(cut_line(line) for line in lines)

    def end(self) -> None:
        self.ended.set()

    async def said(self) -> tuple[str, ...]:
        """`quoted()` once stderr has ended, or `ENDING_WAIT_SECONDS` have passed."""
        with anyio.move_on_after(ENDING_WAIT_SECONDS):
            await self.ended.wait()
        return self.quoted()

    def quoted(self) -> tuple[str, ...]:
        """The lines an error quotes, oldest first (see the module's rules); empty when the server said nothing."""
        return choose(meaningful(list(self._lines)))


def cut_line(line: str) -> str:
    """`line` whole when it fits `MAX_LINE_CHARS`, else cut at a word boundary near the limit, and marked."""
    line = line.rstrip()
    if len(line) <= MAX_LINE_CHARS:
        return line
    head = line[: MAX_LINE_CHARS - len(CUT_MARK)]
    word_start = head.rfind(" ")
    if word_start > len(head) * 3 // 4:  # a boundary near the end; else a long unbroken run is cut where it is
        head = head[:word_start]
    return head.rstrip() + CUT_MARK


def meaningful(lines: list[str]) -> list[str]:
    """`lines` without blank lines, stack frames and position markers."""
    kept: list[str] = []
    in_frame = False
    for line in lines:
        if _PY_FRAME.match(line):
            in_frame = True  # the indented source line under it goes too
            continue
        if in_frame and line.startswith(" ") and not _BLANK.fullmatch(line):
            in_frame = False
            continue
        in_frame = False
        if _BLANK.fullmatch(line) or _JS_FRAME.match(line) or _PY_TRACEBACK.match(line) or _MARKERS.fullmatch(line):
            continue
        kept.append(line.strip())
    return kept


def choose(lines: list[str]) -> tuple[str, ...]:
    """The most recent lines that fit, or from the last line mentioning an error when it would be left out."""
    newest = _fitting(list(reversed(lines)))[::-1]
    if any(_MENTIONS_ERROR.search(line) for line in newest):
        return tuple(newest)
    first_unquoted = len(lines) - len(newest)
    errors = [index for index, line in enumerate(lines[:first_unquoted]) if _MENTIONS_ERROR.search(line)]
    if not errors:
        return tuple(newest)
    return tuple(_fitting(lines[errors[-1] :]))


def _fitting(lines: list[str]) -> list[str]:
    """The leading lines of `lines` within `MAX_QUOTED_LINES` and `MAX_QUOTED_CHARS` (joined)."""
    taken: list[str] = []
    size = 0
    for line in lines[:MAX_QUOTED_LINES]:
        size += len(line) + (len(SEPARATOR) if taken else 0)
        if size > MAX_QUOTED_CHARS:
            break
        taken.append(line)
    return taken
