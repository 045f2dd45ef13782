"""How a serving gateway stops: one graceful shutdown however it is asked for, and never longer than a bound.

Clients end a session in different ways: closing stdin (the MCP spec), SIGTERM a moment after that (the
SDK's client), SIGINT then SIGTERM 100 ms later (Claude Code), Ctrl-C in a terminal. Whichever comes first
begins the shutdown: serving ends, calls in flight are cancelled, and every downstream server is stopped in
parallel (stdin closed, then SIGTERM, then SIGKILL, per process group). A stop by signal is urgent: a
client that signals kills soon after (Claude Code: SIGKILL about 500 ms after SIGINT), so each grace is
then a few milliseconds. Stop signals that arrive while it runs ask for the same thing again and change
nothing. (Taking the second one as "kill everything now"
turned the end of every Claude Code session into SIGKILLs for servers that were closing cleanly.)

Two things end the shutdown at once instead, by SIGKILLing every server process group:
- the `FORCE_AFTER_SIGNALS`-th stop signal: a person who presses Ctrl-C a third time wants out now, while
  no client sends more than two;
- `SHUTDOWN_BOUND_SECONDS` after the shutdown began, whatever still runs is killed, so the gateway never
  outlives that bound, whatever a server or a connection does to delay its close.
The orderly path then gets `FORCE_GRACE_SECONDS` to finish (with nothing left to wait for it needs
milliseconds); if it has not, the process leaves without it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import NoReturn

import anyio

logger = logging.getLogger(__name__)

SHUTDOWN_BOUND_SECONDS = 8.0
"""From the first stop request to the process's exit, at most (a server's own stop sequence takes ~5 s)."""
FORCE_GRACE_SECONDS = 0.5
"""What the orderly path gets to finish once every server was SIGKILLed; part of the bound."""
FORCE_AFTER_SIGNALS = 3
"""The stop signal that means "now" (Claude Code sends two: SIGINT, then SIGTERM)."""
FORCED_EXIT_STATUS = 1
"""The exit status when servers had to be SIGKILLed: the shutdown was not the orderly one."""


class Stopper:
    """Turns stop requests (signals, the end of serving) into one shutdown, forced when it must be."""

    def __init__(self, leave: Callable[[int], NoReturn], *, bound_seconds: float = SHUTDOWN_BOUND_SECONDS) -> None:
        """`leave` ends the process with a status; it is called only when the orderly path overran."""
        self._leave = leave
        self._bound_seconds = bound_seconds
        self.kill_everything: Callable[[], None] | None = None
        """SIGKILLs every server process group; set once there is a pool to ask."""
        self.hurry_everything: Callable[[], None] | None = None
        """Makes every server's stop urgent (a client that signals kills soon after); set with the pool."""
        self._serving: anyio.CancelScope | None = None
        self._began = anyio.Event()
        self._forced = anyio.Event()
        self._deadline = 0.0
        self._signals = 0
        self.exit_status = 0

    @property
    def stop_requested(self) -> bool:
        return self._began.is_set()

    def serve_in(self, scope: anyio.CancelScope) -> None:
        """Serving runs in `scope`: a stop request cancels it (at once if one came already)."""
        self._serving = scope
        if self.stop_requested:
            scope.cancel()

    def serving_ended(self) -> None:
        """Serving is over (the client closed stdin, or a stop request ended it): the shutdown has begun."""
        self._serving = None
        self._begin()

    async def watch(self, signals: AsyncIterator[int]) -> None:
        async for _ in signals:
            self._signals += 1
            if self.hurry_everything is not None:
                self.hurry_everything()
            self._begin()
            if self._signals == FORCE_AFTER_SIGNALS:
                self._forced.set()

    async def enforce_bound(self) -> None:
        """Once the shutdown has begun, kill what still runs when it is forced or overdue, then leave."""
        await self._began.wait()
        with anyio.CancelScope(deadline=self._deadline - FORCE_GRACE_SECONDS):
            await self._forced.wait()
        if self._forced.is_set():
            logger.warning(
                "stop signal number %d came: killing every downstream server and exiting now", FORCE_AFTER_SIGNALS
            )
        else:
            logger.warning(
                "the shutdown was still running after %gs: killing every downstream server and exiting now",
                self._bound_seconds - FORCE_GRACE_SECONDS,
            )
        self.exit_status = FORCED_EXIT_STATUS
        if self.kill_everything is not None:
            self.kill_everything()
        await anyio.sleep(FORCE_GRACE_SECONDS)  # the orderly path, done first, cancels this and exits itself
        self._leave(FORCED_EXIT_STATUS)

    def _begin(self) -> None:
        if not self._began.is_set():
            self._deadline = anyio.current_time() + self._bound_seconds
            self._began.set()
        if self._serving is not None:
            self._serving.cancel()
