"""A downstream server's stderr, kept in `logs/<server>.stderr.log`, capped and rotated.

A stdio server's stderr must never reach the AI client's stderr (clients show it as gateway noise, and
some treat it as an error), yet it is the first thing a user needs when a server misbehaves. So each
server gets its own file, rotated to `.1` at `MAX_LOG_BYTES`, and the values of the secrets the gateway
itself handed the server (its configured env values and header values) are masked before writing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

from mcp_gateway.paths import FILE_MODE

MAX_LOG_BYTES = 1024 * 1024
MAX_LINE_CHARS = 8192
"""Longer lines are cut: one runaway line must not rotate away everything before it."""
MIN_SECRET_CHARS = 6
"""Shorter configured values (ports, flags like "1") are too common in ordinary text to mask."""
MASK = "***"


class StderrLog:
    def __init__(self, path: Path, secrets: Iterable[str] = ()) -> None:
        self._path = path
        # Lines are masked without their newline, so surrounding whitespace must not be part of a secret.
        cleaned = {secret.strip() for secret in secrets}
        self._secrets = sorted({s for s in cleaned if len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True)
        self._longest_secret = len(self._secrets[0]) if self._secrets else 0
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
            masked = self._mask(self._pending)
            keep = self._longest_secret - 1
            head, self._pending = (masked[:-keep], masked[-keep:]) if keep > 0 else (masked, "")
            self._write_line(head)

    def flush(self) -> None:
        if self._pending:
            self._write_line(self._pending)
            self._pending = ""

    def _mask(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, MASK)
        return text

    def _write_line(self, line: str) -> None:
        line = self._mask(line)  # before cutting, so a secret straddling the cut cannot leak its beginning
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + " …[cut]"
        data = (line + "\n").encode("utf-8", errors="replace")
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
