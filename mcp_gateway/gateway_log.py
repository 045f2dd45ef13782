"""The gateway's own logging: warnings to stderr, and with `debug` everything to `logs/gateway.log`, masked.

Libraries log what they see: the SDK logs the URL it connects to and httpx every request line, `?key=` query
included. So each of the gateway's handlers carries a `MaskingFilter` that passes the whole record (message,
traceback, stack) through the gateway's `SecretMask` before anything is formatted. gateway.log is private:
created 0600 (an existing one is tightened through the open descriptor), appended to, and opened as
`workspace_files` says: never through a link (a link planted in the logs directory must not make the gateway
write elsewhere), never blocking on a FIFO planted there.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from pathlib import Path
from typing import TextIO

from mcp_gateway.errors import UnusableFileError
from mcp_gateway.masking import SecretMask
from mcp_gateway.paths import FILE_MODE
from mcp_gateway.workspace_files import open_append, open_directory

CONSOLE_FORMAT = "mcp-gateway: %(levelname)s %(name)s: %(message)s"
FILE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

_TRACEBACKS = logging.Formatter()


class MaskingFilter(logging.Filter):
    """Masks a record in place, once its message is merged with its arguments, for every handler after it."""

    def __init__(self, secrets: SecretMask) -> None:
        super().__init__()
        self._secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed call (arguments that do not fit): keep the template, drop the arguments
            message = str(record.msg)
        record.msg = self._secrets.mask(message)
        record.args = None
        if record.exc_info is not None and record.exc_text is None:
            record.exc_text = _TRACEBACKS.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self._secrets.mask(record.exc_text)
        if record.stack_info:
            record.stack_info = self._secrets.mask(record.stack_info)
        return True


class PrivateFileHandler(logging.StreamHandler[TextIO]):
    """Appends to a private regular file, never reached through a symlink.

    Raises:
        OSError: the file cannot be opened so (a link, a FIFO or no regular file in its place), or made private.
    """

    def __init__(self, path: Path) -> None:
        try:
            with open_directory(path.parent) as directory:
                fd = open_append(path.name, directory)
        except UnusableFileError as exc:
            raise OSError(f"{path.parent / exc.path} {exc.problem}") from exc
        try:
            os.fchmod(fd, FILE_MODE)
            stream = os.fdopen(fd, "a", encoding="utf-8", errors="replace")
        except Exception:
            os.close(fd)
            raise
        super().__init__(stream)

    def close(self) -> None:
        self.acquire()
        try:
            with contextlib.suppress(OSError):
                self.flush()
            self.stream.close()
        finally:
            self.release()
        super().close()


class _Console(logging.StreamHandler[TextIO]):
    """The stderr handler the gateway installs (one at a time)."""


def log_to_stderr(secrets: SecretMask) -> None:
    """Warnings and worse to stderr (clients show it in their MCP logs), masked; replaces an earlier call's."""
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, _Console)]:
        root.removeHandler(handler)
    console = _Console(sys.stderr)
    console.setLevel(logging.WARNING)
    console.setFormatter(logging.Formatter(CONSOLE_FORMAT))
    console.addFilter(MaskingFilter(secrets))
    root.addHandler(console)


def log_to_file(path: Path, secrets: SecretMask) -> None:
    """Everything, debug included, to the private file at `path`, masked; a warning when it cannot be opened."""
    try:
        handler = PrivateFileHandler(path)
    except OSError as error:
        logging.getLogger(__name__).warning(
            "cannot write the debug log %s (%s); remove whatever is in its place, or turn debug off", path, error
        )
        return
    handler.setFormatter(logging.Formatter(FILE_FORMAT))
    handler.addFilter(MaskingFilter(secrets))
    root = logging.getLogger()
    root.setLevel(logging.DEBUG)
    root.addHandler(handler)
