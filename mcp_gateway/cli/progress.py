"""Progress lines on stderr while `refresh` and `doctor` start servers: one as each server's turn comes, one
as it answers (its tool count, or why it failed).

Progress goes to stderr and the report to stdout, so `refresh > out.txt` or `doctor --json | jq` stay
parseable. Lines are printed whether or not stderr is a terminal, as `doctor` always has: a CI log or a
client that captures stderr shows which server a slow or failed run was waiting for. No line is rewritten
in place (no carriage returns), so a log reads the same as a terminal. Errors arrive masked.
"""

from __future__ import annotations

import sys

from mcp_gateway.service.progress import ServerProgress
from mcp_gateway.wording import counted


class ProgressLines:
    """Prints the `ServerProgress` events of one command; `total` is how many servers it will start."""

    def __init__(self, total: int = 0) -> None:
        self.total = total
        self.started = 0

    def show(self, event: ServerProgress) -> None:
        if event.stage == "starting":
            self.started += 1
            line = f"[{self.started}/{self.total}] starting {event.server} …"
        elif event.stage == "listed":
            line = f"{event.server}: {counted(event.tool_count, 'tool')} ({seconds(event.seconds)})"
        else:
            reason = first_line(event.error) if event.error else "no reason given"
            line = f"{event.server}: failed after {seconds(event.seconds)}: {reason}"
        print(f"mcp-gateway: {line}", file=sys.stderr)


def seconds(value: float | None) -> str:
    return f"{value:.2f} s" if value is not None else "not started"


def first_line(text: str) -> str:
    """The first line of a message: a server's stderr quoted below it is in the report on stdout."""
    return text.strip().splitlines()[0] if text.strip() else text
