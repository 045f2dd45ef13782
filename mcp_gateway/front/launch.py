"""How a client's `mcp-gateway` serves its session: always as a front, through a daemon.

Called by the program before the command line is even parsed. The front is the only code that touches the
client's stdin and stdout; what serves the session is always the daemon's code, in one of two places:
- the workspace's shared daemon, reached on its socket (`rendezvous`) and started there if none runs, so
  every session of the workspace shares one catalog and one pool;
- a private daemon, started for this session alone over a socket pair it inherits: no listening socket, no
  state file, nobody else may connect, and it leaves when the session does. That is standalone serving
  (`serve --standalone`, `MCP_GATEWAY_STANDALONE=1`, the config's `settings.shared: false`, a platform
  without Unix sockets, a terminal) and what any reason a shared daemon cannot be had falls back to (said
  on stderr in one line).
The two differ only in who else may connect. The config is read here with the standard library for that
one setting only; the daemon reads and checks it whole.

A daemon answers the front's hello with the handshake it serves with, as soon as it has read its config and
before it imports the SDK; the front answers the client's `initialize` and `tools/list` from it itself
(`early_answers`), or at once from the handshake the last cold start remembered (`remembered_handshake`)
when nothing it was made from changed. A front never loads the config, so it never holds pydantic.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, NamedTuple, cast

from mcp_gateway.front.private_files import read_bounded
from mcp_gateway.line_bounds import MAX_PRIVATE_LINE_BYTES, MAX_SHARED_LINE_BYTES

if TYPE_CHECKING:
    from mcp_gateway.front.client_lines import ClientLines
    from mcp_gateway.front.early_answers import EarlyAnswers
    from mcp_gateway.front.hello import Answer

STANDALONE_ENV = "MCP_GATEWAY_STANDALONE"
MAX_CONFIG_BYTES = 16 * 1024 * 1024
"""As `config.loader` reads it: a larger file is no config, and the daemon says so."""
DAEMON_COMMAND = "daemon"
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
STOPPED_STATUS = 0
"""A front told to stop by its client has done what it was for: the daemon stops what only it used."""
IN_A_TERMINAL = (
    "mcp-gateway: this is an MCP server, waiting for an AI client to talk JSON-RPC on stdin (Ctrl-D ends it); "
    "to try it, run `mcp-gateway demo`, and see `mcp-gateway --help` for the commands"
)


class ServeRequest(NamedTuple):
    """What an invocation that serves asks for."""

    home: str | None
    standalone: bool = False


def serve_request(argv: Sequence[str]) -> ServeRequest | None:
    """The one rule for what serves: no command or `serve`, with `--home H` (or `--home=H`) before or after it
    and `--standalone` after it, each at most once; None for anything else (the command line decides, and its
    `serve` comes back here with what it parsed)."""
    home: str | None = None
    seen_home = standalone = serving = False
    rest = list(argv)
    while rest:
        token = rest.pop(0)
        if token == "--home" and rest and not seen_home:
            home, seen_home = rest.pop(0), True
        elif token.startswith("--home=") and not seen_home:
            home, seen_home = token.removeprefix("--home="), True
        elif token == "serve" and not serving:
            serving = True
        elif token == "--standalone" and serving and not standalone:
            standalone = True
        else:
            return None
    return ServeRequest(home, standalone)


def sharing_allowed() -> bool:
    """Neither the environment (`MCP_GATEWAY_STANDALONE=1`) nor the platform rules the shared daemon out."""
    return os.environ.get(STANDALONE_ENV, "") in ("", "0") and sys.platform != "win32" and hasattr(socket, "AF_UNIX")


def serve_session(request: ServeRequest) -> int:
    """Serve the client on stdin and stdout through a daemon until it leaves; the exit status."""
    from mcp_gateway.front.early_answers import EarlyAnswers
    from mcp_gateway.front.remembered_handshake import remembered, remembered_path
    from mcp_gateway.front.rendezvous import NoRendezvous

    _leave_on_stop_signals()
    standalone = request.standalone or not sharing_allowed()
    if os.isatty(0):  # a person trying it: say what it is, and leave no shared daemon behind
        print(IN_A_TERMINAL, file=sys.stderr, flush=True)
        standalone = True
    try:
        place = _place(request.home)
    except (NoRendezvous, OSError) as reason:
        print(f"mcp-gateway: serving this session on its own: {reason}", file=sys.stderr, flush=True)
        place = None
    shared = place is not None and not standalone and place.shared
    running = _running_daemon(place.socket) if shared and place is not None else None
    # A running daemon answers the hello at once; a cold start answers from what the last one remembered.
    kept = None if running is not None or place is None else remembered(remembered_path(place.socket), os.environ)
    lines = _client_lines(None if kept is None else EarlyAnswers(kept), shared=shared)
    return _run(request.home, place, lines, shared=shared, running=running)


class Place(NamedTuple):
    """Where the workspace's daemon listens, and whether its config lets sessions share it."""

    socket: Path
    shared: bool


