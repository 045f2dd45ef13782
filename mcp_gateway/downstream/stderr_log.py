"""A downstream server's stderr, kept in `logs/<server>.stderr.log`, capped and rotated.

A stdio server's stderr must never reach the AI client's stderr (clients show it as gateway noise, and
some treat it as an error), yet it is the first thing a user needs when a server misbehaves. So each
server gets its own file, rotated to `.1` at `MAX_LOG_BYTES`, and every line (the server's own and the
gateway's notes about it) passes through the gateway's `SecretMask` before it is written.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from mcp_gateway.masking import SecretMask
from mcp_gateway.paths import FILE_MODE

MAX_LOG_BYTES = 1024 * 1024
MAX_LINE_CHARS = 8192
"""Longer lines are cut: one runaway line must not rotate away everything before it."""


class StderrLog:
    def __init__(self, path: Path, secrets: SecretMask | None = None) -> None:
        self._path = path
        self._secrets = secrets if secrets is not None else SecretMask()
        self._pending = ""

    @property
    def path(self) -> Path:
        return self._path

    def note(self, text: str) -> None:
        """A line from the gateway itself about this server (start, exit, ignored stdout noise)."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        self._write_line(f"[mcp-gateway {stamp}] {text}")

    def feed(self, chunk: str) -> None:
        """Append raw stderr text; complete lines are written, a partial line waits for its end.

        A runaway line (no newline past `MAX_LINE_CHARS`) is written in pieces, masked first and keeping back
        enough of its end that a secret arriving across the break is still whole when it is masked.
        """
        lines = (self._pending + chunk).split("\n")
        self._pending = lines.pop()
        for line in lines:
            self._write_line(line)
        if len(self._pending) > MAX_LINE_CHARS:
            masked = self._secrets.mask(self._pending)
            keep = self._secrets.longest - 1
            head, self._pending = (masked[:-keep], masked[-keep:]) if keep > 0 else (masked, "")
            self._write_line(head)

    def flush(self) -> None:
        if self._pending:
            self._write_line(self._pending)
            self._pending = ""

    def _write_line(self, line: str) -> None:
        # Only what can be kept is masked (a megabyte line costs no more than a full one), with one secret's
        # length beyond the cut, so a secret straddling the cut is masked whole and not even its start is kept.
        reach = MAX_LINE_CHARS + self._secrets.longest
        kept = self._secrets.mask(line[:reach])
        if len(kept) > MAX_LINE_CHARS or len(line) > reach:
            kept = kept[:MAX_LINE_CHARS] + " …[cut]"
        data = (kept + "\n").encode("utf-8", errors="replace")
        try:
            self._rotate_if_needed(len(data))
            fd = os.open(self._path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        except OSError:
            pass  # a full disk or a removed logs directory must never take the server down with it

    def _rotate_if_needed(self, incoming: int) -> None:
        try:
            size = self._path.stat().st_size
        except FileNotFoundError:
            return
        if size + incoming > MAX_LOG_BYTES:
            os.replace(self._path, self._path.with_name(self._path.name + ".1"))
