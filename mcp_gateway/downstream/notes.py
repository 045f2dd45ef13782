"""What the gateway says about one downstream server (started, stopped, failed, retired), through `logging`.

Every diagnostic of the gateway goes through `logging`, and handlers decide where it lands. A note about a
server is a record of the `mcp_gateway.servers` logger carrying the server's name and its pool: the pool's
`ServerLogHandler` writes it into that server's own log (`logs/<server>.stderr.log`, next to what the server
itself printed), and like any record it also reaches the gateway's log with `debug` on. Notes are INFO, below what
the terminal shows, so a client's MCP log is not filled with them: a failed start already reaches the caller
as the call's error and `status` as the server's last error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from mcp_gateway.downstream.stderr_log import StderrLog

logger = logging.getLogger("mcp_gateway.servers")
logger.setLevel(logging.INFO)  # notes are kept in each server's log whatever the gateway's own level is

_SERVER = "mcp_server"
_POOL = "mcp_pool"


class ServerNotes:
    """The notes of one server of one pool."""

    def __init__(self, server: str, pool: object) -> None:
        self._extra = {_SERVER: server, _POOL: id(pool)}

    def info(self, text: str) -> None:
        logger.info("%s", text, extra=self._extra)


class ServerLogHandler(logging.Handler):
    """Writes the notes of one pool's servers into each server's own log."""

    def __init__(self, pool: object, log_for: Callable[[str], StderrLog]) -> None:
        super().__init__(logging.INFO)
        self._pool = id(pool)
        self._log_for = log_for

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, _POOL, None) != self._pool:
            return
        server = getattr(record, _SERVER, None)
        if isinstance(server, str):
            self._log_for(server).note(record.getMessage())
