"""The client's lines from the process's first moment: read by one thread, the handshake answered early,
and everything kept in order for the SDK's session until it takes over.

The server starts reading its client before it imports the MCP SDK (see `server.start`): a daemon thread reads
stdin line by line and, until the session is ready, keeps every line in a backlog and lets
`EarlyAnswers` answer `initialize` and `tools/list` at once, written straight to the client's stdout.
When the session is ready, `hand_over` gives it the backlog (replayed in order, answered lines included:
the session must see the handshake it is to continue) and from then on each line goes to the session as
it arrives. The thread is a daemon blocked in `read` so a stop never waits for the client's next line.

Nothing here imports anything once the thread runs: it reads, judges with the standard library and
writes, so it can never race the main thread's imports (a module imported by two threads at once can be
seen half-built). While serving, fd 0 points at /dev/null and fd 1 at stderr (`on_stdio`), so stray
output from a library cannot corrupt the client's stream.

Standard library only, in the session front's package: a front reads its client with it too, and a front with
the daemon running must import nothing heavy. What answers early is any `Early` (`front.early_answers`).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable
from typing import Protocol

from mcp_gateway.front.quiet_log import DEBUG, log

Take = Callable[[bytes], None]
"""Called in the reader thread with each line that arrives once the session has taken over."""
End = Callable[[], None]
"""Called in the reader thread when the client's stdin ends after the session has taken over."""


class Early(Protocol):
    """What answers the client's first lines before the session takes over (`front.early_answers.EarlyAnswers`)."""

    @property
    def over(self) -> bool: ...

    def stop(self) -> None: ...

    def answer(self, line: bytes) -> bytes | None: ...

    def answered_early(self, request_id: object) -> bool: ...

    def settle(self, request_id: int | str, sent: bytes) -> bool: ...


class ClientLines:
    """The client's stdin, read from the start by one thread; its stdout (`wire_out`), written early here
    and by the session's writer after `hand_over`."""

    def __init__(self, wire_in: int, wire_out: int, early: Early | None = None) -> None:
        """Takes over both descriptors: the thread closes `wire_in` at EOF; the session's transport closes
        `wire_out`. `early`: what to answer before the session takes over (None: nothing)."""
        self.wire_out = wire_out
        self._early = early
        self._lock = threading.Lock()
        self._backlog: list[bytes] = []
        self._ended = False
        self._take: Take | None = None
        self._end: End | None = None
        self._parked: tuple[int, int] | None = None
        self.handshake_over = threading.Event()
        """Set when nothing more will be answered early: the handshake is done, the client asked for
        something else, stdin ended, or the session took over."""
        if early is None:
            self.handshake_over.set()
        self._thread = threading.Thread(target=self._read, args=(wire_in,), name="mcp-gateway stdin", daemon=True)
        self._thread.start()

    @classmethod
    def on_stdio(cls, early: Early | None) -> ClientLines:
        """The process's stdin and stdout, with fd 0 and fd 1 parked until `restore_stdio`."""
        wire_in = os.dup(sys.stdin.fileno())
        wire_out = os.dup(sys.stdout.fileno())
        saved = (os.dup(0), os.dup(1))
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
        lines = cls(wire_in, wire_out, early)
        lines._parked = saved
        return lines

    def hand_over(self, take: Take, end: End) -> tuple[list[bytes], bool]:
        """The session takes over: every line read so far, in order, and whether stdin has ended already.

        Each later line goes to `take`, and the end of stdin to `end`, both called in the reader thread;
        the caller delivers the backlog before anything `take` is given.
        """
        with self._lock:
            backlog, self._backlog = self._backlog, []
            self._take, self._end = take, end
            ended = self._ended
            if self._early is not None:
                self._early.stop()
        self.handshake_over.set()
        return backlog, ended

    def settle(self, request_id: int | str, sent: bytes) -> bool:
        """Whether the session's answer `sent` to `request_id` was given early already (then it is not sent)."""
        return self._early is not None and self._early.settle(request_id, sent)

    def answered_early(self, request_id: object) -> bool:
        """Whether the request `request_id` was answered early and the session's answer is still to come."""
        return self._early is not None and self._early.answered_early(request_id)

    def restore_stdio(self) -> None:
        """Put fd 0 and fd 1 back as they were before `on_stdio`."""
        if self._parked is None:
            return
        saved_in, saved_out = self._parked
        self._parked = None
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)

    def _read(self, wire_in: int) -> None:
        try:
            # A buffered reader returns each line as soon as it is complete (pipe reads do not wait to fill).
            with os.fdopen(wire_in, "rb") as source:
                for line in source:
                    with self._lock:
                        take = self._take
                        if take is None:
                            self._backlog.append(line)
                            self._answer_early(line)
                            continue
                    take(line)
        except Exception as error:  # stdin unreadable, or the session gone while a line was being delivered
            log(__name__, DEBUG, "stopped reading the client's stdin: %s", error)
        finally:
            self._finish()

    def _answer_early(self, line: bytes) -> None:
        """Under the lock, before the session takes over."""
        early = self._early
        if early is None or early.over:
            return
        reply = early.answer(line)
        if reply is not None:
            try:
                _write_all(self.wire_out, reply)
            except OSError as error:  # the client is gone; the session will see stdin end
                log(__name__, DEBUG, "could not answer the client early: %s", error)
                early.stop()
        if early.over:
            self.handshake_over.set()

    def _finish(self) -> None:
        with self._lock:
            self._ended = True
            end = self._end
        self.handshake_over.set()
        if end is not None:
            with contextlib.suppress(Exception):  # the session may be gone already
                end()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
