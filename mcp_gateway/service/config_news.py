"""What each reader of search notes has been told of live config edits: every session hears each edit once.

A daemon has one reader per session, and an edit must reach every session's next search, not only the first
one to search. So the news is kept in order, not consumed: for each server the last edit that added or removed
it (and when, as a number of one sequence that only grows), and when anything else last changed. Each reader
(`Reader`, one per session) remembers when it was last told; its notes are the news after that. A file that
cannot be used is no news but a state: every search says it until it is fixed (`problem`). A new reader has heard
nothing: the instructions every session gets were built when the gateway started (`Gateway.instructions`), so
a session opened after an edit still needs to hear of it. The news is bounded by the servers ever configured,
and a reader costs two numbers: nothing grows with the edits or the sessions.

Which reader asks is carried by the request, as a context variable set where the session's request is
served (`server/session_scope.py`): the gateway's `search` is the same for the command line, a standalone
client and every daemon session, and which session asks matters to nothing else there. With none set (the
command line, a test driving the gateway directly) the gateway's own default reader is used.
"""

from __future__ import annotations

import itertools
from collections.abc import Generator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from mcp_gateway.config import ConfigChanges

_moments = itertools.count()
"""Orders every edit and every telling in this process: a later one always has a greater number."""


def _now() -> int:
    return next(_moments)


@dataclass(eq=False)
class Reader:
    """One session reading search notes; `told_at` is when it was last told (at first: never, as its
    instructions are as old as the gateway)."""

    told_at: int = -1


_READER: ContextVar[Reader | None] = ContextVar("the session whose request this is", default=None)


@contextmanager
def reading_as(reader: Reader) -> Generator[None]:
    """Within this, the gateway's searches tell `reader` what it has not heard yet."""
    token = _READER.set(reader)
    try:
        yield
    finally:
        _READER.reset(token)


class ConfigNews:
    """The edits applied and the edit refused, as of when; each reader's notes are what came after its last."""

    def __init__(self) -> None:
        self._servers: dict[str, tuple[int, bool]] = {}
        """Server → (when an edit last added (True) or removed (False) it)."""
        self._other_at = -1
        """When an edit last changed anything else (a server's definition or settings, the gateway's settings)."""
        self._default = Reader()
        self.problem: str | None = None
        """Why the file as it is now cannot be used; None when it can. Message in every search until then."""

    def refused(self, problem: str) -> None:
        self.problem = problem

    def resolved(self) -> None:
        self.problem = None

    def applied(self, changes: ConfigChanges) -> None:
        now = _now()
        self._servers.update(dict.fromkeys(changes.added, (now, True)) | dict.fromkeys(changes.removed, (now, False)))
        if changes.changed or changes.updated or changes.settings:
            self._other_at = now

    def untold(self) -> dict[str, bool] | None:
        """For the reader asking: the servers added (True) or removed (False) since it was last told (None when
        nothing changed); it is told them now."""
        reader = _READER.get() or self._default
        since = reader.told_at
        reader.told_at = _now()
        moved = {name: present for name, (at, present) in self._servers.items() if at > since}
        return moved if moved or self._other_at > since else None
