"""logs/audit.jsonl, written off the event loop: a bounded queue drained by one writer thread.

`write` never blocks and never raises: a call is never slowed or failed by its audit. The writer makes each
call's line (`record.line_of`) and appends a batch at a time to the file, opened as every workspace file is
(`workspace_files.open_append`: private, never through a link, in the logs directory held by its descriptor).
Before a batch would take the file past `max_bytes` it is rotated (`audit.jsonl.1` … `.<keep>`, the oldest
dropped); two gateways rotating at once at worst rotate twice, and lose no line. A file that cannot be written
(a full disk, a link or a directory in its place, no permission) loses its lines and is said once through
`on_problem`, and said to be fixed (`on_problem(None)`) when a write succeeds again. A queue full (a disk far
slower than the calls) drops lines, counted in the log.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path

from mcp_gateway.audit.record import AuditedCall, line_of
from mcp_gateway.errors import UnusableFileError
from mcp_gateway.masking import SecretMask
from mcp_gateway.workspace_files import open_append, open_directory, rotate

logger = logging.getLogger(__name__)

AUDIT_FILE = "audit.jsonl"
MAX_FILE_BYTES = 10 * 1024 * 1024
KEEP_FILES = 5
"""Rotated files kept beside audit.jsonl: with it, at most 60 MB of calls."""
MAX_QUEUED = 256
"""Calls waiting for their line: each holds its arguments and result until it is written, so a disk that hangs
must not let them pile up; a healthy writer drains a batch in milliseconds."""
MAX_BATCH = 200
GATHER_SECONDS = 0.25
"""How long the writer gathers lines after the first: woken and writing once per call, its thread took the
interpreter from the event loop at every call (about 30 µs of the daemon's time per warm echo, in py-spy's
samples; a tenth of that gathered)."""
CLOSE_SECONDS = 1.0
"""How long a stopping gateway waits for the lines still queued: a client kills it soon after asking it to stop."""


class AuditTrail:
    def __init__(
        self,
        directory: Path,
        secrets: SecretMask,
        on_problem: Callable[[str | None], None] = lambda problem: None,
        *,
        max_bytes: int = MAX_FILE_BYTES,
        keep: int = KEEP_FILES,
    ) -> None:
        """`on_problem` is called in the writer's thread: with why the file cannot be written, then None once it
        can again."""
        self.path = directory / AUDIT_FILE
        self._directory = directory
        self._secrets = secrets
        self._on_problem = on_problem
        self._max_bytes = max_bytes
        self._keep = keep
        self._queue: queue.Queue[AuditedCall | None] = queue.Queue(MAX_QUEUED)
        self._thread: threading.Thread | None = None
        self._starting = threading.Lock()
        self._failing = False
        self._dropped = 0

    def write(self, call: AuditedCall) -> None:
        """Queue `call`'s line; never blocks, never raises."""
        try:
            self._queue.put_nowait(call)
        except queue.Full:
            self._dropped += 1
            if self._dropped == 1 or self._dropped % MAX_QUEUED == 0:
                logger.warning(
                    "%d audited calls dropped: %s is written more slowly than calls come", self._dropped, self.path
                )
            return
        if self._thread is None:
            with self._starting:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="mcp-gateway audit", daemon=True)
                    self._thread.start()

    def close(self, timeout: float = CLOSE_SECONDS) -> None:
        """Write what is queued (for at most `timeout` seconds), then stop the writer (blocking: a worker thread)."""
        thread = self._thread
        if thread is None:
            return
        try:
            self._queue.put(None, timeout=timeout)
        except queue.Full:
            return
        thread.join(timeout)
        with self._starting:
            if self._thread is thread and not thread.is_alive():
                self._thread = None  # a write after this starts a writer again

    def _run(self) -> None:
        while True:
            batch = [self._queue.get()]
            if batch[0] is not None:
                time.sleep(GATHER_SECONDS)  # the calls of a busy moment, gathered: one wake-up and one write
            while len(batch) < MAX_BATCH:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            calls = [call for call in batch if call is not None]
            if calls:
                self._append(b"".join(map(self._line, calls)))
            if len(calls) < len(batch):
                return

    def _line(self, call: AuditedCall) -> bytes:
        try:
            return (json.dumps(line_of(call, self._secrets), ensure_ascii=False) + "\n").encode()
        except (ValueError, TypeError, RecursionError) as error:  # a result no JSON could hold: its size unknown
            logger.warning("an audit line of %s could not be made: %r", call.name, error)
            return b""

    def _append(self, data: bytes) -> None:
        try:
            with open_directory(self._directory) as directory:
                fd = open_append(AUDIT_FILE, directory)
                try:
                    size = os.fstat(fd).st_size
                    if size and size + len(data) > self._max_bytes:
                        os.close(fd)
                        fd = -1
                        rotate(AUDIT_FILE, self._keep, directory)
                        fd = open_append(AUDIT_FILE, directory)
                    _write_all(fd, data)
                finally:
                    if fd >= 0:
                        os.close(fd)
        except (OSError, UnusableFileError) as error:
            if not self._failing:
                self._failing = True
                self._said(self._problem(error))
            return
        if self._failing:
            self._failing = False
            self._said(None)

    def _problem(self, error: OSError | UnusableFileError) -> str:
        if isinstance(error, UnusableFileError):
            why, fix = f"it {error.problem}", "move it away"
        elif error.errno in (errno.ENOSPC, errno.EDQUOT):
            why, fix = "the disk is full", "free some space"
        else:
            why, fix = error.strerror or type(error).__name__, "make it a writable file in a writable directory"
        return f"{self.path} cannot be written ({why}), so calls are not recorded in the audit trail; {fix}"

    def _said(self, problem: str | None) -> None:
        if problem is not None:
            logger.warning("%s", problem)
        try:
            self._on_problem(problem)
        except Exception:  # saying it failed too: the log has it
            logger.exception("could not report the audit trail's state")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
