"""Whether this `mcp-gateway` serves as a session front, and the front's whole run when it does.

Called by the program before the command line is even parsed: a client's `mcp-gateway` (no command, or
`serve`, with at most `--home`) becomes a front of the workspace's daemon unless `--standalone` or
`MCP_GATEWAY_STANDALONE=1` says otherwise or the platform has no Unix sockets. Anything else, and any reason a
daemon cannot be had (said on stderr in one line), serves standalone as before.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

STANDALONE_ENV = "MCP_GATEWAY_STANDALONE"
DAEMON_COMMAND = "daemon"


def front_home(argv: Sequence[str]) -> tuple[str | None] | None:
    """`(home,)` when `argv` asks to serve with nothing a front cannot pass on; None otherwise."""
    if os.environ.get(STANDALONE_ENV, "") not in ("", "0") or sys.platform == "win32":
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
    """Serve this session through the daemon; None when it must be served standalone (said why on stderr)."""
    from mcp_gateway.front.hello import Hello
    from mcp_gateway.front.pipe import run_front
    from mcp_gateway.front.rendezvous import NoRendezvous, connect_or_start, private_directory, runtime_dir, socket_path

    try:
        workspace = _workspace_root(home)
        path = socket_path(workspace, private_directory(runtime_dir()))
        hello = Hello.of_this_process(os.getcwd(), dict(os.environ))
        return run_front(lambda: connect_or_start(path, _starter(home, path)), hello)
    except NoRendezvous as reason:
        print(f"mcp-gateway: serving this session on its own: {reason}", file=sys.stderr, flush=True)
        return None


def _workspace_root(home: str | None) -> Path:
    from mcp_gateway.paths import Workspace

    return Workspace.from_environment(home).config_path


def _starter(home: str | None, path: Path) -> Callable[[], Callable[[], bool]]:
    def start() -> Callable[[], bool]:
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
