"""The serving process, in the order that answers the client first.

A client waits for `tools/list` at the start of every session, and importing the MCP SDK is most of a
start. So the server begins with what its handshake needs and nothing more: the config (already loaded by
the command line), then `ClientLines` reading stdin with `EarlyAnswers` answering `initialize` and
`tools/list`. The main thread waits (idle, leaving the CPU to those answers) until that handshake is over
or `HANDSHAKE_WAIT_SECONDS` have passed, and only then imports the SDK, the service behind it and the
event loop, and serves, the session taking over every line read so far (`app.run_until_stopped`).

A stop signal that arrives before the event loop watches for it ends the process at once with status 0:
nothing has been started yet that would need stopping (no downstream server, no record, no cache write),
and a client that read its tools and leaves (`claude mcp list`) must not wait for the imports.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from types import FrameType
from typing import NoReturn

from mcp_gateway.config import GatewayConfig
from mcp_gateway.front.client_lines import ClientLines
from mcp_gateway.front.early_answers import EarlyAnswers, Handshake
from mcp_gateway.service.handshake_text import handshake_instructions
from mcp_gateway.service.surface import meta_tool_definitions

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
HANDSHAKE_WAIT_SECONDS = 0.5
"""Longest the imports wait for the client's handshake. Clients send `initialize` at spawn and `tools/list`
as soon as it is answered (the SDK's client within 0.1 to 2 ms, measured at a load of 4.7 on 2 CPUs); past
this the imports begin anyway and the early answers share the interpreter with them."""
STOPPED_EARLY_STATUS = 0
"""A stop before serving began is an orderly one: there was nothing to stop."""


def serve(
    home: str | None,
    config: GatewayConfig,
    leave: Callable[[int], NoReturn],
    *,
    shared: bool = False,
    lines: ClientLines | None = None,
) -> int:
    """Serve MCP over stdio until the client leaves; the exit status (`leave` ends the process at once).

    `shared`: through the workspace's daemon, started now if none runs (the client's handshake is answered
    early meanwhile, as for a standalone start); standalone when no daemon can be had. `lines`: the client's
    lines, already being read by a session front whose daemon failed (its early answers, the same handshake).
    """
    # Before the first answer: a client may leave as soon as it has one (`claude mcp list`).
    _leave_on_stop_signals(leave)
    handshake = Handshake(handshake_instructions(home, config), meta_tool_definitions())
    if lines is None:
        lines = ClientLines.on_stdio(EarlyAnswers(handshake))
    if shared:
        from mcp_gateway.front.launch import daemon_session

        through_daemon = daemon_session(home)
        if through_daemon is not None:
            return through_daemon(lines)
    lines.handshake_over.wait(HANDSHAKE_WAIT_SECONDS)
    # Everything below is imported only now: the SDK, the service with the pool, catalog and search.
    import anyio

    from mcp_gateway.server.app import run_until_stopped

    return anyio.run(run_until_stopped, home, config, leave, lines, handshake)


def _leave_on_stop_signals(leave: Callable[[int], NoReturn]) -> None:
    """Until the event loop installs its own handlers (`app.run_until_stopped`), a stop signal ends the process."""

    def stop_now(signum: int, frame: FrameType | None) -> None:
        leave(STOPPED_EARLY_STATUS)

    for stop in STOP_SIGNALS:
        signal.signal(stop, stop_now)
