"""Who is at the other end of a Unix socket: the daemon serves only its own user.

The runtime directory is private already; this is the second lock on the door, for a directory made
reachable by mistake (a group-writable `XDG_RUNTIME_DIR`, a bind mount). Linux answers with `SO_PEERCRED`,
macOS and the BSDs with `LOCAL_PEERCRED`; a platform that can answer neither is refused rather than trusted.
"""

from __future__ import annotations

import os
import socket
import struct
import sys

_UCRED = struct.Struct("3i")
"""Linux `struct ucred`: pid, uid, gid."""
_SOL_LOCAL = 0
_LOCAL_PEERCRED = 0x001
_XUCRED = struct.Struct("Ii16I")
"""BSD `struct xucred`: version, uid, the group count, the groups."""


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process that connected `sock`; None when the platform cannot say."""
    if sys.platform.startswith("linux"):
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size)
        _pid, uid, _gid = _UCRED.unpack(raw)
        return uid
    if sys.platform == "darwin" or "bsd" in sys.platform:
        raw = sock.getsockopt(_SOL_LOCAL, _LOCAL_PEERCRED, _XUCRED.size)
        return _XUCRED.unpack(raw)[1]
    return None


def same_user(sock: socket.socket) -> bool:
    return peer_uid(sock) == os.getuid()
