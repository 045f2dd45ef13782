"""Where a session front finds its workspace's daemon, and how exactly one daemon gets started.

Standard library only: a client's session front imports this before anything else, and with a daemon
running it imports nothing more (see `front`).

- The socket lives in a private runtime directory found from the user id alone: `/run/user/<uid>/mcp-gateway`
  where the system keeps a runtime directory for the user (Linux with systemd), else `/tmp/mcp-gateway-<uid>`.
  Not from `XDG_RUNTIME_DIR` or `TMPDIR`: clients start their servers with environments of their own (Claude
  Code has been seen to start one session's gateway with and without both), and every session of the user
  must meet in one place. `MCP_GATEWAY_RUNTIME_DIR` names another directory, for whoever sets it for every
  client alike (tests do). The directory must be ours, mode 0700 and not a link: in a shared `/tmp` anyone
  could otherwise plant a socket a front would talk to. When it is not, the front serves standalone and
  says why.
- A socket's name is a digest of the workspace's real path, the gateway's version and the front↔daemon
  protocol: fronts of another version find another daemon (each leaves when its last session does), so two
  versions never talk past each other, and the name stays within the 104-byte limit of a Unix socket path.
- Starting is race-free by a lock file next to the socket (`flock`): the front that cannot connect takes
  it, tries again (another front may have started the daemon meanwhile), and only then removes a stale
  socket and starts a daemon, holding the lock until the daemon accepts. Twenty fronts at once start one.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import importlib
import os
import socket
import stat
import time
from collections.abc import Callable, Generator, Mapping
from pathlib import Path
from typing import Any, cast

from mcp_gateway import __version__

RUNTIME_DIR_ENV = "MCP_GATEWAY_RUNTIME_DIR"
SYSTEM_RUNTIME_ROOT = "/run/user"
"""Where systemd keeps each logged-in user's runtime directory (`/run/user/<uid>`, what XDG_RUNTIME_DIR names)."""
SHARED_TMP = "/tmp"
"""Not `tempfile.gettempdir()`: it follows TMPDIR, which differs between a user's clients (macOS gives each
user one, and clients set their own)."""
FRONT_PROTOCOL = 1
"""The version of what a front and a daemon say to each other (`hello`): part of the socket's name."""
DIR_MODE = 0o700
LOCK_MODE = 0o600
START_SECONDS = 20.0
"""How long a front waits for the daemon it started to accept: a cold start imports the SDK (about 0.6 s
on an idle machine) and reads the catalog; a loaded 2-CPU machine has been seen to take ten times that."""
POLL_SECONDS = 0.01
"""How often a waiting front looks again (the lock, the socket): short against a daemon start."""
MAX_SOCKET_PATH_BYTES = 104
"""The smallest `sun_path` of the platforms served (macOS and the BSDs; Linux allows 108)."""


class NoRendezvous(Exception):  # noqa: N818  # a reason to serve standalone, worded for the person who reads it
    """No daemon can be reached or started; the message says why and what the front does instead."""


