"""Whether this `mcp-gateway` serves as a session front, and the front's whole run when it does.

Called by the program before the command line is even parsed: a client's `mcp-gateway` (no command, or
`serve`, with at most `--home`) becomes a front of the workspace's daemon unless `serve --standalone`,
`MCP_GATEWAY_STANDALONE=1` or the config's `settings.shared: false` says otherwise, or the platform has no
Unix sockets (Windows). Anything else, and any reason a daemon cannot be had (said on stderr in one line),
serves standalone as before. The config is read here with the standard library, for that one setting only:
the daemon reads and checks it whole.

With no daemon running, the front starts one and stays thin all the same: it answers the client's `initialize`
and `tools/list` while the daemon starts, from the handshake the last cold start made (`remembered_handshake`)
when nothing it was made from changed, else from one a child forked from the front (no thread runs in it yet,
and no new interpreter starts) makes: it loads the config, keeps the handshake for the next cold start, writes
it to the front through a pipe and exits. A front never loads the config, so it never holds pydantic;
what makes the handshake is given by the program (`HandshakeOf`), as the front imports no config itself.
"""

from __future__ import annotations

import importlib
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
    from mcp_gateway.front.remembered_handshake import Made

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


HandshakeOf = Callable[[str | None], "Made"]
"""The handshake a gateway serving the workspace at `home` gives, and the files it is made from (the program's:
it loads the config)."""


def run_as_front(home: str | None, handshake_of: HandshakeOf) -> int | ClientLines | None:
    """Serve this session through the workspace's daemon, started now if none runs; the exit status.

    None when no daemon can be had (said on stderr) before the client's stdin was read: the session is to be
    served standalone. The `ClientLines` already reading it when a daemon that started and sent its handshake
    then failed to accept: the session is to be served standalone from those lines.
    """
    from mcp_gateway.front.rendezvous import NoRendezvous, connect_or_start

    started: list[ClientLines] = []

    def answer_with(handshake: Handshake) -> None:
        from mcp_gateway.front.client_lines import ClientLines
        from mcp_gateway.front.early_answers import EarlyAnswers

        started.append(ClientLines.on_stdio(EarlyAnswers(handshake)))

    try:
        path = _socket_path(home)
        if path is None:
            return None
        sock = connect_or_start(path, _starter(home, path, (handshake_of, answer_with)))
        # Imported only now, or while the child of a cold start makes the handshake (`_starter`): a running
        # daemon answers the hello at once, and a front that finds one needs these only after it.
        from mcp_gateway.front.client_lines import ClientLines
        from mcp_gateway.front.early_answers import EarlyAnswers
        from mcp_gateway.front.pipe import Front, greeted

        hello = _hello()
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

    directory = runtime_dir()
    config_path = _config_path(home, directory)
    if not _shared(config_path):
        return None
    return socket_path(config_path, private_directory(directory))


def _hello() -> Hello:
    from mcp_gateway.front.hello import Hello

    return Hello.of_this_process(os.getcwd(), dict(os.environ))


def _reconnect(home: str | None, path: Path) -> Callable[[], socket.socket]:
    from mcp_gateway.front.rendezvous import connect_or_start

    return lambda: connect_or_start(path, _starter(home, path))


def _config_path(home: str | None, runtime: Path) -> Path:
    from mcp_gateway.paths import HOME_ENV_VAR, Workspace

    if home is not None or os.environ.get(HOME_ENV_VAR):
        return Workspace.from_environment(home).config_path
    from mcp_gateway.front.default_workspace import default_config_path

    return default_config_path(runtime, lambda: Workspace.from_environment(None).config_path)


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
    home: str | None,
    path: Path,
    answering: tuple[HandshakeOf, Callable[[Handshake], None]] | None = None,
) -> Callable[[], Callable[[], bool]]:
    """How to start the daemon; with `answering`, the handshake is made first, in a forked child, and given
    to its second member (if the child makes one)."""

    def start() -> Callable[[], bool]:
        import subprocess  # the cold path's alone: a front with its daemon running is spared its imports

        # The handshake first, the daemon after: started together, the daemon's imports would take the CPU from
        # the client's answers (2 CPUs: a cold start then took half as long again as a standalone one).
        if answering is not None:
            _answer_first(answering, home, path)
        command = [sys.executable, "-m", "mcp_gateway"]
        if home is not None:
            command += ["--home", home]
        command += [DAEMON_COMMAND, "--socket", os.fspath(path)]
        log = _daemon_log(home)
        try:
            process = subprocess.Popen(  # our own interpreter and module
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL if log is None else log,  # not this session's stderr: it outlives it
                start_new_session=True,  # outlives this session; a client's signals to its front are not its own
                close_fds=True,
            )
        finally:
            if log is not None:
                os.close(log)
        return lambda: process.poll() is None

    return start


