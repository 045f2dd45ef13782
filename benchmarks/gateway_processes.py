"""Which process of the gateway is which, read from its command line: a session front (what a client starts
as `mcp-gateway`), the workspace's shared daemon (`[--home H] daemon --socket PATH`, started by the first
front in a session of its own, lingering `daemonGraceSeconds` after its last session) or a session's private
daemon (`daemon --connection FD [--remember PATH]`, the front's child, gone with its session).

A user's machine holds, for each workspace, one front per session and one shared daemon behind them all (and
the downstream servers the daemon started); a standalone session holds its front and a private daemon. Every
benchmark counts, times and measures those processes, so it tells them apart here, by the gateway's own rule
for what serves (`front.launch.serve_request`) and for what a daemon is (`program`'s `daemon` command).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from mcp_gateway.front.launch import DAEMON_COMMAND, serve_request

Role = Literal["front", "shared daemon", "private daemon"]
FRONT: Role = "front"
SHARED_DAEMON: Role = "shared daemon"
PRIVATE_DAEMON: Role = "private daemon"

CONSOLE_SCRIPT = "mcp-gateway"
MODULE = "mcp_gateway"
"""`python -m mcp_gateway`: how a front starts a daemon. Not the demo's servers, which are modules of the
package too (`python -m mcp_gateway.demo.toolbox`)."""
INTERPRETER_OPTIONS_WITH_VALUE = frozenset({"-X", "-W"})


def gateway_arguments(argv: Sequence[str]) -> list[str] | None:
    """The arguments the gateway program was given, or None when `argv` does not run the gateway: the console
    script (run by its interpreter, as a shebang makes it, or itself) or `python [-X opt ...] -m mcp_gateway`."""
    for index in (0, 1):
        if len(argv) > index and Path(argv[index]).name == CONSOLE_SCRIPT:
            return list(argv[index + 1 :])
    index = 1
    while index < len(argv) and argv[index].startswith("-"):
        if argv[index] == "-m":
            return list(argv[index + 2 :]) if argv[index + 1 : index + 2] == [MODULE] else None
        index += 2 if argv[index] in INTERPRETER_OPTIONS_WITH_VALUE else 1
    return None


def option(arguments: Sequence[str], name: str) -> str | None:
    """The value given to `--name VALUE` (or `--name=VALUE`), if any."""
    for index, argument in enumerate(arguments):
        if argument == name and index + 1 < len(arguments):
            return arguments[index + 1]
        if argument.startswith(f"{name}="):
            return argument.removeprefix(f"{name}=")
    return None


@dataclass(frozen=True)
class GatewayProcess:
    """A process of the gateway as its command line describes it."""

    role: Role
    home: str | None
    """`--home`, when given (a client that gives none serves its default workspace)."""
    socket: str | None
    """The shared daemon's socket; for a private daemon, the shared socket it remembers its handshake beside."""


def describe(argv: Sequence[str]) -> GatewayProcess | None:
    """What `argv` is of the gateway, or None: not the gateway, or one of its other commands (`refresh`, ...).
    `argv` as /proc gives it, too: its NUL-terminated form ends in an empty argument, which is not one."""
    given = list(argv)
    arguments = gateway_arguments(given[:-1] if given[-1:] == [""] else given)
    if arguments is None:
        return None
    home = option(arguments, "--home")
    if serve_request(arguments) is not None:
        return GatewayProcess(FRONT, home, None)
    if DAEMON_COMMAND not in arguments:
        return None
    if (shared := option(arguments, "--socket")) is not None:
        return GatewayProcess(SHARED_DAEMON, home, shared)
    if option(arguments, "--connection") is not None:
        return GatewayProcess(PRIVATE_DAEMON, home, option(arguments, "--remember"))
    return None
