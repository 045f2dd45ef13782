"""A reader that leaves early (`mcp-gateway search x | head -1`): the command ends quietly, as `cat` does.

Python ignores SIGPIPE, so a write to a pipe whose reader is gone raises BrokenPipeError, and the flush at
exit fails once more: a traceback and an "Exception ignored" for what is an ordinary end. Letting SIGPIPE
kill the process instead would end it mid-write, with the downstream servers it started still running; as
an exception it unwinds through the command like any other, and those servers are stopped on the way out.

Then stdout is pointed at /dev/null, so that the interpreter's last flush has somewhere to go, and the
exit status is the one a shell reports for a command SIGPIPE ended (`yes | head -1`): a script under
`set -o pipefail` learns that not everything was read, as it would from any other command, and without
pipefail the pipeline's status is the reader's. Only a broken stdout counts: a BrokenPipeError from any
other pipe is a failure and keeps its traceback. `--help` and `--version` keep argparse's status, 0:
argparse ignores a failed write of their text itself.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
from collections.abc import Generator

READER_LEFT_STATUS = 128 + signal.SIGPIPE
"""141: a shell's status for a process SIGPIPE ended."""
STDOUT = 1


def reader_left(error: BaseException) -> bool:
    """Whether `error` is stdout's reader having left: a BrokenPipeError (alone, or every error of a task
    group's) while stdout is a pipe with no reader."""
    return _only_broken_pipes(error) and _stdout_has_no_reader()


@contextlib.contextmanager
def reader_may_leave() -> Generator[None]:
    """Stdout written in this block may find its reader gone: then what is left is dropped, quietly."""
    try:
        yield
    except BrokenPipeError as error:
        if not reader_left(error):
            raise
        quiet_stdout()


def quiet_stdout() -> None:
    """Point stdout at /dev/null: what is still buffered, and anything printed later, is dropped."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, STDOUT)
    finally:
        os.close(devnull)


def _only_broken_pipes(error: BaseException) -> bool:
    if isinstance(error, BaseExceptionGroup):
        group: BaseExceptionGroup[BaseException] = error  # pyright: ignore[reportUnknownVariableType]
        return all(_only_broken_pipes(inner) for inner in group.exceptions)
    return isinstance(error, BrokenPipeError)


def _stdout_has_no_reader() -> bool:
    """A pipe whose read end is closed polls as an error for its writer (POLLERR), a socket whose peer
    left as a hang-up (POLLHUP). Where neither is reported, the traceback stays: nothing is hidden."""
    poller = select.poll()
    poller.register(STDOUT, 0)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))
