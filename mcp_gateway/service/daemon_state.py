"""The daemon keeps its state file (`run/daemon-<pid>.state`) true for as long as it runs, and removes it as it leaves.

The file is written at once when a session opens, closes or says who it is, and otherwise at most every
`STATE_INTERVAL_SECONDS` while anything in it changes (calls in flight, a server starting or stopping): the
state is sampled each interval and written only when it differs from what was last written. Every write
happens in a worker thread, one at a time, so the event loop never waits for the disk. Before the first
write, the files of daemons that no longer run are removed. The file is removed when the daemon stops
(its grace is over or it was signalled); a SIGKILLed daemon's file stays, and `status` tells it is stale
(see `daemon_files.runs`). A write that fails is logged once and loses only what `status` can show.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from pathlib import Path

import anyio
import anyio.to_thread

from mcp_gateway import __version__
from mcp_gateway.downstream.processes import start_time
from mcp_gateway.service.daemon_files import remove_stale, remove_state, write_state
from mcp_gateway.service.daemon_gateway import DaemonGateway
from mcp_gateway.service.daemon_record import DaemonState

logger = logging.getLogger(__name__)

STATE_INTERVAL_SECONDS = 1.0
"""How stale the calls in flight that `status` shows may be: a person reads them, a second is current enough,
and a busy daemon writes its file at most once a second for them."""


class StateWriter:
    def __init__(self, gateway: DaemonGateway, socket: Path, front_protocol: int, grace_seconds: float) -> None:
        self._gateway = gateway
        self._directory = gateway.workspace.process_records_dir
        self._socket = socket
        self._front_protocol = front_protocol
        self._grace_seconds = grace_seconds
        self._pid = os.getpid()
        self._start: float | None = None
        self._failed = False

    async def run(self) -> None:
        """Keep the file current until cancelled, then remove it."""
        try:
            self._start = await anyio.to_thread.run_sync(start_time, self._pid)
            await anyio.to_thread.run_sync(remove_stale, self._directory)
            written: DaemonState | None = None
            while True:
                state = self.snapshot()
                if written is None or dataclasses.replace(state, written_at=written.written_at) != written:
                    await self._write(state)
                    written = state
                with anyio.move_on_after(STATE_INTERVAL_SECONDS):
                    await self._gateway.sessions.changed()
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(remove_state, self._directory, self._pid)

    def snapshot(self) -> DaemonState:
        sessions = self._gateway.sessions
        return DaemonState(
            pid=self._pid,
            start=self._start,
            version=__version__,
            front_protocol=self._front_protocol,
            socket=os.fspath(self._socket),
            grace_seconds=self._grace_seconds,
            idle_since=sessions.idle_since,
            written_at=time.time(),
            sessions=tuple(
                dataclasses.replace(
                    entry,
                    client_name=_masked(self._gateway, entry.client_name),
                    client_version=_masked(self._gateway, entry.client_version),
                )
                for entry in sessions.entries()
            ),
            processes=self._gateway.processes(),
        )

    async def _write(self, state: DaemonState) -> None:
        try:
            await anyio.to_thread.run_sync(write_state, self._directory, state)
        except OSError as error:
            if not self._failed:
                self._failed = True
                logger.warning(
                    "could not write the daemon's state in %s (%s), so `mcp-gateway status` cannot show its "
                    "sessions; make it a writable directory",
                    self._directory,
                    error,
                )


def _masked(gateway: DaemonGateway, text: str | None) -> str | None:
    """A client's words, masked as every text the gateway writes is (a name is no secret, but who knows)."""
    return None if text is None else gateway.mask(text)
