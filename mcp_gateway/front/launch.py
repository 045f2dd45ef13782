"""Whether this `mcp-gateway` serves as a session front, and the front's whole run when it does.

Called by the program before the command line is even parsed: a client's `mcp-gateway` (no command, or
`serve`, with at most `--home`) becomes a front of the workspace's daemon unless `serve --standalone`,
`MCP_GATEWAY_STANDALONE=1` or the config's `settings.shared: false` says otherwise, or the platform has no
Unix sockets (Windows). Anything else, and any reason a daemon cannot be had (said on stderr in one line),
serves standalone as before. The config is read here with the standard library, for that one setting only:
the daemon reads and checks it whole.

With no daemon running, the front starts one and stays thin all the same: the daemon's first act, before it
imports the SDK, is to write the handshake it will serve with to the front that started it, through a pipe
(`DAEMON_COMMAND`), and the front answers the client's `initialize` and `tools/list` from it while the
daemon goes on starting. A front never loads the config, so it never holds pydantic: the cold path is the
warm one's imports, one process start and the config's load, which a standalone start also pays.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    import socket

    from mcp_gateway.front.client_lines import ClientLines
    from mcp_gateway.front.early_answers import Handshake
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


def run_as_front(home: str | None) -> int | ClientLines | None:
    """Serve this session through the workspace's daemon, started now if none runs; the exit status.

    None when no daemon can be had (said on stderr) before the client's stdin was read: the session is to be
    served standalone. The `ClientLines` already reading it when a daemon that started and sent its handshake
    then failed to accept: the session is to be served standalone from those lines.
    """
    from mcp_gateway.front.client_lines import ClientLines
    from mcp_gateway.front.early_answers import EarlyAnswers
    from mcp_gateway.front.pipe import Front, greeted
    from mcp_gateway.front.rendezvous import NoRendezvous, connect_or_start

    started: list[ClientLines] = []

    def answer_with(handshake: Handshake) -> None:
        started.append(ClientLines.on_stdio(EarlyAnswers(handshake)))

    try:
        path = _socket_path(home)
        if path is None:
            return None
        hello = _hello()
        sock = connect_or_start(path, _starter(home, path, answer_with))
        answer = greeted(sock, hello)
    except (NoRendezvous, OSError) as reason:
        print(f"mcp-gateway: serving this session on its own: {reason}", file=sys.stderr, flush=True)
        return started[0] if started else None
    if started:  # this front started the daemon, and has answered from its pipe meanwhile
        return Front(sock, _reconnect(home, path), hello, started[0]).run()
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


def _starter(
    home: str | None, path: Path, answer_with: Callable[[Handshake], None] | None = None
) -> Callable[[], Callable[[], bool]]:
    """How to start the daemon; `answer_with` is given the handshake it writes first, if it writes one."""

    def start() -> Callable[[], bool]:
        import subprocess  # the cold path's alone: a front with its daemon running is spared its imports

        command = [sys.executable, "-m", "mcp_gateway"]
        if home is not None:
            command += ["--home", home]
        command += [DAEMON_COMMAND, "--socket", os.fspath(path)]
        process = subprocess.Popen(  # our own interpreter and module
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL if answer_with is None else subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # outlives this session; a client's signals to its front are not its own
            close_fds=True,
        )
        if answer_with is not None and process.stdout is not None:
            with process.stdout:
                handshake = _first_handshake(process.stdout.fileno())
            if handshake is not None:
                answer_with(handshake)
        return lambda: process.poll() is None

    return start


def _first_handshake(fd: int) -> Handshake | None:
    """The handshake a starting daemon writes first on `fd` (an accepting hello answer's line); None when it
    exits, writes something else or takes longer than `START_SECONDS` (its socket then says the rest)."""
    import select

    from mcp_gateway.front.hello import MAX_HELLO_BYTES, Answer, BadHello
    from mcp_gateway.front.rendezvous import START_SECONDS

    deadline = time.monotonic() + START_SECONDS
    data = b""
    while not data.endswith(b"\n") and len(data) <= MAX_HELLO_BYTES:
        readable, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(fd, MAX_HELLO_BYTES) if readable else b""
        if not chunk:
            return None
        data += chunk
    try:
        return Answer.decode(data).handshake
    except BadHello:
        return None


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
