"""Whether this `mcp-gateway` serves as a session front, and the front's whole run when it does.

Called by the program before the command line is even parsed: a client's `mcp-gateway` (no command, or
`serve`, with at most `--home`) becomes a front of the workspace's daemon unless `serve --standalone`,
`MCP_GATEWAY_STANDALONE=1` or the config's `settings.shared: false` says otherwise, or the platform has no
Unix sockets (Windows). Anything else, and any reason a daemon cannot be had (said on stderr in one line),
serves standalone as before. The config is read here with the standard library, for that one setting only:
the daemon reads and checks it whole.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    import socket

    from mcp_gateway.front.client_lines import ClientLines
    from mcp_gateway.front.hello import Hello

STANDALONE_ENV = "MCP_GATEWAY_STANDALONE"
MAX_CONFIG_BYTES = 16 * 1024 * 1024
"""As `config.loader` reads it: a larger file is no config, and the daemon says so."""
DAEMON_COMMAND = "daemon"


def sharing_allowed() -> bool:
    """Neither the environment (`MCP_GATEWAY_STANDALONE=1`) nor the platform (Windows) rules the daemon out."""
    return os.environ.get(STANDALONE_ENV, "") in ("", "0") and sys.platform != "win32"


def front_home(argv: Sequence[str]) -> tuple[str | None] | None:
    """`(home,)` when `argv` asks to serve with nothing a front cannot pass on; None otherwise."""
    if not sharing_allowed():
        return None
    rest = list(argv)
    home: str | None = None
    if rest[:1] == ["--home"] and len(rest) >= 2:  # the option and its value
        home, rest = rest[1], rest[2:]
    elif rest[:1] and rest[0].startswith("--home="):
        home, rest = rest[0].removeprefix("--home="), rest[1:]
    if rest not in ([], ["serve"]):
        return None
    return (home,)


def run_as_front(home: str | None) -> int | None:
    """Serve this session through the daemon if one runs; None when it does not, or refuses (said on stderr).

    Only a running daemon is used here, before anything heavy is imported: starting one is the cold path
    (`daemon_session`), taken once the session's handshake is being answered early, as a standalone start does.
    """
    from mcp_gateway.front.client_lines import ClientLines
    from mcp_gateway.front.early_answers import EarlyAnswers
    from mcp_gateway.front.pipe import Front, greeted
    from mcp_gateway.front.rendezvous import NoRendezvous, connect

    try:
        path = _socket_path(home)
        if path is None:
            return None
        sock = connect(path)
        if sock is None:
            return None
        hello = _hello()
        answer = greeted(sock, hello)
    except (NoRendezvous, OSError) as reason:
        print(f"mcp-gateway: serving this session on its own: {reason}", file=sys.stderr, flush=True)
        return None
    early = None if answer.handshake is None else EarlyAnswers(answer.handshake)
    return Front(sock, _reconnect(home, path), hello, ClientLines.on_stdio(None), early).run()


def daemon_session(home: str | None) -> Callable[[ClientLines], int] | None:
    """The cold path: start (or find) the daemon and return how to pipe `lines` through it; None when none
    can be had (said on stderr), and the session is served standalone."""
    from mcp_gateway.front.pipe import Front, greeted
    from mcp_gateway.front.rendezvous import NoRendezvous

    try:
        path = _socket_path(home)
        if path is None:
            return None
        hello = _hello()
        reconnect = _reconnect(home, path)
        sock = reconnect()
        greeted(sock, hello)
    except (NoRendezvous, OSError) as reason:
        print(f"mcp-gateway: serving this session on its own: {reason}", file=sys.stderr, flush=True)
        return None
    return lambda lines: Front(sock, reconnect, hello, lines).run()


def _socket_path(home: str | None) -> Path | None:
    from mcp_gateway.front.rendezvous import private_directory, runtime_dir, socket_path

    config_path = _config_path(home)
    if not _shared(config_path):
        return None
    return socket_path(config_path, private_directory(runtime_dir()))


def _hello() -> Hello:
    from mcp_gateway.front.hello import Hello

    return Hello.of_this_process(os.getcwd(), dict(os.environ))


def _reconnect(home: str | None, path: Path) -> Callable[[], socket.socket]:
    from mcp_gateway.front.rendezvous import connect_or_start

    return lambda: connect_or_start(path, _starter(home, path))


def _config_path(home: str | None) -> Path:
    from mcp_gateway.paths import Workspace

    return Workspace.from_environment(home).config_path


def _shared(config_path: Path) -> bool:
    """False only when the config says `"settings": {"shared": false}`; a config that cannot be read is the
    daemon's to report, as it reports any other problem of it."""
    try:
        raw: object = json.loads(_read_regular(config_path))
    except (OSError, ValueError):
        return True
    settings = cast(dict[str, object], raw).get("settings") if isinstance(raw, dict) else None
    return not (isinstance(settings, dict) and cast(dict[str, object], settings).get("shared") is False)


def _starter(home: str | None, path: Path) -> Callable[[], Callable[[], bool]]:
    def start() -> Callable[[], bool]:
        import subprocess  # the cold path's alone: a front with its daemon running is spared its imports

        command = [sys.executable, "-m", "mcp_gateway"]
        if home is not None:
            command += ["--home", home]
        command += [DAEMON_COMMAND, "--socket", os.fspath(path)]
        process = subprocess.Popen(  # our own interpreter and module
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # outlives this session; a client's signals to its front are not its own
            close_fds=True,
        )
        return lambda: process.poll() is None

    return start


def _read_regular(path: Path) -> bytes:
    """The file's bytes; never blocks on a FIFO or a device (as `workspace_files` reads), at most the cap."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, MAX_CONFIG_BYTES + 1 - size):
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_CONFIG_BYTES:
                raise ValueError("too large")
        return b"".join(chunks)
    finally:
        os.close(fd)
