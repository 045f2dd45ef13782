"""The private runtime directory is swept of what no daemon will use, and of nothing else."""

from __future__ import annotations

import fcntl
import os
import socket
import time
from pathlib import Path

from mcp_gateway.front.rendezvous import STALE_SECONDS, sweep

OLD = time.time() - 2 * STALE_SECONDS


def touch(path: Path, *, old: bool = False) -> Path:
    path.write_text("x")
    if old:
        os.utime(path, (OLD, OLD))
    return path


def dead_socket(path: Path) -> Path:
    """A socket file whose daemon is gone (bound, then closed without removing it)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    sock.close()
    return path


def test_what_no_daemon_will_use_goes_and_the_rest_stays(tmp_path: Path) -> None:
    # A workspace whose daemon died a while ago: all its files go.
    dead_socket(tmp_path / "aaaa.sock")
    touch(tmp_path / "aaaa.lock", old=True)
    touch(tmp_path / "aaaa.handshake", old=True)
    # A workspace whose daemon runs: nothing of it goes, however old.
    live = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    live.bind(str(tmp_path / "bbbb.sock"))
    live.listen(1)
    touch(tmp_path / "bbbb.lock", old=True)
    touch(tmp_path / "bbbb.handshake", old=True)
    # One used today without a daemon now: its socket goes, its handshake stays to spare the next cold start.
    dead_socket(tmp_path / "cccc.sock")
    touch(tmp_path / "cccc.handshake")
    # One whose daemon is being started right now: its start lock is held, so its socket is not stale.
    dead_socket(tmp_path / "dddd.sock")
    held = os.open(touch(tmp_path / "dddd.lock", old=True), os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)
    # The remembered default workspace paths and a dead writer's temporary file, old and new.
    touch(tmp_path / "default-0123.path", old=True)
    touch(tmp_path / "default-4567.path")
    touch(tmp_path / "eeee.handshake.4242.tmp", old=True)
    touch(tmp_path / "someone-elses.txt", old=True)
    try:
        removed = sweep(tmp_path)
    finally:
        live.close()
        os.close(held)

    assert sorted(removed) == [
        "aaaa.handshake",
        "aaaa.lock",
        "aaaa.sock",
        "cccc.sock",
        "default-0123.path",
        "eeee.handshake.4242.tmp",
    ]
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "bbbb.handshake",
        "bbbb.lock",
        "bbbb.sock",
        "cccc.handshake",
        "dddd.lock",
        "dddd.sock",
        "default-4567.path",
        "someone-elses.txt",
    ]