def runtime_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where every front and daemon of this user meet (see the module's docstring)."""
    env = os.environ if environ is None else environ
    chosen = env.get(RUNTIME_DIR_ENV)
    if chosen and os.path.isabs(chosen):
        return Path(chosen)
    uid = os.getuid()
    system = Path(SYSTEM_RUNTIME_ROOT) / str(uid)
    with contextlib.suppress(OSError):
        info = os.lstat(system)
        if stat.S_ISDIR(info.st_mode) and info.st_uid == uid:
            return system / "mcp-gateway"
    return Path(SHARED_TMP) / f"mcp-gateway-{uid}"


def socket_path(home: Path, directory: Path) -> Path:
    identity = f"{os.path.realpath(home)}\0{__version__}\0{FRONT_PROTOCOL}".encode()
    path = directory / f"{sha256_hex(identity)[:20]}.sock"
    if len(os.fsencode(path)) >= MAX_SOCKET_PATH_BYTES:
        raise NoRendezvous(f"the runtime directory {directory} is too deep for a Unix socket path")
    return path


def sha256_hex(data: bytes) -> str:
    """`hashlib.sha256(data).hexdigest()` without `hashlib`, which loads OpenSSL: 3.7 MB more in every front
    (measured), against a 20 MB budget. CPython's own SHA-256 module (`_sha2` from 3.12, `_sha256` before)
    gives the same digest; `hashlib` only where neither is built in."""
    for name in ("_sha2", "_sha256"):
        try:
            module: Any = importlib.import_module(name)
        except ImportError:
            continue
        return cast(str, module.sha256(data).hexdigest())
    import hashlib

    return hashlib.sha256(data).hexdigest()


def private_directory(directory: Path) -> Path:
    """`directory`, created 0700 if missing; refused unless it is a real directory of ours, private."""
    with contextlib.suppress(FileExistsError):
        directory.mkdir(mode=DIR_MODE, parents=True)
    try:
        info = os.lstat(directory)
    except OSError as exc:
        raise NoRendezvous(f"the runtime directory {directory} cannot be used ({exc.strerror})") from exc
    if not stat.S_ISDIR(info.st_mode):
        raise NoRendezvous(f"the runtime directory {directory} is not a directory (a link or a file is there)")
    if info.st_uid != os.getuid():
        raise NoRendezvous(f"the runtime directory {directory} belongs to another user")
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise NoRendezvous(f"the runtime directory {directory} is open to other users (mode {info.st_mode & 0o777:o})")
    return directory


def connect(path: Path) -> socket.socket | None:
    """A connection to the daemon at `path`, or None when none listens there."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(os.fspath(path))
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        return None
    except OSError:
        sock.close()
        raise
    return sock


def connect_or_start(path: Path, start_daemon: Callable[[], Callable[[], bool]]) -> socket.socket:
    """A connection to the daemon at `path`, starting one if none listens.

    `start_daemon()` starts a daemon that will listen at `path` and returns a check that says whether it is
    still running (a daemon that has exited will never accept).
    """
    sock = connect(path)
    if sock is not None:
        return sock
    with _start_lock(path.with_suffix(".lock")):
        sock = connect(path)  # started by the front that held the lock before us
        if sock is not None:
            return sock
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # nobody accepts on it and nobody is starting: a crashed daemon's socket
        running = start_daemon()
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            sock = connect(path)
            if sock is not None:
                return sock
            if not running():
                raise NoRendezvous("the gateway daemon exited as it started (its log says why)")
            time.sleep(POLL_SECONDS)
    raise NoRendezvous(f"the gateway daemon did not accept within {START_SECONDS:g} s")


@contextlib.contextmanager
def _start_lock(path: Path) -> Generator[None]:
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, LOCK_MODE)
    except OSError as exc:
        raise NoRendezvous(f"the lock {path} cannot be opened ({exc.strerror})") from exc
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN) or time.monotonic() > deadline:
                    raise NoRendezvous(f"the lock {path} was not free within {START_SECONDS:g} s") from exc
                time.sleep(POLL_SECONDS)
        yield
    finally:
        os.close(fd)  # releases the lock


STALE_SECONDS = 24 * 60 * 60.0
"""How long a workspace's files may outlive its daemon: a lock and a remembered handshake only spare a cold start
work, so a day of no daemon at all makes them worth nothing."""
MAX_SWEPT_ENTRIES = 10_000
"""Entries looked at per sweep: the directory of a machine that made workspaces by the thousand is cleaned over
several daemon starts, never in one long pause."""
SWEPT_SUFFIXES = (".lock", ".handshake")
KEPT_PREFIX = "default-"
TEMPORARY_SUFFIX = ".tmp"


def sweep(directory: Path, now: float | None = None) -> list[str]:
    """Remove from the private runtime directory what no daemon will use: sockets nobody listens on (and whose
    start lock nobody holds), and, a day after their last use, the locks and remembered handshakes of workspaces
    with no daemon, the remembered default workspace paths and the temporary files of a write that died. Every
    version and workspace a user ever ran leaves such files; without this they pile up for good. The names of
    what was removed."""
    moment = time.time() if now is None else now
    try:
        entries = sorted(os.scandir(directory), key=lambda entry: entry.name)[:MAX_SWEPT_ENTRIES]
    except OSError:
        return []
    kinds: dict[str, tuple[os.DirEntry[str], os.stat_result]] = {}
    for entry in entries:
        with contextlib.suppress(OSError):
            kinds[entry.name] = (entry, entry.stat(follow_symlinks=False))
    removed: list[str] = []

    def remove(name: str) -> None:
        with contextlib.suppress(OSError):
            os.unlink(kinds.pop(name)[0].path)
            removed.append(name)

    for name, (entry, info) in list(kinds.items()):  # sockets first: a dead one frees its workspace's files
        stem = name.removesuffix(".sock")
        stale = stem != name and stat.S_ISSOCK(info.st_mode) and _nobody_listens(Path(entry.path))
        if stale and not _lock_held(directory / f"{stem}.lock"):
            remove(name)
    for name, (_, info) in list(kinds.items()):
        if moment - info.st_mtime <= STALE_SECONDS or not stat.S_ISREG(info.st_mode):
            continue
        stem, dot, suffix = name.rpartition(".")
        if dot and f".{suffix}" in SWEPT_SUFFIXES:
            if f"{stem}.sock" not in kinds and not _lock_held(directory / f"{stem}.lock"):
                remove(name)
        elif name.startswith(KEPT_PREFIX) or name.endswith(TEMPORARY_SUFFIX):
            remove(name)
    return removed


def _nobody_listens(path: Path) -> bool:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(os.fspath(path))
    except ConnectionRefusedError:
        return True
    except OSError:
        return False
    finally:
        sock.close()
    return False


def _lock_held(path: Path) -> bool:
    """Whether a front holds `path` (it is starting that daemon now); a lock that cannot be opened is not held."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # releases it, if it was ours
    return False