def _answer_first(answering: tuple[HandshakeOf, Callable[[Handshake], None]], home: str | None, path: Path) -> None:
    """Give the handshake to `answering[1]`: the one remembered from the last cold start, if what it was made
    from is unchanged, else one made now in a forked child (which remembers it)."""
    from mcp_gateway.front.remembered_handshake import remembered, remembered_path

    handshake_of, answer_with = answering
    kept = remembered_path(path)
    handshake = remembered(kept, os.environ)
    if handshake is None:
        child = _handshake_in_a_child(handshake_of, home, kept)
        if child is None:
            return
        importlib.import_module("mcp_gateway.front.pipe")  # the rest of the front's, while the child works
        handshake = _first_handshake(*child)
    if handshake is not None:
        answer_with(handshake)


def _daemon_log(home: str | None) -> int | None:
    """The daemon's stderr (`front/daemon_log.py`); None, said on this session's stderr, when it cannot be had."""
    from mcp_gateway.front.daemon_log import open_daemon_log
    from mcp_gateway.paths import Workspace

    logs = Workspace.from_environment(home).logs_dir
    try:
        return open_daemon_log(logs)
    except OSError as error:
        print(f"mcp-gateway: the daemon's stderr is not logged in {logs}: {error}", file=sys.stderr, flush=True)
        return None


def _handshake_in_a_child(handshake_of: HandshakeOf, home: str | None, kept: Path) -> tuple[int, int] | None:
    """A forked child making the handshake: the pipe's end it writes it to, as an accepting hello answer's
    line, and its pid. None when no child can be forked (then the daemon answers the handshake itself). The
    child then remembers it at `kept` for the next cold start (`front.remembered_handshake`).

    Sound without an exec: the front has started no thread yet, and the child touches nothing of the
    front's. It keeps stderr (the config's warnings reach the client's log, as a standalone start's do),
    and closes every other descriptor, the start lock's among them (the front keeps holding the lock).
    """
    from mcp_gateway import __version__
    from mcp_gateway.front.hello import Answer
    from mcp_gateway.front.remembered_handshake import remember

    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:
        status = 1
        try:
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(null, 1)
            os.closerange(3, write_end)
            os.closerange(write_end + 1, os.sysconf("SC_OPEN_MAX"))
            made = handshake_of(home)
            line = Answer(True, __version__, handshake=made.handshake).encode()
            # Remembered before it is sent: once the front has its line it reaps this child, or ends it.
            remember(kept, os.environ, made.sources, line)
            view = memoryview(line)
            while view:
                view = view[os.write(write_end, view) :]
            status = 0
        finally:
            os._exit(status)  # nothing of the front's to flush or run at exit
    os.close(write_end)
    return read_end, pid


def _first_handshake(fd: int, pid: int) -> Handshake | None:
    """The handshake the child `pid` writes on `fd` (which is closed, the child reaped); None when it exits
    without one or takes longer than `START_SECONDS` (then it is killed, and the daemon answers instead)."""
    import select
    import signal

    from mcp_gateway.front.hello import MAX_HELLO_BYTES, Answer, BadHello
    from mcp_gateway.front.rendezvous import START_SECONDS

    deadline = time.monotonic() + START_SECONDS
    data = b""
    try:
        while not data.endswith(b"\n") and len(data) <= MAX_HELLO_BYTES:
            readable, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(fd, MAX_HELLO_BYTES) if readable else b""
            if not chunk:
                return None
            data += chunk
    finally:
        os.close(fd)
        if os.waitpid(pid, os.WNOHANG) == (0, 0):  # still working past the deadline: ours to end
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
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