def _place(home: str | None) -> Place:
    from mcp_gateway.front.rendezvous import private_directory, runtime_dir, socket_path

    directory = runtime_dir()
    config = _config_path(home, directory)
    return Place(socket_path(config.parent, private_directory(directory)), _shared(config))


def _client_lines(early: EarlyAnswers | None, *, shared: bool) -> ClientLines:
    from mcp_gateway.front.client_lines import ClientLines

    return ClientLines.on_stdio(early, MAX_SHARED_LINE_BYTES if shared else MAX_PRIVATE_LINE_BYTES)


def _running_daemon(path: Path) -> socket.socket | None:
    from mcp_gateway.front.rendezvous import connect

    try:
        return connect(path)
    except OSError:
        return None  # said once the front tries to reach it for real


def _run(
    home: str | None, place: Place | None, lines: ClientLines, *, shared: bool, running: socket.socket | None
) -> int:
    from mcp_gateway.front.hello import Hello
    from mcp_gateway.front.pipe import Front, greeted
    from mcp_gateway.front.rendezvous import NoRendezvous

    early = lines.early
    hello = Hello.of_this_process(os.getcwd(), dict(os.environ), None if early is None else early.handshake)
    start_private = _private(home, place)

    def private() -> tuple[socket.socket, Answer]:
        lines.max_line_bytes = MAX_PRIVATE_LINE_BYTES  # as a private daemon reads them
        sock = start_private()
        return sock, greeted(sock, hello)

    def shared_or_private() -> tuple[socket.socket, Answer]:
        nonlocal running
        assert place is not None
        try:
            sock, running = running or _shared_connection(home, place.socket), None
            return sock, greeted(sock, hello)
        except (NoRendezvous, OSError) as reason:
            print(f"mcp-gateway: serving this session on its own: {reason}", file=sys.stderr, flush=True)
        return private()

    reach = shared_or_private if shared else private
    try:
        sock, answer = reach()
    except (NoRendezvous, OSError) as reason:
        print(f"mcp-gateway: the gateway could not be started: {reason}", file=sys.stderr, flush=True)
        return 1
    return Front(sock, lambda: reach()[0], hello, lines, answer).run()


def _shared_connection(home: str | None, path: Path) -> socket.socket:
    from mcp_gateway.front.rendezvous import connect_or_start

    return connect_or_start(path, lambda: _start_shared(home, path))


def _private(home: str | None, place: Place | None) -> Callable[[], socket.socket]:
    """How to start a private daemon for this session: a socket pair, the other end of which it inherits."""

    def start() -> socket.socket:
        import subprocess  # the cold path's alone: a front with its daemon running is spared its imports

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        command = [*_daemon_command(home), "--connection", str(theirs.fileno())]
        if place is not None:
            command += ["--remember", os.fspath(place.socket)]
        try:
            subprocess.Popen(  # our own interpreter and module
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,  # its stderr is the session's, as a gateway's own would be
                pass_fds=(theirs.fileno(),),
                close_fds=True,
            )
        except OSError:
            ours.close()
            raise
        finally:
            theirs.close()
        return ours

    return start


def _start_shared(home: str | None, path: Path) -> Callable[[], bool]:
    """Start the shared daemon at `path`; a check that says whether it is still running."""
    import subprocess

    log = _daemon_log(home)
    try:
        process = subprocess.Popen(
            [*_daemon_command(home), "--socket", os.fspath(path)],
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


def _daemon_command(home: str | None) -> list[str]:
    command = [sys.executable, "-m", "mcp_gateway"]
    if home is not None:
        command += ["--home", home]
    return [*command, DAEMON_COMMAND]


def _daemon_log(home: str | None) -> int | None:
    """The shared daemon's stderr (`front/daemon_log.py`); None, said on this session's stderr, when it cannot
    be had."""
    from mcp_gateway.front.daemon_log import open_daemon_log
    from mcp_gateway.paths import Workspace

    logs = Workspace.from_environment(home).logs_dir
    try:
        return open_daemon_log(logs)
    except OSError as error:
        print(f"mcp-gateway: the daemon's stderr is not logged in {logs}: {error}", file=sys.stderr, flush=True)
        return None


def _leave_on_stop_signals() -> None:
    """A stop signal ends the front at once: its daemon sees the session's connection gone and stops, urgently,
    what only this session used (a client that signals kills soon after: Claude Code 500 ms later)."""

    def leave(signum: int, frame: FrameType | None) -> None:
        os._exit(STOPPED_STATUS)

    for stop in STOP_SIGNALS:
        signal.signal(stop, leave)


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
        raw: object = json.loads(read_bounded(config_path, MAX_CONFIG_BYTES, follow_symlinks=True))
    except (OSError, ValueError, RecursionError):
        return True
    settings = cast(dict[str, object], raw).get("settings") if isinstance(raw, dict) else None
    return not (isinstance(settings, dict) and cast(dict[str, object], settings).get("shared") is False)
