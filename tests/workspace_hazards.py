"""What a hostile or broken workspace holds, for the tests of how the gateway treats its files.

Imported by tests as `workspace_hazards`. A FIFO or a device where a file should be would block a careless
reader for ever, so every call that could block runs through `bounded`: a regression fails the test
instead of hanging the suite, and `release_fifo` frees a reader that did block.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

BLOCK_BOUND_SECONDS = 10.0
"""Far longer than any of these calls takes (milliseconds); reaching it means the call blocked."""

_T = TypeVar("_T")


def bounded(call: Callable[[], _T], seconds: float = BLOCK_BOUND_SECONDS) -> _T:
    """`call()`, run in a daemon thread; AssertionError when it has not returned within `seconds`."""
    outcome: list[_T] = []
    failure: list[Exception] = []
    done = threading.Event()

    def run() -> None:
        try:
            outcome.append(call())
        except Exception as exc:
            failure.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, daemon=True).start()
    if not done.wait(seconds):
        raise AssertionError(f"the call blocked for {seconds:g} s (a FIFO or device read as a file?)")
    if failure:
        raise failure[0]
    return outcome[0]


def plant_fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def release_fifo(path: Path) -> None:
    """Give a reader blocked opening the FIFO at `path` a writer that leaves at once (it then reads EOF)."""
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


@dataclass(frozen=True)
class Outside:
    """A file outside the workspace that a link planted inside it points to: it must never change."""

    path: Path
    content: bytes
    mode: int

    def assert_untouched(self) -> None:
        assert self.path.read_bytes() == self.content, f"{self.path} was written through a link"
        assert stat.S_IMODE(self.path.stat().st_mode) == self.mode, f"{self.path} was chmodded through a link"


def plant_link(link: Path, outside_dir: Path, content: bytes = b"not the gateway's\n", mode: int = 0o644) -> Outside:
    """A symbolic link at `link` to a new file in `outside_dir` with `content` and `mode`."""
    outside_dir.mkdir(parents=True, exist_ok=True)
    target = outside_dir / f"target-of-{link.name}"
    target.write_bytes(content)
    target.chmod(mode)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    return Outside(target, content, mode)


def dead_pid() -> int:
    """The pid of a process that has exited and been reaped: what a SIGKILLed writer leaves in a temp name."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid
