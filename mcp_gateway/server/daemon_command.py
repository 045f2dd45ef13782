"""`mcp-gateway daemon`: what a session front starts, up to the moment the daemon serves (`daemon.run_daemon`).

`[--home H] daemon --socket PATH` is the workspace's shared daemon, listening at PATH; `--connection FD` is a
private one, serving the connection it inherited on FD. In that order, so that the first front is answered as
early as can be: read the config (its diagnostics on stderr, the private daemon's being the session's own; a
file that cannot be used is served as its last good version, or no servers, every search saying why),
set up logging (masked; `debug` also writes `logs/gateway.log`), make the handshake from the config and the
catalog's digest and remember it for the next cold start (`front.remembered_handshake`), then open the door
and serve: the SDK and everything behind it are imported only while the door already answers hellos.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from mcp_gateway import __version__
from mcp_gateway.config import GatewayConfig
from mcp_gateway.front.early_answers import Handshake
from mcp_gateway.front.hello import Answer
from mcp_gateway.front.launch import DAEMON_COMMAND
from mcp_gateway.front.remembered_handshake import remember, remembered, remembered_path, taken
from mcp_gateway.gateway_log import log_to_file, log_to_stderr
from mcp_gateway.masking import SecretMask
from mcp_gateway.service.handshake_text import handshake_instructions, handshake_sources
from mcp_gateway.service.home import gateway_log_path, serving_config
from mcp_gateway.service.surface import meta_tool_definitions
from mcp_gateway.terminal import guard_terminals


def run_daemon_command(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="mcp-gateway daemon", description="What a session front starts.")
    parser.add_argument("--home")
    parser.add_argument("command", choices=[DAEMON_COMMAND])
    door = parser.add_mutually_exclusive_group(required=True)
    door.add_argument("--socket", type=Path, help="serve every session of the workspace on this socket")
    door.add_argument("--connection", type=int, help="serve the one connection inherited on this descriptor")
    parser.add_argument("--remember", type=Path, help="the shared socket's path, to remember the handshake beside")
    parser.add_argument("--grace", type=float)
    args = parser.parse_args(argv)
    guard_terminals()  # a private daemon's stderr is its session's, a terminal when a person runs it
    sources = taken(handshake_sources(args.home))  # before they are read
    config, problem = serving_config(args.home)
    secrets = SecretMask.for_servers(config.servers.values(), os.environ)
    log_to_stderr(secrets)
    said = [f"error: {problem}"] if problem is not None else [f"{d.severity}: {d}" for d in config.diagnostics]
    for line in said:
        print(secrets.mask(f"mcp-gateway: {line}"), file=sys.stderr, flush=True)
    if config.settings.debug and (log_path := gateway_log_path(args.home)) is not None:
        log_to_file(log_path, secrets)  # everything, masked and private
    early = Handshake(handshake_instructions(args.home, config), meta_tool_definitions())
    beside = args.socket if args.socket is not None else args.remember
    # Kept for the next cold start when made from the file as it is (not a fallback) and not kept already.
    if beside is not None and problem is None and remembered(remembered_path(beside), os.environ) != early:
        remember(remembered_path(beside), os.environ, sources, Answer(True, __version__, handshake=early).encode())
    return _serve(args, config, early, problem)


def _serve(args: argparse.Namespace, config: GatewayConfig, early: Handshake, problem: str | None) -> int:
    import anyio

    from mcp_gateway.server.daemon import leave_now, run_daemon
    from mcp_gateway.server.doors import Door, ListeningDoor, PrivateDoor

    if args.connection is not None:
        door: Door = PrivateDoor(args.connection)
        grace = 0.0
    else:
        door = ListeningDoor(args.socket)
        grace = args.grace if args.grace is not None else config.settings.daemon_grace_seconds
    status = anyio.run(
        lambda: run_daemon(args.home, config, door, early, grace_seconds=grace, leave=leave_now, problem=problem)
    )
    leave_now(status)
