"""How connections reach a daemon: the workspace's socket (`ListeningDoor`) or a private daemon's one inherited
connection (`PrivateDoor`); either way, only from this user (`same_user`).

The listening door accepts each front in a task of its own and never lets `accept` end the daemon: out of
descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM) it waits and tries again, a connection gone before it
was accepted is skipped; and the daemon raises its own soft descriptor limit (`raise_descriptor_limit`). The
private door keeps its connection open until the daemon is done, so the front leaves once every server of its
session has stopped, and tells a front that is gone (exited: a hang-up) from one that only stopped writing
(its client closed stdin and it waits for the rest): the first makes the stop urgent.
Light: the standard library and anyio only, as the daemon's first steps are.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import select
import socket
import struct
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from mcp_gateway.line_bounds import MAX_PRIVATE_LINE_BYTES, MAX_SHARED_LINE_BYTES

logger = logging.getLogger(__name__)

SOCKET_MODE = 0o600
LISTEN_BACKLOG = 128
"""Fronts that may wait to be accepted: twenty sessions of a workspace starting at once fit many times."""
BUSY_ACCEPT_ERRORS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
"""What `accept` says when the process or system is out of descriptors or memory: a reason to wait, not to end."""
LOST_ACCEPT_ERRORS = frozenset({errno.ECONNABORTED, errno.EPROTO})
"""A connection that went away before it was accepted: nothing to serve, and nothing wrong with the door."""
ACCEPT_BACKOFF_SECONDS = (0.01, 1.0)
"""The first and the longest wait before `accept` is tried again after one of those."""
DESCRIPTOR_LIMIT = 8192
"""The soft limit on open descriptors the daemon raises itself to, within the hard limit: a session holds two or
three (its connection), each server it uses about three (macOS starts processes at 256)."""
FRONT_WATCH_SECONDS = 0.02
"""How often a private daemon whose session ended looks whether its front is gone, while it stops its servers."""


class Door:
    """How connections reach a daemon: what both doors share, and the shared door's defaults."""

    socket_path: Path | None = None
    """Where fronts connect: None for a private door."""
    max_line_bytes = MAX_SHARED_LINE_BYTES

    async def accept_each(self, welcome: Callable[[anyio.abc.SocketStream], Coroutine[Any, Any, None]]) -> None:
        """Hand each connection to `welcome`, each in a task of its own, until cancelled (or, for a private
        door, until its one connection has been handed over)."""
        raise NotImplementedError

    def session_ended(self, hurry: Callable[[], None]) -> bool:
        """A session is over; whether that ends serving (a private door's only one: `hurry` is called if its
        front is gone). Other sessions may use what this one used: nothing to hurry."""
        return False

    async def watch(self, hurry: Callable[[], None]) -> None:
        """Until cancelled: call `hurry` once the front of a private door's ended session goes away."""
        await anyio.sleep_forever()

    def close(self) -> None:
        raise NotImplementedError


class ListeningDoor(Door):
    """The workspace's socket, where every front of the workspace connects."""

    def __init__(self, path: Path) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(os.fspath(path))
            os.chmod(path, SOCKET_MODE)
            sock.listen(LISTEN_BACKLOG)
        except OSError:
            sock.close()
            raise
        self._socket = sock
        self._path = self.socket_path = path

    async def accept_each(self, welcome: Callable[[anyio.abc.SocketStream], Coroutine[Any, Any, None]]) -> None:
        listener = await anyio.abc.SocketListener.from_socket(self._socket)
        backoff = ACCEPT_BACKOFF_SECONDS[0]
        async with anyio.create_task_group() as connections:
            while True:
                try:
                    stream = await listener.accept()
                except (OSError, anyio.BrokenResourceError) as error:
                    failed = _accept_errno(error)
                    if failed in LOST_ACCEPT_ERRORS:
                        continue
                    if failed not in BUSY_ACCEPT_ERRORS:
                        raise
                    logger.warning("could not accept a session (%s); trying again in %gs", os.strerror(failed), backoff)
                    await anyio.sleep(backoff)
                    backoff = min(backoff * 2, ACCEPT_BACKOFF_SECONDS[1])
                    continue
                backoff = ACCEPT_BACKOFF_SECONDS[0]
                connections.start_soon(welcome, stream)

    def close(self) -> None:
        # Before the servers stop: a front arriving now starts a fresh daemon.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._path)
        self._socket.close()


class PrivateDoor(Door):
    """The one connection a private daemon inherited from its front, kept open until the daemon is done: the
    front leaves once every server of its session has stopped."""

    max_line_bytes = MAX_PRIVATE_LINE_BYTES

    def __init__(self, fd: int) -> None:
        self._socket = socket.socket(fileno=fd)
        self._ended = anyio.Event()

    async def accept_each(self, welcome: Callable[[anyio.abc.SocketStream], Coroutine[Any, Any, None]]) -> None:
        # The stream owns a duplicate, so that closing it (as every session's end does) leaves the front
        # connected until `close`.
        stream = await anyio.abc.UNIXSocketStream.from_socket(self._socket.dup())
        await welcome(stream)

    def session_ended(self, hurry: Callable[[], None]) -> bool:
        self._ended.set()
        if self.front_gone():
            hurry()
        return True

    async def watch(self, hurry: Callable[[], None]) -> None:
        await self._ended.wait()
        # Polled: past its end the socket is always readable, and a hang-up has no event of its own here.
        while not self.front_gone():  # noqa: ASYNC110
            await anyio.sleep(FRONT_WATCH_SECONDS)
        hurry()

    def front_gone(self) -> bool:
        """Whether the front has closed its end entirely (it exited), not only stopped writing (its client
        closed stdin and it waits for the rest): the kernel reports the former as a hang-up."""
        poller = select.poll()
        poller.register(self._socket.fileno(), select.POLLIN | select.POLLHUP)
        return any(events & (select.POLLHUP | select.POLLERR) for _, events in poller.poll(0))

    def close(self) -> None:
        self._socket.close()


def _accept_errno(error: BaseException) -> int | None:
    """The errno `accept` failed with: anyio wraps the OSError in a `BrokenResourceError`."""
    cause = error if isinstance(error, OSError) else error.__cause__
    return cause.errno if isinstance(cause, OSError) else None


def raise_descriptor_limit() -> None:
    """Raise this process's soft limit on open descriptors towards `DESCRIPTOR_LIMIT`, within the hard limit."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = DESCRIPTOR_LIMIT if hard == resource.RLIM_INFINITY else min(DESCRIPTOR_LIMIT, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


_UCRED = struct.Struct("3i")
"""Linux `struct ucred`: pid, uid, gid."""
_SOL_LOCAL = 0
_LOCAL_PEERCRED = 0x001
_XUCRED = struct.Struct("Ii16I")
"""BSD `struct xucred`: version, uid, the group count, the groups."""


def same_user(sock: socket.socket) -> bool:
    """Whether the process at the other end of `sock` is this user's; a platform that cannot say is refused
    rather than trusted. The runtime directory is private already: this is the second lock on the door, for a
    directory made reachable by mistake (a group-writable `XDG_RUNTIME_DIR`, a bind mount)."""
    if sys.platform.startswith("linux"):
        _pid, uid, _gid = _UCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size))
    elif sys.platform == "darwin" or "bsd" in sys.platform:
        uid = _XUCRED.unpack(sock.getsockopt(_SOL_LOCAL, _LOCAL_PEERCRED, _XUCRED.size))[1]
    else:
        return False
    return uid == os.getuid()
