"""What a refresh reports, as it goes and when it is over; the progress events `doctor` shares with it.

`refresh` and `doctor` can take seconds per server (a package download, a slow handshake), so the command
line shows a line as each server's turn comes and as it answers. Both report through the same
`ServerProgress` event, so a person reads the same lines from either command. Events are said as they
happen, on the event loop, so the callback must not block (printing a line is fine). Errors in events and
reports are masked.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from mcp_gateway.catalog import Catalog, ListingStep
from mcp_gateway.service.reports import RefreshOutcome, RefreshReport

Stage = Literal["starting", "listed", "failed"]


@dataclass(frozen=True)
class ServerProgress:
    server: str
    stage: Stage
    tool_count: int = 0
    """The tools it lists, once `listed`."""
    seconds: float | None = None
    """From its turn to its answer, once it has one."""
    error: str | None = None
    """Why it failed, masked, once `failed`."""


ProgressFn = Callable[[ServerProgress], None]


def listing_steps(
    on_progress: ProgressFn | None, catalog: Catalog, mask: Callable[[str], str]
) -> Callable[[str, ListingStep], None] | None:
    """The catalog's listing steps as `ServerProgress` events, timed, with what the catalog made of each;
    None without a listener."""
    if on_progress is None:
        return None
    started: dict[str, float] = {}

    def step(server: str, listing: ListingStep) -> None:
        if listing == "starting":
            started[server] = time.perf_counter()
            on_progress(ServerProgress(server, "starting"))
            return
        seconds = time.perf_counter() - started.pop(server, time.perf_counter())
        failure = catalog.failure(server)
        if failure is not None:
            on_progress(ServerProgress(server, "failed", seconds=seconds, error=mask(failure)))
        else:
            on_progress(ServerProgress(server, "listed", tool_count=len(catalog.tools(server)), seconds=seconds))

    return step


def refresh_report(servers: Sequence[str], catalog: Catalog, mask: Callable[[str], str]) -> RefreshReport:
    """What the catalog holds for each of `servers` after their refresh: its tool count, or why it failed."""
    outcomes = tuple(
        RefreshOutcome(name, None, mask(failure))
        if (failure := catalog.failure(name)) is not None
        else RefreshOutcome(name, len(catalog.tools(name)), None)
        for name in servers
    )
    return RefreshReport(outcomes, catalog.notice)
