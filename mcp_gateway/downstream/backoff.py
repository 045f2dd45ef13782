"""How long a server that failed to start is left alone before the next call may start it again.

The window starts at `failureBackoffMs` and doubles with each further failure in a row (a success clears it),
up to `MAX_BACKOFF_SECONDS`, so a broken server costs one failed start per window instead of one per call,
while a server that recovers is back within the first window.
"""

from __future__ import annotations

MAX_BACKOFF_SECONDS = 15 * 60.0
"""The longest window, however many failures in a row: a fixed server is never shut out for long."""


class Backoff:
    def __init__(self, base_seconds: float) -> None:
        self._base = base_seconds
        self.failures = 0
        """Failed starts in a row."""
        self.until = 0.0
        """When the window ends (event-loop time)."""

    def failed(self, now: float) -> None:
        self.failures += 1
        delay = min(self._base * 2 ** (self.failures - 1), max(self._base, MAX_BACKOFF_SECONDS))
        self.until = now + delay

    def cleared(self) -> None:
        self.failures = 0
        self.until = 0.0

    def seconds_left(self, now: float) -> float:
        return max(0.0, self.until - now)
