"""The client's lines from the front's first moment: read by one thread, the handshake answered early, and
everything kept in order for the front's pipe until it takes over.

A front reads its client before it has a daemon to talk to: a daemon thread reads stdin line by line and,
until the pipe takes over, keeps every line in a backlog and lets `EarlyAnswers` answer `initialize` and
`tools/list` at once (when the front already has a handshake to answer with), written straight to the
client's stdout. When the pipe is ready, `hand_over` gives it the backlog (sent on in order, answered lines
included: the daemon's session must see the handshake it is to continue) and from then on each line goes to
the pipe as it arrives. The thread is a daemon blocked in `read` so a stop never waits for the client's next
line.

Nothing here imports anything once the thread runs: it reads, judges with the standard library and writes,
so it can never race the main thread's imports (a module imported by two threads at once can be seen
half-built). fd 0 points at /dev/null and fd 1 at stderr while the front runs (`on_stdio`), so nothing but
the front's own writes can reach the client's stream. Standard library only, as the front is.

A line longer than the daemon serving the session takes (`max_line_bytes`, set by the front once it knows
which daemon that is) is never held whole, sent, or parsed: it is read past and its request answered here with
the error the daemon would give (`line_bounds`), so a 50 MB line costs the daemon and the other sessions
nothing. Every write to the client's stdout, the pipe's included, holds `writing`.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, BinaryIO

from mcp_gateway.front.private_files import write_all
from mcp_gateway.front.quiet_log import DEBUG, WARNING, log
from mcp_gateway.line_bounds import ID_SEARCH_BYTES, MAX_SHARED_LINE_BYTES, TooLong, refusal

if TYPE_CHECKING:
    from mcp_gateway.front.early_answers import EarlyAnswers

Take = Callable[[bytes], None]
"""Called in the reader thread with each line that arrives once the pipe has taken over."""
End = Callable[[], None]
"""Called in the reader thread when the client's stdin ends after the pipe has taken over."""
CHUNK_BYTES = 64 * 1024


class ClientLines:
    """The client's stdin, read from the start by one thread; its stdout (`wire_out`), written early here
    and by the pipe after `hand_over`."""

    def __init__(
        self,
        wire_in: int,
        wire_out: int,
        early: EarlyAnswers | None = None,
        max_line_bytes: int = MAX_SHARED_LINE_BYTES,
    ) -> None:
        """Takes over both descriptors: the thread closes `wire_in` at EOF. `early`: what answers the handshake
        before the pipe takes over (None: nothing is answered yet)."""
        self.wire_out = wire_out
        self.early = early
        self.max_line_bytes = max_line_bytes
        """The longest line sent on: the bound of the daemon that serves the session (a line being read when it
        changes is judged by the bound it was begun under)."""
        self.writing = threading.Lock()
        """Held by every write to the client's stdout: this reader's refusals and the pipe's lines never mix."""
        self._lock = threading.Lock()
        self._backlog: list[bytes] = []
        self._ended = False
        self._take: Take | None = None
        self._end: End | None = None
        self._thread = threading.Thread(target=self._read, args=(wire_in,), name="mcp-gateway stdin", daemon=True)
        self._thread.start()

    @classmethod
    def on_stdio(cls, early: EarlyAnswers | None, max_line_bytes: int) -> ClientLines:
        """The process's stdin and stdout, with fd 0 and fd 1 parked (on /dev/null and stderr)."""
        wire_in = os.dup(sys.stdin.fileno())
        wire_out = os.dup(sys.stdout.fileno())
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
        return cls(wire_in, wire_out, early, max_line_bytes)

    def hand_over(self, take: Take, end: End) -> tuple[list[bytes], bool]:
        """The pipe takes over: every line read so far, in order, and whether stdin has ended already.

        Each later line goes to `take`, and the end of stdin to `end`, both called in the reader thread;
        the caller delivers the backlog before anything `take` is given.
        """
        with self._lock:
            backlog, self._backlog = self._backlog, []
            self._take, self._end = take, end
            return backlog, self._ended

    def _read(self, wire_in: int) -> None:
        try:
            # A buffered reader returns each line as soon as it is complete (pipe reads do not wait to fill).
            with os.fdopen(wire_in, "rb") as source:
                while (line := _next_line(source, self.max_line_bytes)) is not None:
                    if isinstance(line, TooLong):
                        self._refuse(line)
                        continue
                    with self._lock:
                        take = self._take
                        if take is None:
                            self._backlog.append(line)
                            self._answer_early(line)
                            continue
                    take(line)
        except Exception as error:  # stdin unreadable, or the pipe gone while a line was being delivered
            log(__name__, DEBUG, "stopped reading the client's stdin: %s", error)
        finally:
            self._finish()

    def _refuse(self, line: TooLong) -> None:
        refused = refusal(line, self.max_line_bytes)
        log(__name__, WARNING, "refused a client line of %d bytes (request %r): too long", line.size, refused["id"])
        with self.writing, contextlib.suppress(OSError):  # a client gone: its stdin ends the front
            write_all(self.wire_out, json.dumps(refused).encode() + b"\n")

    def _answer_early(self, line: bytes) -> None:
        """Under the lock, before the pipe takes over."""
        early = self.early
        if early is None or early.over:
            return
        reply = early.answer(line)
        if reply is not None:
            try:
                with self.writing:
                    write_all(self.wire_out, reply)
            except OSError as error:  # the client is gone; the front will see stdin end
                log(__name__, DEBUG, "could not answer the client early: %s", error)
                early.stop()

    def _finish(self) -> None:
        with self._lock:
            self._ended = True
            end = self._end
        if end is not None:
            with contextlib.suppress(Exception):  # the pipe may be gone already
                end()


def _next_line(source: BinaryIO, max_bytes: int) -> bytes | TooLong | None:
    """The next line of `source` with its newline (the last one may have none), `TooLong` past `max_bytes`
    (read past, keeping its ends), or None at its end."""
    line = source.readline(max_bytes + 1)
    if not line or len(line) <= max_bytes or line.endswith(b"\n"):
        return line or None
    head, tail, size = line[:ID_SEARCH_BYTES], line[-ID_SEARCH_BYTES:], len(line)
    while chunk := source.readline(CHUNK_BYTES):
        ended = chunk.endswith(b"\n")
        chunk = chunk.removesuffix(b"\n")
        size += len(chunk)
        tail = (tail + chunk)[-ID_SEARCH_BYTES:]
        if ended:
            break
    return TooLong(head, tail, size)
